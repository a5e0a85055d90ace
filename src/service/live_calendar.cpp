#include "service/live_calendar.h"

#include <date/date.h>
#include <date/tz.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

namespace frugal {
namespace {

constexpr int64_t kHour = 3600;
constexpr int64_t kDay = 86400;
constexpr int64_t kAhead = 400 * kDay;     // the window reaches this far past now ...
constexpr int64_t kExtendAt = 370 * kDay;  // ... and is extended when less than this is left
constexpr int64_t kBehind = 7 * kDay;      // margin before the oldest time priced

int64_t floor_hour(double t) {
  return static_cast<int64_t>(std::floor(t / kHour)) * kHour;
}

std::string utc_stamp(int64_t t) {
  return date::format("%Y-%m-%dT%H:%M:%SZ", date::sys_seconds{std::chrono::seconds{t}});
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

}  // namespace

LiveCalendar::LiveCalendar(std::vector<Region> configured, PriceFallbackConfig fallback,
                           std::function<void(const std::string&)> log)
    : configured_(std::move(configured)), feed_(std::move(fallback), log), log_(std::move(log)) {}

void LiveCalendar::start() {
  feed_.start();
}

Result<bool> LiveCalendar::update(double now, double earliest, std::vector<Region>& regions) {
  const int64_t needed_start = floor_hour(std::min(now, earliest)) - kBehind;
  const bool first = window_end_ == 0;
  const bool extend = static_cast<double>(window_end_) - now < static_cast<double>(kExtendAt);
  const bool older = needed_start < window_start_;
  const bool fed = feed_.version() != feed_version_;
  if (!first && !extend && !older && !fed) return false;
  const uint64_t version = feed_.version();
  PriceFeed::Snapshot snap = feed_.snapshot();
  const int64_t start = first || older ? needed_start : window_start_;
  const int64_t end = floor_hour(now) + kAhead;
  const auto hours = static_cast<size_t>((end - start) / kHour);
  std::vector<LiveRegionSeries> built;
  for (const Region& r : configured_) {
    auto b = build_live_region(r, snap.fallback, start, hours);
    if (!b.ok()) return Error{fmt::format("region '{}': {}", r.name, b.error().message)};
    built.push_back(std::move(b).value());
  }
  for (size_t i = 0; i < regions.size() && i < built.size(); ++i) {
    regions[i].electricity_usd_per_mwh = std::move(built[i].electricity_usd_per_mwh);
    regions[i].carbon_g_per_kwh = std::move(built[i].carbon_g_per_kwh);
    regions[i].offpeak = std::move(built[i].offpeak);
  }
  window_start_ = start;
  window_end_ = end;
  feed_version_ = version;
  fallback_ = std::move(snap);
  return true;
}

std::vector<std::pair<std::string, std::string>> LiveCalendar::stale(double now) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Region& r : configured_) {
    if (!series_stale(r, now)) continue;
    std::string msg = fmt::format("region '{}':", r.name);
    const HourlySeries& p = r.electricity_usd_per_mwh;
    const PriceSource src = price_source(r, fallback_.fallback, now);
    if (src != PriceSource::kSeries && src != PriceSource::kFlat) {
      msg += fmt::format(" the price series covers {} to {}; the current hour is priced ",
                         utc_stamp(p.start()), utc_stamp(p.end()));
      if (src == PriceSource::kWeekMean)
        msg += "at the series' mean for the same hour of the week";
      else
        msg += "by the price_fallback (" + fallback_.what + ")";
      if (!fallback_.error.empty()) msg += "; the last fallback fetch failed: " + fallback_.error;
      msg += ".";
    }
    const HourlySeries& c = r.carbon_g_per_kwh;
    if (!c.empty() && !series_covers(c, now))
      msg += fmt::format(
          " The carbon series covers {} to {}; the current hour uses its same-hour-of-week "
          "mean.",
          utc_stamp(c.start()), utc_stamp(c.end()));
    out.emplace_back(r.name, msg);
  }
  return out;
}

nlohmann::json LiveCalendar::status_json(double now, const std::vector<Region>& regions) const {
  nlohmann::json out = nlohmann::json::array();
  const auto t = static_cast<int64_t>(std::floor(now));
  for (size_t i = 0; i < configured_.size() && i < regions.size(); ++i) {
    const Region& c = configured_[i];
    const Region& live = regions[i];
    nlohmann::json j = {{"name", c.name}, {"timezone", c.timezone}};
    try {
      const date::zoned_seconds z{c.timezone, date::sys_seconds{std::chrono::seconds{t}}};
      const date::local_days day = date::floor<date::days>(z.get_local_time());
      j["local_time"] = date::format("%Y-%m-%dT%H:%M:%S%z", z);
      j["weekday"] = date::format("%A", date::weekday{day});
      const std::string today = date::format("%Y-%m-%d", day);
      j["holiday"] = std::any_of(c.time_of_use.holidays.begin(), c.time_of_use.holidays.end(),
                                 [&](const std::string& h) { return trimmed(h) == today; });
    } catch (const std::exception& e) {
      j["local_time_error"] = e.what();
    }
    j["offpeak"] =
        live.offpeak.empty() ? nlohmann::json() : nlohmann::json(live.offpeak.at(now) > 0.5);
    j["electricity_usd_per_mwh"] = live.electricity_usd_per_mwh.empty()
                                       ? live.default_electricity_usd_per_mwh
                                       : live.electricity_usd_per_mwh.at(now);
    j["carbon_g_per_kwh"] = live.carbon_g_per_kwh.empty() ? live.default_carbon_g_per_kwh
                                                          : live.carbon_g_per_kwh.at(now);
    j["price_source"] = to_string(price_source(c, fallback_.fallback, now));
    const HourlySeries& p = c.electricity_usd_per_mwh;
    j["price_series_end"] = p.empty() ? nlohmann::json() : nlohmann::json(utc_stamp(p.end()));
    j["stale"] = series_stale(c, now);
    if (!fallback_.what.empty()) j["price_fallback"] = fallback_.what;
    if (!fallback_.error.empty()) j["price_fallback_error"] = fallback_.error;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace frugal
