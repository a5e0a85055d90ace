// HourlySeries: values per UTC hour, integrals over any span, wrap-around in both
// directions. The series used throughout: start 02:00 (7200 s), values 10, −5, 20 for
// [7200, 10800), [10800, 14400), [14400, 18000); one cycle integrates to 25 × 3600 = 90000.

#include "model/hourly_series.h"

#include <gtest/gtest.h>

#include <random>

namespace frugal {
namespace {

constexpr double kH = 3600;
constexpr int64_t kStart = 7200;

HourlySeries series() {
  return HourlySeries(kStart, {10, -5, 20});
}

TEST(HourlySeries, Shape) {
  const HourlySeries s = series();
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.hours(), 3u);
  EXPECT_EQ(s.start(), kStart);
  EXPECT_EQ(s.end(), kStart + 3 * 3600);
  EXPECT_EQ(s.values(), (std::vector<double>{10, -5, 20}));
}

TEST(HourlySeries, IntegralWithinOneHour) {
  const HourlySeries s = series();
  // 10 × 600 s
  EXPECT_DOUBLE_EQ(s.integral(kStart + 600, kStart + 1200), 6000);
  // −5 × 1 s (a negative price hour)
  EXPECT_DOUBLE_EQ(s.integral(kStart + kH + 10, kStart + kH + 11), -5);
  // A whole hour of −5: −18000
  EXPECT_DOUBLE_EQ(s.integral(kStart + kH, kStart + 2 * kH), -18000);
}

TEST(HourlySeries, IntegralOverPartialAndSeveralHours) {
  const HourlySeries s = series();
  // Half of hour 0 and half of hour 1: 10 × 1800 + (−5) × 1800 = 9000
  EXPECT_DOUBLE_EQ(s.integral(kStart + 1800, kStart + kH + 1800), 9000);
  // The whole series: (10 − 5 + 20) × 3600 = 90000
  EXPECT_DOUBLE_EQ(s.integral(kStart, kStart + 3 * kH), 90000);
  // Half of hour 0, all of hour 1, a quarter of hour 2: 18000 − 18000 + 18000 = 18000
  EXPECT_DOUBLE_EQ(s.integral(kStart + 1800, kStart + 2 * kH + 900), 18000);
  // A span whose value sum is negative: all of hour 1 and 100 s of hour 2:
  // −18000 + 2000 = −16000
  EXPECT_DOUBLE_EQ(s.integral(kStart + kH, kStart + 2 * kH + 100), -16000);
}

TEST(HourlySeries, EmptyOrReversedSpanIsZero) {
  const HourlySeries s = series();
  EXPECT_EQ(s.integral(kStart + 100, kStart + 100), 0);
  EXPECT_EQ(s.integral(kStart + 200, kStart + 100), 0);
  const HourlySeries empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.at(12345), 0);
  EXPECT_EQ(empty.integral(0, 1e6), 0);
  EXPECT_FALSE(empty.wraps(-1e9, 1e9));
}

TEST(HourlySeries, WrapsAfterTheEnd) {
  const HourlySeries s = series();
  const double end = static_cast<double>(s.end());
  // The hour after the end is hour 0 again: 10 × 3600
  EXPECT_DOUBLE_EQ(s.integral(end, end + kH), 36000);
  // From half of hour 0 of the 2nd cycle to half of its hour 1: 9000 as in the 1st cycle
  EXPECT_DOUBLE_EQ(s.integral(end + 1800, end + kH + 1800), 9000);
  // Across the end: last half of hour 2 (20 × 1800) + first half of hour 0 (10 × 1800)
  EXPECT_DOUBLE_EQ(s.integral(end - 1800, end + 1800), 54000);
  // Ten whole cycles from the start: 10 × 90000
  EXPECT_DOUBLE_EQ(s.integral(kStart, kStart + 30 * kH), 900000);
  // Far in the future (1000 cycles on), same as the first cycle's hour 1 + hour 2
  const double far = kStart + 1000 * 3 * kH;
  EXPECT_NEAR(s.integral(far + kH, far + 3 * kH), -18000 + 72000, 1e-6);
  EXPECT_TRUE(s.wraps(kStart, end + 1));
  EXPECT_FALSE(s.wraps(kStart, end));
}

