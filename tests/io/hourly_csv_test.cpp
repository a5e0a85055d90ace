// Hourly price and carbon series: the bundled 2023 files, every year in ../shared/data,
// broken copies, and HourlySeries integrals over real data.

#include "io/hourly_csv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <string>

#include "reader_test_util.h"

namespace frugal {
namespace {

using ::frugal::testing::copy_with_line;
using ::frugal::testing::shared_data;
using ::frugal::testing::TempDir;

constexpr int64_t k2023 = 1672531200;  // 2023-01-01T00:00:00Z

std::filesystem::path bundled(const std::string& kind, const std::string& zone) {
  return std::filesystem::path(FRUGAL_SOURCE_DIR) / "data" / kind / zone / "2023.csv";
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(HourlyCsv, BundledCaisoPricesLoadAYearOfHours) {
  auto s = read_price_csv(bundled("prices", "US-CAL-CISO").string());
  ASSERT_TRUE(s.ok()) << s.error().message;
  const HourlySeries& p = s.value();
  EXPECT_EQ(p.hours(), 8760u);
  EXPECT_EQ(p.start(), k2023);
  EXPECT_EQ(p.end(), k2023 + 8760 * 3600);
  EXPECT_DOUBLE_EQ(p.values()[0], 114.9452);
  EXPECT_DOUBLE_EQ(p.values()[1], 118.831175);
  // File line 100: 2023-01-05 02:00:00+00:00 (hour 98 of the year).
  EXPECT_DOUBLE_EQ(p.values()[98], 211.612545);
  EXPECT_DOUBLE_EQ(p.at(static_cast<double>(k2023 + 98 * 3600 + 1800)), 211.612545);
  EXPECT_DOUBLE_EQ(p.values().back(), 41.165224999999985);
  // CAISO has negative hours in 2023; they are kept, not clamped.
  const auto negative =
      std::count_if(p.values().begin(), p.values().end(), [](double v) { return v < 0; });
  EXPECT_EQ(negative, 149);
}

TEST(HourlyCsv, BundledErcotPricesAndCarbonLoad) {
  auto ercot = read_price_csv(bundled("prices", "US-TEX-ERCO").string());
  ASSERT_TRUE(ercot.ok()) << ercot.error().message;
  EXPECT_EQ(ercot.value().hours(), 8760u);
  EXPECT_EQ(ercot.value().start(), k2023);
  EXPECT_DOUBLE_EQ(ercot.value().values()[0], 10.42);
  EXPECT_DOUBLE_EQ(ercot.value().values().back(), 27.709999999999827);

  auto caiso_c = read_carbon_csv(bundled("carbon", "US-CAL-CISO").string());
  ASSERT_TRUE(caiso_c.ok()) << caiso_c.error().message;
  EXPECT_EQ(caiso_c.value().hours(), 8760u);
  EXPECT_EQ(caiso_c.value().start(), k2023);
  EXPECT_DOUBLE_EQ(caiso_c.value().values()[0], 238.69);  // direct, not LCA (309.75)
  EXPECT_DOUBLE_EQ(caiso_c.value().values()[1], 220.25);
  EXPECT_DOUBLE_EQ(caiso_c.value().values().back(), 243.22);

  auto ercot_c = read_carbon_csv(bundled("carbon", "US-TEX-ERCO").string());
  ASSERT_TRUE(ercot_c.ok()) << ercot_c.error().message;
  EXPECT_EQ(ercot_c.value().hours(), 8760u);
  EXPECT_DOUBLE_EQ(ercot_c.value().values()[0], 269.79);
  EXPECT_DOUBLE_EQ(ercot_c.value().values().back(), 362.86);
}

TEST(HourlyCsv, EveryPriceZoneAndYearInSharedDataLoads) {
  FRUGAL_REQUIRE_SHARED_DATA();
  const char* zones[] = {"US-CAL-CISO", "US-TEX-ERCO", "US-MIDA-PJM", "US-NY-NYIS",
                         "DE-LU",       "FR",          "NL"};
  const int64_t year_start[] = {1609459200, 1640995200, 1672531200};  // 2021, 2022, 2023
  for (const char* zone : zones) {
    for (int y = 0; y < 3; ++y) {
      const auto path = shared_data() / "prices" / zone / (std::to_string(2021 + y) + ".csv");
      SCOPED_TRACE(path.string());
      auto s = read_price_csv(path.string());
      ASSERT_TRUE(s.ok()) << s.error().message;
      EXPECT_EQ(s.value().hours(), 8760u);  // 2021-2023: no leap year
      EXPECT_EQ(s.value().start(), year_start[y]);
    }
  }
}

TEST(HourlyCsv, EveryCarbonZoneAndYearInSharedDataLoads) {
  FRUGAL_REQUIRE_SHARED_DATA();
  const char* zones[] = {"US-CAL-CISO", "US-TEX-ERCO", "US-MIDA-PJM", "US-NY-NYIS", "DE-LU", "GB"};
  const int64_t year_start[] = {1609459200, 1640995200, 1672531200};
  for (const char* zone : zones) {
    for (int y = 0; y < 3; ++y) {
      const auto path = shared_data() / "carbon" / zone / (std::to_string(2021 + y) + ".csv");
      SCOPED_TRACE(path.string());
      auto s = read_carbon_csv(path.string());
      ASSERT_TRUE(s.ok()) << s.error().message;
      EXPECT_EQ(s.value().hours(), 8760u);
      EXPECT_EQ(s.value().start(), year_start[y]);
    }
  }
}

TEST(HourlyCsv, NonNumericPriceNamesTheLineAndColumn) {
  TempDir dir;
  const auto path = copy_with_line(dir, bundled("prices", "US-CAL-CISO"), "2023.csv", 100,
                                   "2023-01-05 02:00:00+00:00,2023-01-04 18:00:00-08:00,abc");
  auto s = read_price_csv(path);
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_TRUE(contains(m, "2023.csv:100: column 'Price (USD/MWh)'")) << m;
  EXPECT_TRUE(contains(m, "'abc'")) << m;
}

TEST(HourlyCsv, PricesParseFromTextNamingTheirOrigin) {
  const std::string head = "Datetime (UTC),Price (USD/MWh)\n";
  auto s = parse_price_csv(head + "2026-12-01 19:00:00Z,50\n2026-12-01 20:00:00Z,60.5\n", "cmd");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s.value().start(), 1796151600);
  EXPECT_EQ(s.value().hours(), 2u);
  EXPECT_DOUBLE_EQ(s.value().at(1796151600 + 3600), 60.5);
  s = parse_price_csv(head + "2026-12-01 19:00:00Z,50\n2026-12-01 21:00:00Z,1\n", "cmd");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.error().message, "cmd:3: column 'Datetime (UTC)'")) << s.error().message;
  s = parse_price_csv("", "cmd");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.error().message, "cmd")) << s.error().message;
}

