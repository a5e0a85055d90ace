#pragma once
// Turning a time-of-use schedule in local time into an hourly off-peak indicator series
// (1 = off-peak hour, 0 = peak) in UTC, using the IANA time-zone database (Howard Hinnant's
// date/tz over the system's tzdata), so daylight-saving shifts land where they should.
// Parsing of "HH:MM-HH:MM" window strings lives here too.

#include <string>
#include <string_view>
#include <utility>

#include "model/cluster_spec.h"
#include "model/hourly_series.h"
#include "model/result.h"

namespace frugal {

// "22:00-08:00" → {1320, 480} (minutes of the day; end may be <= start: wraps midnight).
Result<std::pair<int, int>> parse_window(std::string_view text);

// True when `tz` names a zone in the tz database.
bool valid_timezone(const std::string& tz);

// Off-peak indicator for `hours` hours from `start_unix_s` (a whole UTC hour). An hour is
// off-peak when its local start time falls in a window, on a weekend (if enabled) or on a
// holiday. Error when the zone is unknown or a holiday is not a valid date.
Result<HourlySeries> offpeak_series(const TimeOfUse& tou, const std::string& tz,
                                    int64_t start_unix_s, size_t hours);

}  // namespace frugal