TEST(HourlySeries, WrapsBeforeTheStart) {
  const HourlySeries s = series();
  // The hour before the start is the last hour (20): 72000
  EXPECT_DOUBLE_EQ(s.integral(kStart - kH, kStart), 72000);
  // [0, 7200) are hours −2 and −1 → values −5 and 20: (−5 + 20) × 3600 = 54000
  EXPECT_DOUBLE_EQ(s.integral(0, kStart), 54000);
  // Across the start: 20 × 1800 + 10 × 1800 = 54000
  EXPECT_DOUBLE_EQ(s.integral(kStart - 1800, kStart + 1800), 54000);
  // Two cycles before the start, a whole cycle still integrates to 90000
  EXPECT_DOUBLE_EQ(s.integral(kStart - 6 * kH, kStart - 3 * kH), 90000);
  EXPECT_TRUE(s.wraps(kStart - 1, kStart + 10));
  EXPECT_FALSE(s.wraps(kStart, kStart + 10));
}

TEST(HourlySeries, AtLooksUpTheHourWrapped) {
  const HourlySeries s = series();
  EXPECT_EQ(s.at(kStart), 10);
  EXPECT_EQ(s.at(kStart + 3599.5), 10);
  EXPECT_EQ(s.at(kStart + kH), -5);
  EXPECT_EQ(s.at(kStart + 2 * kH + 1), 20);
  EXPECT_EQ(s.at(static_cast<double>(s.end())), 10);  // wraps to hour 0
  EXPECT_EQ(s.at(static_cast<double>(s.end()) + kH), -5);
  EXPECT_EQ(s.at(kStart - 1), 20);  // the hour before the start is the last hour
  EXPECT_EQ(s.at(0), -5);           // two hours before the start: hour 1
}

TEST(HourlySeries, Constant) {
  const HourlySeries c = HourlySeries::constant(3600, 24, 7.5);
  EXPECT_EQ(c.hours(), 24u);
  EXPECT_EQ(c.start(), 3600);
  EXPECT_EQ(c.end(), 3600 + 24 * 3600);
  EXPECT_EQ(c.at(-1e7), 7.5);
  EXPECT_EQ(c.at(5e6), 7.5);
  // 7.5 × 1234.5 s, inside, across the end and before the start
  EXPECT_DOUBLE_EQ(c.integral(4000, 4000 + 1234.5), 7.5 * 1234.5);
  EXPECT_DOUBLE_EQ(c.integral(86000, 86000 + 1234.5), 7.5 * 1234.5);
  EXPECT_DOUBLE_EQ(c.integral(-10000, -10000 + 1234.5), 7.5 * 1234.5);
  // Ten days: 7.5 × 864000
  EXPECT_NEAR(c.integral(0, 864000), 6480000, 1e-6);
}

TEST(HourlySeries, IntegralIsAdditiveAndMatchesHourlySums) {
  const HourlySeries s = series();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> t(-20 * kH, 30 * kH);
  for (int i = 0; i < 200; ++i) {
    double a = t(rng), b = t(rng), c = t(rng);
    if (a > b) std::swap(a, b);
    if (b > c) std::swap(b, c);
    if (a > b) std::swap(a, b);
    EXPECT_NEAR(s.integral(a, b) + s.integral(b, c), s.integral(a, c), 1e-6);
    // A span inside one hour integrates to that hour's value × its length.
    const double h0 = std::floor(a / kH) * kH;
    const double x = h0 + 100, y = h0 + 3000;
    EXPECT_NEAR(s.integral(x, y), s.at(x) * (y - x), 1e-6);
  }
}

}  // namespace
}  // namespace frugal
