#pragma once
// Reading hourly series from the bundled market data (data/prices, data/carbon; the same
// layout as ../shared/data): electricity prices `Datetime (UTC),Datetime (Local),Price
// (USD/MWh)` with UTC stamps like `2023-01-01 00:00:00+00:00`, and carbon intensity from
// Electricity Maps (`Datetime (UTC),...,Carbon Intensity gCO₂eq/kWh (direct),...`, UTC stamps
// without offset). Rows must be consecutive whole hours; prices may be negative. Values are
// bounded (a mistyped exponent would otherwise price a run at infinity): prices within
// ±kMaxUsdPerMwh, carbon intensity within [0, kMaxCarbonGPerKwh] — the same bounds as a
// cluster file's flat usd_per_mwh and carbon_g_per_kwh. Errors name the file, line and column.

#include <string>
#include <string_view>

#include "model/hourly_series.h"
#include "model/result.h"

namespace frugal {

// Far beyond any market's price cap (ERCOT's is 5,000 USD/MWh) and any grid's intensity.
constexpr double kMaxUsdPerMwh = 100000;
constexpr double kMaxCarbonGPerKwh = 5000;

Result<HourlySeries> read_price_csv(const std::string& path);
// The same from text (a command's output); `origin` names it in errors ("ORIGIN:LINE: ...").
Result<HourlySeries> parse_price_csv(std::string_view text, const std::string& origin);
// Uses the direct (operational) intensity column.
Result<HourlySeries> read_carbon_csv(const std::string& path);

}  // namespace frugal
