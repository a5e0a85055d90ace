#pragma once
// Headline metrics of one simulation, as reported by `frugal simulate` and `compare`.
//
//  jct    = finish − submit, over completed jobs
//  wait   = jct − time spent running (all the time a job was queued, incl. after a stop)
//  wait_multi_gpu = wait over jobs asking for 2 or more whole cards (gangs)
//  makespan = last completion − first arrival
//  gpu_utilization = allocated GPU-seconds / (cluster GPUs × makespan)
//  by_tier[t] = completed jobs, jct and wait of the completed jobs of tier t (core,
//               important, general)
//  work_ref_gpu_hours = reference-model GPU-hours of work of the completed jobs
//               (JobOutcome::work_ref_gpu_seconds)
//  jct_floor_s = the mean over completed jobs of their run time on the fastest model they
//               may use (JobOutcome::fastest_run_s): no schedule's mean JCT over the same
//               jobs is lower (a bound that ignores queueing, so it is loose under load)
//  jct_bound_s = queue_jct_bound (sim/jct_bound.h) of the completed jobs on the cluster's
//               GPUs at unit weight (capacity_gpus, min_gpu_seconds) and weighted by each
//               class's speeds (capacity_class_gpus, min_class_gpu_seconds): also a lower
//               bound on their mean JCT, never below jct_floor_s, and tighter where the
//               cluster queues
//  horizon (SimResult::work_horizon_s > 0): over [first arrival, first arrival + horizon]:
//    work_ref_gpu_hours of the jobs that completed by its end, and the allocated share =
//    allocated GPU-seconds in it / (cluster GPUs × horizon)
// Percentiles interpolate linearly between order statistics (numpy's default).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace frugal {

struct Distribution {
  double mean = 0, p50 = 0, p95 = 0, p99 = 0;
};

// Summary statistics of `values` (all zero when empty). Reorders `values`.
Distribution distribution(std::vector<double>& values);

struct TierSummary {
  size_t completed = 0;
  Distribution jct_s, wait_s;
};

struct HorizonSummary {
  double horizon_s = 0;  // 0: none asked for (the rest is 0)
  size_t completed = 0;  // jobs completed by its end
  double work_ref_gpu_hours = 0;
  double allocated_share = 0;  // allocated GPU-seconds by its end / (capacity GPUs × horizon)
  double busy_share = 0;       // the same for busy GPU-seconds (SimResult::busy_gpu_seconds)
};

struct Summary {
  std::string policy;
  std::string profile;
  size_t submitted = 0, completed = 0, unschedulable = 0;
  Distribution jct_s, wait_s;
  Distribution wait_multi_gpu_s;  // wait of completed jobs asking for 2 or more whole cards
  // JCT of completed deferrable jobs and of the others (time-shifting delays the former on
  // purpose, within their deadlines).
  Distribution jct_deferrable_s, jct_other_s;
  std::array<TierSummary, kTierCount> by_tier;  // index: Tier
  double work_ref_gpu_hours = 0;
  double jct_floor_s = 0;
  double jct_bound_s = 0;  // queue_jct_bound over the completed jobs (sim/jct_bound.h)
  HorizonSummary horizon;
  double makespan_s = 0;
  double gpu_utilization = 0;
  int64_t preemptions = 0;
  int64_t migrations = 0;
  int64_t resizes = 0;       // elastic resizes (kResize)
  int64_t region_moves = 0;  // run segments begun away from the job's data (transfers)
  double rework_gpu_hours = 0;
  int64_t node_failures = 0;
  int64_t nodes_provisioned = 0, nodes_released = 0;
  // Spot capacity (SimResult's spot figures; has_spot: the cluster has a spot pool).
  bool has_spot = false;
  double spot_gpu_hours = 0;         // allocated GPU-hours on spot nodes
  double spot_rework_gpu_hours = 0;  // of rework_gpu_hours, lost to reclaims
  int64_t spot_nodes_provisioned = 0, spot_notices = 0, spot_reclaims = 0, spot_jobs_stopped = 0;
  double wall_s = 0;
  uint64_t events = 0;
  std::string first_unschedulable_reason;
  std::string invariant_violation;
  std::string stopped;  // SimResult::stopped
  int64_t deadline_misses = 0;
  bool has_offline_bound = false;
  OfflineBound offline_bound;         // least cost (see SimResult)
  OfflineBound offline_energy_bound;  // least energy cost
  bool has_ledger = false;
  LedgerReport ledger;
  bool has_prediction = false;  // --predict-runtimes
  PredictionReport prediction;
};

Summary summarize(const SimResult& r);

}  // namespace frugal