TEST(HourlyCsv, NanAndEmptyValuesAreErrors) {
  TempDir dir;
  for (const std::string v : {"nan", "NaN", "", "inf", "1e999"}) {
    SCOPED_TRACE(v);
    const auto path = copy_with_line(dir, bundled("prices", "US-CAL-CISO"), "2023.csv", 7,
                                     "2023-01-01 05:00:00+00:00,x," + v);
    auto s = read_price_csv(path);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(contains(s.error().message, "2023.csv:7: column 'Price (USD/MWh)'"))
        << s.error().message;
  }
}

// A price or intensity past any market's cap is an error naming the line (1.7e308 USD/MWh
// A carbon series of one hour (Electricity Maps layout) with `value` as its intensity, read
// back from c.csv.
Result<HourlySeries> one_hour_of_carbon(TempDir& dir, const std::string& value) {
  return read_carbon_csv(dir.write("c.csv",
                                   "Datetime (UTC),Carbon Intensity gCO\xE2\x82\x82"
                                   "eq/kWh (direct)\n"
                                   "2023-06-01 00:00:00," +
                                       value + "\n"));
}

// made a run's energy cost NaN, and 1e300 a 300-digit total, with exit status 0).
TEST(HourlyCsv, HugeValuesAreErrors) {
  TempDir dir;
  for (const std::string v : {"1.7e308", "1e300", "-100001", "100001"}) {
    SCOPED_TRACE(v);
    const auto path = copy_with_line(dir, bundled("prices", "US-CAL-CISO"), "2023.csv", 7,
                                     "2023-01-01 05:00:00+00:00,x," + v);
    auto s = read_price_csv(path);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(contains(s.error().message,
                         "2023.csv:7: column 'Price (USD/MWh)': must be in "
                         "[-100000, 100000] USD/MWh, got '" +
                             v + "'"))
        << s.error().message;
  }
  const auto at_cap = dir.write("cap.csv",
                                "Datetime (UTC),Datetime (Local),Price (USD/MWh)\n"
                                "2023-06-01 00:00:00+00:00,x,100000\n"
                                "2023-06-01 01:00:00+00:00,x,-100000\n");
  EXPECT_TRUE(read_price_csv(at_cap).ok());
  auto cs = one_hour_of_carbon(dir, "5001");
  ASSERT_FALSE(cs.ok());
  EXPECT_TRUE(contains(cs.error().message, "c.csv:2: column 'Carbon Intensity"))
      << cs.error().message;
  EXPECT_TRUE(contains(cs.error().message, "must be in [0, 5000] g/kWh")) << cs.error().message;
}

