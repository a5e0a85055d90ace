#include "io/live_prices.h"

#include <date/date.h>
#include <date/tz.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <vector>

#include "io/time_of_use.h"

namespace frugal {
namespace {

constexpr int64_t kHour = 3600;
constexpr int64_t kYearHours = 52 * 7 * 24;

const date::time_zone* zone_of(const std::string& tz) {
  try {
    return date::locate_zone(tz);
  } catch (const std::exception&) {
    return nullptr;
  }
}

int week_slot(const date::time_zone* zone, int64_t t) {
  const date::local_seconds local = zone->to_local(date::sys_seconds{std::chrono::seconds{t}});
  const date::local_days day = date::floor<date::days>(local);
  const auto hour = std::chrono::duration_cast<std::chrono::hours>(local - day).count();
  const unsigned monday_based = (date::weekday{day}.c_encoding() + 6) % 7;  // Monday = 0
  return static_cast<int>(monday_based * 24 + static_cast<unsigned>(hour));
}

Error bad_zone(const std::string& tz) {
  return Error{fmt::format("time zone '{}': not in the tz database", tz)};
}

// The series' own value where it covers an hour, else `fill(hour)`.
template <class Fill>
HourlySeries filled(const HourlySeries& s, int64_t start, size_t hours, Fill fill) {
  std::vector<double> v(hours);
  for (size_t i = 0; i < hours; ++i) {
    const int64_t h = start + kHour * static_cast<int64_t>(i);
    v[i] = series_covers(s, static_cast<double>(h)) ? s.at(static_cast<double>(h)) : fill(h);
  }
  return HourlySeries(start, std::move(v));
}

}  // namespace

bool series_covers(const HourlySeries& s, double t) {
  return !s.empty() && t >= static_cast<double>(s.start()) && t < static_cast<double>(s.end());
}

const char* to_string(PriceSource s) {
  switch (s) {
    case PriceSource::kFlat:
      return "flat";
    case PriceSource::kSeries:
      return "series";
    case PriceSource::kFallbackFlat:
      return "fallback_flat";
    case PriceSource::kFallbackSeries:
      return "fallback_series";
    case PriceSource::kWeekMean:
      return "hour_of_week_mean";
  }
  return "?";
}

int hour_of_week(const std::string& tz, int64_t t) {
  const date::time_zone* zone = zone_of(tz);
  return zone == nullptr ? -1 : week_slot(zone, t);
}

Result<std::array<double, 168>> hour_of_week_means(const HourlySeries& s, const std::string& tz) {
  std::array<double, 168> mean{};
  if (s.empty()) return mean;
  const date::time_zone* zone = zone_of(tz);
  if (zone == nullptr) return bad_zone(tz);
  std::array<double, 168> sum{};
  std::array<int64_t, 168> n{};
  const int64_t used = std::min<int64_t>(kYearHours, static_cast<int64_t>(s.hours()));
  double all = 0;
  for (int64_t i = static_cast<int64_t>(s.hours()) - used; i < static_cast<int64_t>(s.hours());
       ++i) {
    const int64_t t = s.start() + kHour * i;
    const double v = s.values()[static_cast<size_t>(i)];
    const int slot = week_slot(zone, t);
    sum[static_cast<size_t>(slot)] += v;
    ++n[static_cast<size_t>(slot)];
    all += v;
  }
  for (size_t k = 0; k < mean.size(); ++k)
    mean[k] = n[k] > 0 ? sum[k] / static_cast<double>(n[k]) : all / static_cast<double>(used);
  return mean;
}

Result<LiveRegionSeries> build_live_region(const Region& configured, const PriceFallback& fallback,
                                           int64_t start_unix_s, size_t hours) {
  if (start_unix_s % kHour != 0)
    return Error{fmt::format("live series: start {} is not a whole UTC hour", start_unix_s)};
  const date::time_zone* zone = zone_of(configured.timezone);
  if (zone == nullptr) return bad_zone(configured.timezone);
  LiveRegionSeries out;
  if (const HourlySeries& p = configured.electricity_usd_per_mwh; !p.empty()) {
    auto mean = hour_of_week_means(p, configured.timezone);
    if (!mean.ok()) return mean.error();
    const auto& m = mean.value();
    out.electricity_usd_per_mwh = filled(p, start_unix_s, hours, [&](int64_t h) {
      if (fallback.flat_usd_per_mwh) return *fallback.flat_usd_per_mwh;
      if (series_covers(fallback.series, static_cast<double>(h)))
        return fallback.series.at(static_cast<double>(h));
      return m[static_cast<size_t>(week_slot(zone, h))];
    });
  }
  if (const HourlySeries& c = configured.carbon_g_per_kwh; !c.empty()) {
    auto mean = hour_of_week_means(c, configured.timezone);
    if (!mean.ok()) return mean.error();
    const auto& m = mean.value();
    out.carbon_g_per_kwh = filled(c, start_unix_s, hours, [&](int64_t h) {
      return m[static_cast<size_t>(week_slot(zone, h))];
    });
  }
  if (!configured.offpeak.empty()) {
    auto off = offpeak_series(configured.time_of_use, configured.timezone, start_unix_s, hours);
    if (!off.ok()) return off.error();
    out.offpeak = std::move(off).value();
  }
  return out;
}

PriceSource price_source(const Region& configured, const PriceFallback& fallback, double t) {
  const HourlySeries& p = configured.electricity_usd_per_mwh;
  if (p.empty()) return PriceSource::kFlat;
  if (series_covers(p, t)) return PriceSource::kSeries;
  if (fallback.flat_usd_per_mwh) return PriceSource::kFallbackFlat;
  if (series_covers(fallback.series, t)) return PriceSource::kFallbackSeries;
  return PriceSource::kWeekMean;
}

bool series_stale(const Region& configured, double t) {
  const auto stale = [&](const HourlySeries& s) { return !s.empty() && !series_covers(s, t); };
  return stale(configured.electricity_usd_per_mwh) || stale(configured.carbon_g_per_kwh);
}

}  // namespace frugal
