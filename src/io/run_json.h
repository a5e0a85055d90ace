#pragma once
// The HTML report's input (src/io/html_report.h): the runs as `frugal compare --format json`
// writes them (to_json(Summary), ledger keys included), each with three more keys:
//
//   "timeline":     {"t0", "bucket_s", "t": [bucket starts], "covered_s": [...], and one
//                    array per metric: provisioned_gpus, allocated_gpus, busy_gpus,
//                    queue_jobs, cost_usd_per_h, price_usd_per_mwh} (sim/timeline.h)
//   "cost_by_pool": {pool: USD} — the cost of the jobs that last ran in the pool plus the
//                    pool's unattributed (idle) capacity
//   "jobs":         the job table's rows, at most `max_jobs` per run (the costliest half and
//                    the longest-waiting rest), in trace order: {id, team, class, gpus, model,
//                    pool, submit_s, wait_s, run_s, cost_usd, waste_usd, done}; wait_s is
//                    null for a job that never started. "jobs_total" counts all of them.
//
// The full table (every job of every run) goes to CSV: write_jobs_csv.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "model/result.h"
#include "sim/simulator.h"
#include "sim/summary.h"

namespace frugal {

// What a run's report rows need besides the runs themselves.
struct RunInputs {
  const std::vector<JobSpec>& jobs;
  const GpuCatalog& catalog;
  const ClusterSpec& cluster;
};

// The timeline's JSON (the "timeline" key above).
nlohmann::json to_json(const Timeline& t);

// {"runs": [...]} for `summaries[i]` and `results[i]` (the same run; results recorded with
// SimOptions::timeline). `max_jobs` caps each run's "jobs".
nlohmann::json report_document(const std::vector<Summary>& summaries,
                               const std::vector<SimResult>& results, const RunInputs& in,
                               size_t max_jobs = 10000);

// Every job of every run as CSV (policy,id,team,class,gpus,model,pool,submit_s,wait_s,run_s,
// cost_usd,waste_usd,done) at `path`; the error names the file.
Status write_jobs_csv(const std::string& path, const std::vector<SimResult>& results,
                      const RunInputs& in);

}  // namespace frugal
