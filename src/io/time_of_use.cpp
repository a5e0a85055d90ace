#include "io/time_of_use.h"

#include <date/date.h>
#include <date/tz.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <vector>

namespace frugal {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int to_int(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// "H:MM" or "HH:MM" → minutes of the day; "24:00" only when `end`.
std::optional<int> parse_clock(std::string_view s, bool end) {
  s = trim(s);
  const size_t colon = s.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view hh = s.substr(0, colon);
  const std::string_view mm = s.substr(colon + 1);
  if (!all_digits(hh) || hh.size() > 2 || !all_digits(mm) || mm.size() != 2) return std::nullopt;
  const int h = to_int(hh);
  const int m = to_int(mm);
  if (m > 59) return std::nullopt;
  if (h == 24 && m == 0 && end) return 24 * 60;
  if (h > 23) return std::nullopt;
  return h * 60 + m;
}

// "YYYY-MM-DD" → a local calendar day.
std::optional<date::local_days> parse_day(std::string_view s) {
  s = trim(s);
  if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !all_digits(s.substr(0, 4)) ||
      !all_digits(s.substr(5, 2)) || !all_digits(s.substr(8, 2)))
    return std::nullopt;
  const date::year_month_day ymd{date::year{to_int(s.substr(0, 4))},
                                 date::month{static_cast<unsigned>(to_int(s.substr(5, 2)))},
                                 date::day{static_cast<unsigned>(to_int(s.substr(8, 2)))}};
  if (!ymd.ok()) return std::nullopt;
  return date::local_days{ymd};
}

bool in_window(const std::pair<int, int>& w, int minute) {
  if (w.first < w.second) return minute >= w.first && minute < w.second;
  return minute >= w.first || minute < w.second;  // wraps midnight
}

const date::time_zone* find_zone(const std::string& tz) {
  try {
    return date::locate_zone(tz);
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

Result<std::pair<int, int>> parse_window(std::string_view text) {
  const std::string_view s = trim(text);
  const auto bad = [&](std::string_view why) {
    return Error{
        fmt::format("time-of-use window '{}': {} (expected 'HH:MM-HH:MM', e.g. "
                    "'22:00-08:00')",
                    text, why)};
  };
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos) return bad("no '-' between start and end");
  const auto start = parse_clock(s.substr(0, dash), /*end=*/false);
  if (!start) return bad("bad start time");
  const auto end = parse_clock(s.substr(dash + 1), /*end=*/true);
  if (!end) return bad("bad end time");
  if (*start == *end) return bad("start equals end (empty or ambiguous window)");
  return std::pair<int, int>{*start, *end};
}

bool valid_timezone(const std::string& tz) {
  return find_zone(tz) != nullptr;
}

Result<HourlySeries> offpeak_series(const TimeOfUse& tou, const std::string& tz,
                                    int64_t start_unix_s, size_t hours) {
  if (start_unix_s % 3600 != 0)
    return Error{fmt::format("off-peak series: start {} is not a whole UTC hour", start_unix_s)};
  const date::time_zone* zone = find_zone(tz);
  if (zone == nullptr)
    return Error{
        fmt::format("time zone '{}': not in the tz database (use an IANA name such "
                    "as 'America/Los_Angeles' or 'UTC')",
                    tz)};
  for (const auto& w : tou.windows) {
    if (w.first < 0 || w.first >= 24 * 60 || w.second < 0 || w.second > 24 * 60 ||
        w.first == w.second)
      return Error{fmt::format("time-of-use window [{}, {}) minutes: out of range or empty",
                               w.first, w.second)};
  }
  std::vector<date::local_days> holidays;
  for (const auto& h : tou.holidays) {
    const auto d = parse_day(h);
    if (!d) return Error{fmt::format("time-of-use holiday '{}': not a valid date YYYY-MM-DD", h)};
    holidays.push_back(*d);
  }
  std::sort(holidays.begin(), holidays.end());

  std::vector<double> values(hours, 0.0);
  for (size_t i = 0; i < hours; ++i) {
    const date::sys_seconds t{std::chrono::seconds{start_unix_s + 3600 * static_cast<int64_t>(i)}};
    const date::local_seconds local = zone->to_local(t);
    const date::local_days day = date::floor<date::days>(local);
    const int minute =
        static_cast<int>(std::chrono::duration_cast<std::chrono::minutes>(local - day).count());
    bool off = false;
    if (tou.weekends) {
      const date::weekday wd{day};
      off = wd == date::Saturday || wd == date::Sunday;
    }
    if (!off) off = std::binary_search(holidays.begin(), holidays.end(), day);
    if (!off)
      off = std::any_of(tou.windows.begin(), tou.windows.end(),
                        [&](const auto& w) { return in_window(w, minute); });
    values[i] = off ? 1.0 : 0.0;
  }
  return HourlySeries(start_unix_s, std::move(values));
}

}  // namespace frugal