TEST(HourlyCsv, NegativePricesAreValidNegativeCarbonIsNot) {
  TempDir dir;
  const auto p = dir.write("p.csv",
                           "Datetime (UTC),Datetime (Local),Price (USD/MWh)\n"
                           "2023-06-01 00:00:00+00:00,x,-12.5\n"
                           "2023-06-01 01:00:00+00:00,x,+3\n");
  auto s = read_price_csv(p);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s.value().start(), 1685577600);
  EXPECT_DOUBLE_EQ(s.value().values()[0], -12.5);
  EXPECT_DOUBLE_EQ(s.value().values()[1], 3.0);

  auto cs = one_hour_of_carbon(dir, "-1");
  ASSERT_FALSE(cs.ok());
  EXPECT_TRUE(contains(cs.error().message, "c.csv:2: column 'Carbon Intensity"))
      << cs.error().message;
}

TEST(HourlyCsv, MissingHourIsAGapNamingTheNextLine) {
  TempDir dir;
  // A blank line is skipped, so line 100 (02:00) disappears; line 101 (03:00) follows 01:00.
  const auto path = copy_with_line(dir, bundled("prices", "US-CAL-CISO"), "2023.csv", 100, "");
  auto s = read_price_csv(path);
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_TRUE(contains(m, "2023.csv:101: column 'Datetime (UTC)'")) << m;
  EXPECT_TRUE(contains(m, "gap: 1 hour(s) missing")) << m;
}

TEST(HourlyCsv, DuplicateAndBackwardsHoursAreErrors) {
  TempDir dir;
  const auto dup = copy_with_line(dir, bundled("prices", "US-CAL-CISO"), "dup.csv", 100,
                                  "2023-01-05 01:00:00+00:00,x,1.0");
  auto s = read_price_csv(dup);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.error().message, "dup.csv:100:")) << s.error().message;
  EXPECT_TRUE(contains(s.error().message, "duplicate hour 2023-01-05 01:00:00Z"))
      << s.error().message;

  const auto back = copy_with_line(dir, bundled("carbon", "US-CAL-CISO"), "back.csv", 50,
                                   "2023-01-01 00:00:00,USA,CAISO,US-CAL-CISO,1,1,1,1,x,false,");
  auto c = read_carbon_csv(back);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(contains(c.error().message, "back.csv:50:")) << c.error().message;
}

