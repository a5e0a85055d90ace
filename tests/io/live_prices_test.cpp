// A live region's series on the real calendar (io/live_prices.h): the configured series where
// it covers an hour, the fallback or the same-hour-of-week mean beyond it, and time-of-use
// rules evaluated on real local dates (weekdays, holidays, DST) — never a wrapped series.

#include "io/live_prices.h"

#include <date/date.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/time_of_use.h"

namespace frugal {
namespace {

using namespace date::literals;  // NOLINT(google-build-using-namespace)

constexpr int64_t kH = 3600;
constexpr int64_t k2023 = 1672531200;  // 2023-01-01T00:00:00Z, a Sunday

int64_t utc(date::year_month_day ymd, int hour) {
  return static_cast<int64_t>(date::sys_days{ymd}.time_since_epoch().count()) * 86400 + hour * kH;
}

// A year of hourly prices from 2023-01-01T00Z: value = 1000 × (UTC weekday, Monday = 0) +
// UTC hour, so a same-hour-of-week mean in UTC is that number again.
HourlySeries weekly_prices(size_t hours = 8760) {
  std::vector<double> v(hours);
  for (size_t i = 0; i < hours; ++i) {
    const int64_t t = k2023 + static_cast<int64_t>(i) * kH;
    v[i] = hour_of_week("UTC", t) / 24 * 1000 + hour_of_week("UTC", t) % 24;
  }
  return HourlySeries(k2023, std::move(v));
}

Region region(const std::string& tz) {
  Region r;
  r.name = "here";
  r.timezone = tz;
  r.electricity_usd_per_mwh = weekly_prices();
  return r;
}

TEST(LivePrices, HourOfWeekIsMondayBasedInLocalTime) {
  // 2026-12-01 is a Tuesday: 19:00 UTC is Tuesday 11:00 in Los Angeles (PST, UTC-8).
  EXPECT_EQ(hour_of_week("UTC", utc(2026_y / 12 / 1, 19)), 24 + 19);
  EXPECT_EQ(hour_of_week("America/Los_Angeles", utc(2026_y / 12 / 1, 19)), 24 + 11);
  // 2026-12-07 00:00 UTC is Sunday 16:00 in Los Angeles.
  EXPECT_EQ(hour_of_week("America/Los_Angeles", utc(2026_y / 12 / 7, 0)), 6 * 24 + 16);
}

TEST(LivePrices, UncoveredHoursTakeTheSameHourOfWeekMean) {
  const Region r = region("UTC");
  // Tuesday 2026-12-01, 19:00 UTC: far past the 2023 series.
  const int64_t now = utc(2026_y / 12 / 1, 19);
  auto b = build_live_region(r, PriceFallback{}, now - 2 * kH, 48);
  ASSERT_TRUE(b.ok()) << b.error().message;
  const HourlySeries& p = b.value().electricity_usd_per_mwh;
  EXPECT_EQ(p.start(), now - 2 * kH);
  EXPECT_DOUBLE_EQ(p.at(static_cast<double>(now)), 1019);           // Tuesday 19:00
  EXPECT_DOUBLE_EQ(p.at(static_cast<double>(now + 5 * kH)), 2000);  // Wednesday 00:00
  // The old behaviour wrapped the series by its length: the same instant read 2023's
  // calendar, a different weekday.
  EXPECT_NE(r.electricity_usd_per_mwh.at(static_cast<double>(now)), 1019);
  EXPECT_EQ(price_source(r, PriceFallback{}, static_cast<double>(now)), PriceSource::kWeekMean);
  EXPECT_TRUE(series_stale(r, static_cast<double>(now)));
}

TEST(LivePrices, CoveredHoursKeepTheSeriesAndAreNotStale) {
  const Region r = region("UTC");
  const int64_t t = utc(2023_y / 6 / 14, 10);
  auto b = build_live_region(r, PriceFallback{}, t - 24 * kH, 48);
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(b.value().electricity_usd_per_mwh.at(static_cast<double>(t)),
                   r.electricity_usd_per_mwh.at(static_cast<double>(t)));
  EXPECT_EQ(price_source(r, PriceFallback{}, static_cast<double>(t)), PriceSource::kSeries);
  EXPECT_FALSE(series_stale(r, static_cast<double>(t)));
}

TEST(LivePrices, MeansUseLocalTimeAcrossDst) {
  // In Los Angeles the local hour of a UTC hour moves with DST; the mean is per local hour,
  // so every local Tuesday 11:00 averages the same UTC-hour numbers only within one offset.
  const Region r = region("America/Los_Angeles");
  auto means = hour_of_week_means(r.electricity_usd_per_mwh, r.timezone);
  ASSERT_TRUE(means.ok());
  // Local Tuesday 11:00 is 19:00 UTC in winter (PST) and 18:00 UTC in summer (PDT).
  const double tue11 = means.value()[24 + 11];
  EXPECT_GT(tue11, 1018);
  EXPECT_LT(tue11, 1019);
  // A live hour in winter and one in summer read that same local-hour mean.
  auto b = build_live_region(r, PriceFallback{}, utc(2026_y / 12 / 1, 0), 24 * 240);
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(
      b.value().electricity_usd_per_mwh.at(static_cast<double>(utc(2026_y / 12 / 1, 19))), tue11);
  EXPECT_DOUBLE_EQ(
      b.value().electricity_usd_per_mwh.at(static_cast<double>(utc(2027_y / 7 / 6, 18))), tue11);
}

TEST(LivePrices, FallbackFlatAndSeriesComeBeforeTheMean) {
  const Region r = region("UTC");
  const int64_t now = utc(2026_y / 12 / 1, 19);
  PriceFallback flat;
  flat.flat_usd_per_mwh = 123;
  auto b = build_live_region(r, flat, now, 24);
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(b.value().electricity_usd_per_mwh.at(static_cast<double>(now)), 123);
  EXPECT_EQ(price_source(r, flat, static_cast<double>(now)), PriceSource::kFallbackFlat);

  PriceFallback fed;
  fed.series = HourlySeries(now, std::vector<double>{7, 8, 9});  // three hours from now
  b = build_live_region(r, fed, now, 24);
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(b.value().electricity_usd_per_mwh.at(static_cast<double>(now + kH)), 8);
  EXPECT_EQ(price_source(r, fed, static_cast<double>(now + kH)), PriceSource::kFallbackSeries);
  // Past the fallback's hours: the mean again (Tuesday 22:00).
  EXPECT_DOUBLE_EQ(b.value().electricity_usd_per_mwh.at(static_cast<double>(now + 3 * kH)), 1022);
  EXPECT_EQ(price_source(r, fed, static_cast<double>(now + 3 * kH)), PriceSource::kWeekMean);
}

TEST(LivePrices, TimeOfUseUsesTheRealDate) {
  Region r = region("America/Los_Angeles");
  r.time_of_use.windows = {{22 * 60, 8 * 60}};
  r.time_of_use.weekends = true;
  r.time_of_use.holidays = {"2026-12-25"};
  r.time_of_use.discount = 0.3;
  auto off = offpeak_series(r.time_of_use, r.timezone, k2023, 8760);
  ASSERT_TRUE(off.ok());
  r.offpeak = std::move(off).value();
  const int64_t start = utc(2026_y / 11 / 30, 0);
  auto b = build_live_region(r, PriceFallback{}, start, 24 * 400);
  ASSERT_TRUE(b.ok());
  const HourlySeries& live = b.value().offpeak;
  const auto at = [&](int64_t t) { return live.at(static_cast<double>(t)) > 0.5; };
  // Tuesday 2026-12-01 18:00 local (02:00 UTC on the 2nd): peak. Wrapped onto 2023 this
  // instant fell on a weekend.
  EXPECT_FALSE(at(utc(2026_y / 12 / 2, 2)));
  EXPECT_TRUE(r.offpeak.at(static_cast<double>(utc(2026_y / 12 / 2, 2))) > 0.5);
  EXPECT_TRUE(at(utc(2026_y / 12 / 5, 20)));    // Saturday 12:00 local
  EXPECT_TRUE(at(utc(2026_y / 12 / 25, 20)));   // Friday, the holiday, 12:00 local
  EXPECT_FALSE(at(utc(2026_y / 12 / 24, 20)));  // the Thursday before, 12:00 local
  // 22:00 local is 06:00 UTC in winter and 05:00 UTC in summer.
  EXPECT_TRUE(at(utc(2026_y / 12 / 2, 6)));
  EXPECT_FALSE(at(utc(2026_y / 12 / 2, 5)));
  EXPECT_TRUE(at(utc(2027_y / 7 / 7, 5)));   // Wednesday 22:00 PDT
  EXPECT_FALSE(at(utc(2027_y / 7 / 7, 4)));  // Wednesday 21:00 PDT
}

TEST(LivePrices, RegionsWithoutSeriesStayFlat) {
  Region r;
  r.name = "flat";
  auto b = build_live_region(r, PriceFallback{}, k2023, 24);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b.value().electricity_usd_per_mwh.empty());
  EXPECT_TRUE(b.value().carbon_g_per_kwh.empty());
  EXPECT_TRUE(b.value().offpeak.empty());
  EXPECT_EQ(price_source(r, PriceFallback{}, 0), PriceSource::kFlat);
  EXPECT_FALSE(series_stale(r, 4e9));
}

TEST(LivePrices, ErrorsNameTheProblem) {
  Region r = region("Mars/Olympus");
  auto b = build_live_region(r, PriceFallback{}, k2023, 24);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("Mars/Olympus"), std::string::npos);
  b = build_live_region(region("UTC"), PriceFallback{}, k2023 + 1, 24);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("whole UTC hour"), std::string::npos);
}

}  // namespace
}  // namespace frugal
