// Time-of-use windows and the off-peak indicator series, over the system tz database.

#include "io/time_of_use.h"

#include <date/date.h>
#include <date/tz.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>

namespace frugal {
namespace {

using namespace date::literals;  // NOLINT(google-build-using-namespace)
using std::chrono::hours;

constexpr int64_t kTou2023 = 1672531200;  // 2023-01-01T00:00:00Z
constexpr size_t kYear = 8760;

// Unix seconds of a UTC date and hour.
int64_t tou_utc(date::year_month_day ymd, int hour) {
  return static_cast<int64_t>(date::sys_days{ymd}.time_since_epoch().count()) * 86400 + hour * 3600;
}

// Index of that UTC hour in a series starting at 2023-01-01T00Z.
size_t idx(date::year_month_day ymd, int hour) {
  return static_cast<size_t>((tou_utc(ymd, hour) - kTou2023) / 3600);
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Sum of the indicator over UTC hours [from, to).
double off_hours(const HourlySeries& s, size_t from, size_t to) {
  return std::accumulate(s.values().begin() + static_cast<std::ptrdiff_t>(from),
                         s.values().begin() + static_cast<std::ptrdiff_t>(to), 0.0);
}

TimeOfUse night(bool weekends) {
  TimeOfUse t;
  t.windows = {{22 * 60, 8 * 60}};
  t.weekends = weekends;
  t.discount = 0.3;
  return t;
}

TEST(TzDatabase, UsesTheSystemTzdataWithRealDstRules) {
  static_assert(USE_OS_TZDB, "date-tz must read /usr/share/zoneinfo, not download a database");
  const date::tzdb& db = date::get_tzdb();
  // The OS-database build reads the version from /usr/share/zoneinfo/+VERSION, which
  // Debian's tzdata does not ship ("unknown"); when present it must match tzdata.zi.
  std::ifstream zi("/usr/share/zoneinfo/tzdata.zi");
  std::string first;
  if (db.version != "unknown" && std::getline(zi, first) && first.rfind("# version ", 0) == 0) {
    EXPECT_EQ(db.version, first.substr(10));
  }

  const date::time_zone* la = date::locate_zone("America/Los_Angeles");
  // Spring forward: 2023-03-12 02:00 local does not exist; fall back: 01:00 on Nov 5 twice.
  EXPECT_EQ(la->get_info(date::local_days{2023_y / date::March / 12} + hours{2}).result,
            date::local_info::nonexistent);
  EXPECT_EQ(la->get_info(date::local_days{2023_y / date::November / 5} + hours{1}).result,
            date::local_info::ambiguous);
  EXPECT_EQ(la->get_info(date::local_days{2023_y / date::July / 1} + hours{12}).result,
            date::local_info::unique);
}

TEST(TimeOfUse, ParsesWindows) {
  auto w = parse_window("22:00-08:00");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w.value(), (std::pair<int, int>{1320, 480}));
  w = parse_window(" 9:30 - 17:00 ");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w.value(), (std::pair<int, int>{570, 1020}));
  w = parse_window("00:00-24:00");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w.value(), (std::pair<int, int>{0, 1440}));
}

TEST(TimeOfUse, RejectsBadWindows) {
  for (const char* bad :
       {"25:00-01:00", "abc", "", "22:00", "22:00-08:60", "12:00-12:00", "24:00-08:00",
        "22:00-08:00-09:00", "-1:00-02:00", "22:0-08:00", "2200-0800", "22:00-"}) {
    SCOPED_TRACE(bad);
    auto w = parse_window(bad);
    ASSERT_FALSE(w.ok());
    EXPECT_TRUE(contains(w.error().message, "time-of-use window")) << w.error().message;
  }
}

TEST(TimeOfUse, ValidTimezone) {
  EXPECT_TRUE(valid_timezone("America/Los_Angeles"));
  EXPECT_TRUE(valid_timezone("Europe/Berlin"));
  EXPECT_TRUE(valid_timezone("UTC"));
  EXPECT_FALSE(valid_timezone("Mars/Olympus_Mons"));
  EXPECT_FALSE(valid_timezone(""));
  EXPECT_FALSE(valid_timezone("PST8PDT-ish"));
}

