#pragma once
// A region's price, carbon and off-peak series for a LIVE service: the real calendar, never
// a wrapped series. Simulation keeps HourlySeries' wrap-around (docs/CLUSTER_SPEC.md); a
// live service instead builds, for a window of real UTC hours around now, series in which
// every hour is the real one:
//
//  electricity price of hour h = the configured series' value when it covers h; otherwise
//      the fallback: a flat price, or the fallback series (a file or a command's output)
//      where it covers h; otherwise the mean of the configured series over the same local
//      hour of the week (region time zone, so DST keeps a local 18:00 peak at 18:00) in its
//      last covered year (52 weeks before its end, or all of it when shorter);
//  carbon intensity of hour h = the configured series' value, else its same-hour-of-week
//      mean (no fallback source);
//  off-peak indicator = the time-of-use rules (windows, weekends, holidays) evaluated on the
//      real local date of each hour.
//
// A region without a price (or carbon) series keeps its flat default: nothing to go stale.
// Pure functions of their arguments: no clock, no I/O.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "model/cluster_spec.h"
#include "model/hourly_series.h"
#include "model/result.h"

namespace frugal {

// Where the live service gets prices for hours the configured series does not cover.
struct PriceFallback {
  std::optional<double> flat_usd_per_mwh;  // a flat price for every uncovered hour
  HourlySeries series;                     // hours from a file or command (may be empty)
};

// How one hour of a region's electricity price was found.
enum class PriceSource : uint8_t {
  kFlat,            // the region has no price series: its flat usd_per_mwh
  kSeries,          // the configured series covers the hour
  kFallbackFlat,    // PriceFallback::flat_usd_per_mwh
  kFallbackSeries,  // PriceFallback::series covers the hour
  kWeekMean,        // the configured series' same-hour-of-week mean
};
const char* to_string(PriceSource s);

// Mean of `s` per local hour of the week (index = Monday-based weekday × 24 + local hour)
// over its last 52 weeks (all of it when shorter). A slot without data (a series shorter
// than a week) takes the mean of all hours used. Error when the zone is unknown; all zeros
// for an empty series.
Result<std::array<double, 168>> hour_of_week_means(const HourlySeries& s, const std::string& tz);

// Local hour of the week (as above) of Unix time `t` in zone `tz`; -1 for an unknown zone.
int hour_of_week(const std::string& tz, int64_t t);

struct LiveRegionSeries {
  HourlySeries electricity_usd_per_mwh;  // empty when the region has no price series
  HourlySeries carbon_g_per_kwh;         // empty when the region has no carbon series
  HourlySeries offpeak;                  // empty when the region has no time-of-use
};

// Region `configured` (as loaded, series unchanged) priced for live use over `hours` whole
// UTC hours from `start_unix_s` (a whole hour). Errors: unknown zone, bad holiday.
Result<LiveRegionSeries> build_live_region(const Region& configured, const PriceFallback& fallback,
                                           int64_t start_unix_s, size_t hours);

// The source build_live_region uses for the hour containing `t`.
PriceSource price_source(const Region& configured, const PriceFallback& fallback, double t);

// True when `s` holds a value for the hour containing `t` (no wrap-around).
bool series_covers(const HourlySeries& s, double t);

// True when the region has a price or carbon series that does not cover `t` (the service's
// alert price_series_stale).
bool series_stale(const Region& configured, double t);

}  // namespace frugal
