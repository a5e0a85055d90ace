#pragma once
// Report writers for simulation summaries: JSON (stable keys, see docs/REPORT.md) and a
// plain-text table for people.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/summary.h"

namespace frugal {

// A distribution as JSON: {mean, p50, p95, p99}.
nlohmann::json dist_json(const Distribution& d);
// Seconds for people: "45s", "12.5m", "3.2h", "4.1d".
std::string human_seconds(double s);
// Dollars for people: "$12.34", "$45.6k", "$1.23M".
std::string usd(double v);

// One run as JSON: policy, jobs.{submitted,completed,unschedulable}, jct_s.{mean,p50,p95,
// p99}, wait_s.{...}, wait_multi_gpu_s.{...}, makespan_s, gpu_utilization, preemptions,
// migrations, resizes, sim.{wall_s,events}, ...
nlohmann::json to_json(const Summary& s);
// The `prediction` block: error of predicted runtimes (docs/REPORT.md).
nlohmann::json to_json(const PredictionReport& p);

// The ledger's keys of a run's JSON: cost, waste, by_team, by_class, by_region, deferrable.
// One shape for `simulate`, `attribute` and the service's GET /v1/ledger.
nlohmann::json to_json(const LedgerReport& l);
// One account of it (an entry of by_team, by_class, ...): total, rental, energy, storage,
// transfer, GPU-hours, kWh, CO2 and its waste by category (spot_reclaim_usd only when
// `spot`: the cluster has a spot pool, LedgerReport::spot).
nlohmann::json to_json(const CostAccount& a, bool spot = false);
// The ledger as text: total, waste largest first, regions; `title` heads it.
std::string ledger_table(const std::string& title, const LedgerReport& l);

// A table with one row per run.
std::string to_table(const std::vector<Summary>& runs);

}  // namespace frugal
