#pragma once
// Reading hourly series from the bundled market data (data/prices, data/carbon; the same
// layout as ../shared/data): electricity prices `Datetime (UTC),Datetime (Local),Price
// (USD/MWh)` with UTC stamps like `2023-01-01 00:00:00+00:00`, and carbon intensity from
// Electricity Maps (`Datetime (UTC),...,Carbon Intensity gCO₂eq/kWh (direct),...`, UTC stamps
// without offset). Rows must be consecutive whole hours; prices may be negative.
// Errors name the file, line and column.

#include <string>

#include "model/hourly_series.h"
#include "model/result.h"

namespace frugal {

Result<HourlySeries> read_price_csv(const std::string& path);
// Uses the direct (operational) intensity column.
Result<HourlySeries> read_carbon_csv(const std::string& path);

}  // namespace frugal