TEST(TimeOfUse, LosAngelesNightsAndWeekends2023) {
  auto r = offpeak_series(night(true), "America/Los_Angeles", kTou2023, kYear);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const HourlySeries& s = r.value();
  ASSERT_EQ(s.hours(), kYear);
  EXPECT_EQ(s.start(), kTou2023);
  const auto& v = s.values();
  // Tuesday 2023-01-03 06:00Z = Monday 22:00 PST: off-peak.
  EXPECT_EQ(v[idx(2023_y / 1 / 3, 6)], 1.0);
  EXPECT_EQ(v[idx(2023_y / 1 / 3, 5)], 0.0);   // Monday 21:00 PST
  EXPECT_EQ(v[idx(2023_y / 1 / 3, 15)], 1.0);  // Tuesday 07:00 PST
  EXPECT_EQ(v[idx(2023_y / 1 / 3, 16)], 0.0);  // Tuesday 08:00 PST: the window has ended
  EXPECT_EQ(v[idx(2023_y / 1 / 3, 20)], 0.0);  // Tuesday 12:00 PST: peak
  EXPECT_EQ(s.at(static_cast<double>(tou_utc(2023_y / 1 / 3, 20)) + 1800), 0.0);
  // Friday noon is peak; Saturday and Sunday noon are off-peak (weekends).
  EXPECT_EQ(v[idx(2023_y / 1 / 6, 20)], 0.0);
  EXPECT_EQ(v[idx(2023_y / 1 / 7, 20)], 1.0);
  EXPECT_EQ(v[idx(2023_y / 1 / 8, 20)], 1.0);
  EXPECT_EQ(v[idx(2023_y / 1 / 9, 20)], 0.0);
  // The weekend is the local one: 2023-01-07 00:00Z is already Saturday in UTC but still
  // Friday 16:00 PST, so it is peak; the local Saturday begins at 08:00Z.
  EXPECT_EQ(v[idx(2023_y / 1 / 7, 0)], 0.0);
  // Monday 2023-01-09 07:00Z is Sunday 23:00 PST: weekend and window both.
  EXPECT_EQ(v[idx(2023_y / 1 / 9, 7)], 1.0);
  // A summer weekday under PDT (UTC-7): 22:00 PDT = 05:00Z, 08:00 PDT = 15:00Z.
  EXPECT_EQ(v[idx(2023_y / 7 / 12, 4)], 0.0);
  EXPECT_EQ(v[idx(2023_y / 7 / 12, 5)], 1.0);
  EXPECT_EQ(v[idx(2023_y / 7 / 12, 14)], 1.0);
  EXPECT_EQ(v[idx(2023_y / 7 / 12, 15)], 0.0);
}

TEST(TimeOfUse, WeekendsDisabledMeansSaturdayNoonIsPeak) {
  auto r = offpeak_series(night(false), "America/Los_Angeles", kTou2023, kYear);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().values()[idx(2023_y / 1 / 7, 20)], 0.0);
  EXPECT_EQ(r.value().values()[idx(2023_y / 1 / 7, 6)], 1.0);  // Friday 22:00 PST
}

TEST(TimeOfUse, DaylightSavingDaysHaveTwentyThreeAndTwentyFiveHours) {
  auto r = offpeak_series(night(false), "America/Los_Angeles", kTou2023, kYear);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const HourlySeries& s = r.value();
  const auto& v = s.values();
  // An ordinary day: local 2023-03-08 = [08:00Z Mar 8, 08:00Z Mar 9), 10 off-peak hours.
  EXPECT_EQ(off_hours(s, idx(2023_y / 3 / 8, 8), idx(2023_y / 3 / 9, 8)), 10.0);
  // Spring forward, Sunday 2023-03-12: the local day is [08:00Z, 07:00Z next day), 23 hours;
  // 02:00 local is skipped, so the morning window holds 00, 01, 03..07 = 7 hours, + 22, 23.
  EXPECT_EQ(off_hours(s, idx(2023_y / 3 / 12, 8), idx(2023_y / 3 / 13, 7)), 9.0);
  EXPECT_EQ(v[idx(2023_y / 3 / 11, 15)], 1.0);  // Sat 07:00 PST
  EXPECT_EQ(v[idx(2023_y / 3 / 11, 16)], 0.0);  // Sat 08:00 PST
  EXPECT_EQ(v[idx(2023_y / 3 / 12, 14)], 1.0);  // Sun 07:00 PDT
  EXPECT_EQ(v[idx(2023_y / 3 / 12, 15)], 0.0);  // Sun 08:00 PDT: an hour earlier in UTC
  EXPECT_EQ(v[idx(2023_y / 3 / 13, 4)], 0.0);   // Sun 21:00 PDT
  EXPECT_EQ(v[idx(2023_y / 3 / 13, 5)], 1.0);   // Sun 22:00 PDT
  // Fall back, Sunday 2023-11-05: [07:00Z, 08:00Z next day), 25 hours; 01:00 local happens
  // twice (08:00Z PDT and 09:00Z PST), both off-peak: 00, 01, 01, 02..07 = 9, + 22, 23.
  EXPECT_EQ(off_hours(s, idx(2023_y / 11 / 5, 7), idx(2023_y / 11 / 6, 8)), 11.0);
  EXPECT_EQ(v[idx(2023_y / 11 / 5, 8)], 1.0);
  EXPECT_EQ(v[idx(2023_y / 11 / 5, 9)], 1.0);
  EXPECT_EQ(v[idx(2023_y / 11 / 5, 15)], 1.0);  // 07:00 PST
  EXPECT_EQ(v[idx(2023_y / 11 / 5, 16)], 0.0);  // 08:00 PST
  // Whole series: local 2022-12-31 16:00 to 2023-12-31 16:00 = 2 + 364 × 10 - 1 + 1 + 8.
  EXPECT_EQ(off_hours(s, 0, kYear), 3650.0);
}

