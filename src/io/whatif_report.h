#pragma once
// `frugal whatif`'s report (sim/whatif.h) as JSON and as a table (docs/WHATIF.md).
//
// JSON: {jobs, recorded_starts, runs: [run…]} where each run is the simulate report of that
// run (io/report.h: cost, waste, utilisation, deadline_misses, …) plus
//   actual         true for the recorded schedule's replay
//   tiers          {core|important|general: {jobs, completed, wait_s{…}, jct_s{…},
//                   deadline_misses}}
//   fidelity       actual run only: {jobs, start_error_s{mean,p50,p95,p99}, max_start_error_s,
//                   recorded_makespan_s, replay_makespan_s}
//   vs_actual      when there is an actual run: {cost_usd, waste_usd, wait_mean_s} of this
//                   run minus the actual run's (negative: this policy saves)

#include <nlohmann/json.hpp>
#include <string>

#include "sim/whatif.h"

namespace frugal {

nlohmann::json to_json(const WhatifReport& r);
std::string whatif_table(const WhatifReport& r);

}  // namespace frugal