TEST(HourlyCsv, BadTimestampsAreErrors) {
  TempDir dir;
  for (const std::string t : {"2023-01-05 01:30:00+00:00", "2023-01-05 02:00:00-08:00",
                              "2023-02-30 02:00:00", "05/01/2023 02:00", "2023-01-05"}) {
    SCOPED_TRACE(t);
    const auto path =
        copy_with_line(dir, bundled("prices", "US-CAL-CISO"), "2023.csv", 100, t + ",x,1.0");
    auto s = read_price_csv(path);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(contains(s.error().message, "2023.csv:100: column 'Datetime (UTC)'"))
        << s.error().message;
  }
}

TEST(HourlyCsv, GarbageHeaderEmptyFileAndHeaderOnly) {
  TempDir dir;
  const auto garbage =
      copy_with_line(dir, bundled("prices", "US-CAL-CISO"), "g.csv", 1, "foo,bar,baz");
  auto g = read_price_csv(garbage);
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(contains(g.error().message, "g.csv:1: column 'Datetime (UTC)': not found"))
      << g.error().message;

  // A price file is not a carbon file: the direct intensity column is missing.
  auto wrong = read_carbon_csv(bundled("prices", "US-CAL-CISO").string());
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(contains(wrong.error().message, ":1: column 'Carbon Intensity"))
      << wrong.error().message;

  auto empty = read_price_csv(dir.write("e.csv", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(contains(empty.error().message, "e.csv: empty file")) << empty.error().message;

  auto header_only = read_price_csv(dir.write("h.csv", "Datetime (UTC),Price (USD/MWh)\n"));
  ASSERT_FALSE(header_only.ok());
  EXPECT_TRUE(contains(header_only.error().message, "no data rows")) << header_only.error().message;

  auto missing = read_price_csv((dir.path() / "nope.csv").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(contains(missing.error().message, "nope.csv")) << missing.error().message;
}

TEST(HourlyCsv, ShortRowIsAnError) {
  TempDir dir;
  const auto path = copy_with_line(dir, bundled("prices", "US-CAL-CISO"), "2023.csv", 10,
                                   "2023-01-01 08:00:00+00:00");
  auto s = read_price_csv(path);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.error().message, "2023.csv:10: expected at least 3 fields"))
      << s.error().message;
}

TEST(HourlySeriesRealData, YearIntegralEqualsSumAndYearEndWraps) {
  auto s = read_price_csv(bundled("prices", "US-CAL-CISO").string());
  ASSERT_TRUE(s.ok()) << s.error().message;
  const HourlySeries& p = s.value();
  const double t0 = static_cast<double>(p.start());
  const double t1 = static_cast<double>(p.end());
  const double sum = std::accumulate(p.values().begin(), p.values().end(), 0.0);
  EXPECT_NEAR(p.integral(t0, t1) / 3600.0, sum, 1e-9 * std::abs(sum));
  EXPECT_FALSE(p.wraps(t0, t1));

  // Two hours either side of the year's end: Dec 31 22:00, 23:00, then Jan 1 00:00, 01:00.
  const auto& v = p.values();
  const double across = p.integral(t1 - 7200, t1 + 7200);
  EXPECT_NEAR(across / 3600.0, v[8758] + v[8759] + v[0] + v[1], 1e-6);
  EXPECT_TRUE(p.wraps(t1 - 7200, t1 + 7200));
  EXPECT_DOUBLE_EQ(p.at(t1 + 1800), v[0]);  // 2024-01-01 00:30 reads 2023-01-01 00:00
  EXPECT_DOUBLE_EQ(p.at(t0 - 1800), v[8759]);

  // A whole-year span starting mid-year also equals the sum (it wraps once).
  const double mid = t0 + 180 * 86400.0;
  EXPECT_NEAR(p.integral(mid, mid + (t1 - t0)) / 3600.0, sum, 1e-9 * std::abs(sum));
  EXPECT_TRUE(p.wraps(mid, mid + (t1 - t0)));

  // A partial hour: half of hour 98.
  EXPECT_NEAR(p.integral(t0 + 98 * 3600, t0 + 98 * 3600 + 1800), v[98] * 1800, 1e-6);
}

}  // namespace
}  // namespace frugal