TEST(TimeOfUse, HolidaysAreWholeLocalDays) {
  TimeOfUse t;
  t.holidays = {"2023-07-04", "2023-12-25"};
  t.discount = 0.5;
  auto r = offpeak_series(t, "America/Los_Angeles", kTou2023, kYear);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const HourlySeries& s = r.value();
  // No windows, no weekends: only the holidays' 2 × 24 local hours are off-peak.
  EXPECT_EQ(off_hours(s, 0, kYear), 48.0);
  // 2023-07-04 local (PDT) = [07:00Z Jul 4, 07:00Z Jul 5).
  EXPECT_EQ(off_hours(s, idx(2023_y / 7 / 4, 7), idx(2023_y / 7 / 5, 7)), 24.0);
  EXPECT_EQ(s.values()[idx(2023_y / 7 / 4, 6)], 0.0);
  EXPECT_EQ(s.values()[idx(2023_y / 7 / 5, 7)], 0.0);
  // 2023-12-25 local (PST) = [08:00Z Dec 25, 08:00Z Dec 26).
  EXPECT_EQ(off_hours(s, idx(2023_y / 12 / 25, 8), idx(2023_y / 12 / 26, 8)), 24.0);
}

TEST(TimeOfUse, HalfHourOffsetZonesUseTheLocalStartOfEachUtcHour) {
  TimeOfUse t;
  t.windows = {{22 * 60, 8 * 60}};
  auto r = offpeak_series(t, "Asia/Kolkata", kTou2023, 24 * 7);  // UTC+05:30
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& v = r.value().values();
  EXPECT_EQ(v[idx(2023_y / 1 / 3, 16)], 0.0);  // 21:30 IST
  EXPECT_EQ(v[idx(2023_y / 1 / 3, 17)], 1.0);  // 22:30 IST
  EXPECT_EQ(v[idx(2023_y / 1 / 4, 2)], 1.0);   // 07:30 IST
  EXPECT_EQ(v[idx(2023_y / 1 / 4, 3)], 0.0);   // 08:30 IST
}

TEST(TimeOfUse, Errors) {
  auto unknown = offpeak_series(night(true), "Mars/Olympus_Mons", kTou2023, 24);
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(contains(unknown.error().message, "'Mars/Olympus_Mons'")) << unknown.error().message;

  TimeOfUse bad_holiday = night(false);
  for (const char* h : {"2023-02-30", "July 4", "2023-7-4"}) {
    SCOPED_TRACE(h);
    bad_holiday.holidays = {h};
    auto r = offpeak_series(bad_holiday, "UTC", kTou2023, 24);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, h)) << r.error().message;
  }

  auto not_whole = offpeak_series(night(false), "UTC", kTou2023 + 60, 24);
  EXPECT_FALSE(not_whole.ok());

  TimeOfUse bad_window;
  bad_window.windows = {{1500, 60}};
  EXPECT_FALSE(offpeak_series(bad_window, "UTC", kTou2023, 24).ok());
}

TEST(TimeOfUse, UtcScheduleAndEmptySeries) {
  auto r = offpeak_series(night(false), "UTC", kTou2023, 24);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(off_hours(r.value(), 0, 24), 10.0);
  EXPECT_EQ(r.value().values()[8], 0.0);
  EXPECT_EQ(r.value().values()[7], 1.0);
  auto empty = offpeak_series(night(false), "UTC", kTou2023, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().empty());
}

}  // namespace
}  // namespace frugal
