#pragma once
// What-if on a recorded history (`frugal whatif`, docs/WHATIF.md): the same jobs replayed
// under each policy and, when the trace records when its jobs really started
// (JobSpec::recorded_start), under the `recorded` profile (policy/recorded.h) — what actually
// happened, priced by the same ledger and summarised by the same code as the policies.
//
// Per run: the simulator's Summary (cost, waste, utilisation, deadline misses, ...) plus
// wait and JCT per tier. For the recorded run, how closely the replay follows the record:
// |replayed first start − recorded first start| over the jobs with both, and the recorded
// makespan (last recorded end − first submission) beside the replay's.

#include <array>
#include <string>
#include <vector>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "model/job_class.h"
#include "model/result.h"
#include "sim/simulator.h"
#include "sim/summary.h"

namespace frugal {

// The name of the actual run (the `recorded` profile).
inline constexpr const char* kRecordedPolicy = "recorded";

struct TierFigures {
  size_t jobs = 0;       // submitted with this tier
  size_t completed = 0;  // of which completed
  Distribution wait_s, jct_s;
  int64_t deadline_misses = 0;  // with a deadline: completed after it, or not at all
};

// How closely a replay of the recorded schedule follows the record.
struct ReplayFidelity {
  size_t jobs = 0;             // jobs with a recorded first start that started in the replay
  Distribution start_error_s;  // |replayed − recorded first start|
  double max_start_error_s = 0;
  double recorded_makespan_s = 0;  // last recorded end − first submission (0: no end recorded)
  double replay_makespan_s = 0;
};

struct WhatifRun {
  Summary summary;
  std::array<TierFigures, kTierCount> tiers;
  bool actual = false;      // the recorded schedule
  ReplayFidelity fidelity;  // actual runs only
};

struct WhatifReport {
  size_t jobs = 0;
  size_t recorded = 0;          // jobs with a recorded first start
  std::vector<WhatifRun> runs;  // the actual run first (when any), then `policies` in order
};

// Whether any job records its first start (a trace without one has no actual run).
size_t recorded_starts(const std::vector<JobSpec>& jobs);

// Wait, JCT and deadline misses of `r` (a run of `jobs`) per tier.
std::array<TierFigures, kTierCount> tier_figures(const SimResult& r,
                                                 const std::vector<JobSpec>& jobs);
// `r` (a run of `jobs` under the recorded profile) against the record.
ReplayFidelity replay_fidelity(const SimResult& r, const std::vector<JobSpec>& jobs);

// Replays `jobs` under each of `policies` (policy strings, policy/profile.h) and, when the
// jobs record their starts, under the recorded profile; `threads` runs at a time. Errors
// name a policy string that does not parse, or `recorded` given in `policies`. With
// `results`, each run's SimResult is kept there too (in WhatifReport::runs order).
Result<WhatifReport> run_whatif(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
                                const GpuCatalog& catalog, const std::vector<std::string>& policies,
                                const SimOptions& so, int threads = 1,
                                std::vector<SimResult>* results = nullptr);

}  // namespace frugal
