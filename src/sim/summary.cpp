#include "sim/summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/jct_bound.h"

namespace frugal {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

Distribution distribution(std::vector<double>& v) {
  Distribution d;
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  d.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  d.p50 = quantile(v, 0.50);
  d.p95 = quantile(v, 0.95);
  d.p99 = quantile(v, 0.99);
  return d;
}

Summary summarize(const SimResult& r) {
  Summary s;
  s.policy = r.policy;
  s.profile = r.profile;
  s.submitted = r.jobs.size();
  std::vector<double> jct, wait, wait_multi, jct_deferrable, jct_other;
  std::array<std::vector<double>, kTierCount> tier_jct, tier_wait;
  double work = 0, floor_sum = 0, horizon_work = 0;
  std::vector<BoundJob> bound_jobs;
  // queue_jct_bound's machines: the cluster's GPUs at unit weight, then weighted by each job
  // class's speeds (SimResult::capacity_class_gpus).
  std::vector<BoundMachine> machines(1 + r.capacity_class_gpus.size());
  machines[0].rate = static_cast<double>(r.capacity_gpus);
  for (size_t k = 0; k < r.capacity_class_gpus.size(); ++k)
    machines[k + 1].rate = r.capacity_class_gpus[k];
  const double horizon_end = r.first_arrival + r.work_horizon_s;
  jct.reserve(r.jobs.size());
  wait.reserve(r.jobs.size());
  double rework = 0, spot_rework = 0;
  for (const JobOutcome& o : r.jobs) {
    rework += o.rework_gpu_seconds;
    spot_rework += o.spot_rework_gpu_seconds;
    if (o.unschedulable) {
      ++s.unschedulable;
      if (s.first_unschedulable_reason.empty()) s.first_unschedulable_reason = o.reason;
      continue;
    }
    if (o.finish < 0) continue;
    ++s.completed;
    jct.push_back(o.finish - o.submit);
    wait.push_back(std::max(0.0, o.finish - o.submit - o.run_time));
    if (o.gang_gpus >= 2) wait_multi.push_back(wait.back());
    (o.deferrable ? jct_deferrable : jct_other).push_back(jct.back());
    const auto t = static_cast<size_t>(o.tier);
    tier_jct[t].push_back(jct.back());
    tier_wait[t].push_back(wait.back());
    work += o.work_ref_gpu_seconds;
    floor_sum += o.fastest_run_s;
    bound_jobs.push_back({o.submit, o.fastest_run_s});
    machines[0].need.push_back(o.min_gpu_seconds);
    for (size_t k = 0; k < o.min_class_gpu_seconds.size(); ++k)
      machines[k + 1].need.push_back(o.min_class_gpu_seconds[k]);
    if (r.work_horizon_s > 0 && o.finish <= horizon_end) {
      ++s.horizon.completed;
      horizon_work += o.work_ref_gpu_seconds;
    }
  }
  for (size_t t = 0; t < s.by_tier.size(); ++t) {
    s.by_tier[t].completed = tier_jct[t].size();
    s.by_tier[t].jct_s = distribution(tier_jct[t]);
    s.by_tier[t].wait_s = distribution(tier_wait[t]);
  }
  s.work_ref_gpu_hours = work / 3600;
  s.jct_floor_s = s.completed > 0 ? floor_sum / static_cast<double>(s.completed) : 0;
  s.jct_bound_s = queue_jct_bound(bound_jobs, machines);
  if (r.work_horizon_s > 0) {
    s.horizon.horizon_s = r.work_horizon_s;
    s.horizon.work_ref_gpu_hours = horizon_work / 3600;
    const double cap = static_cast<double>(r.capacity_gpus) * r.work_horizon_s;
    s.horizon.allocated_share = cap > 0 ? r.horizon_allocated_gpu_seconds / cap : 0;
    s.horizon.busy_share = cap > 0 ? r.horizon_busy_gpu_seconds / cap : 0;
  }
  s.jct_s = distribution(jct);
  s.wait_s = distribution(wait);
  s.wait_multi_gpu_s = distribution(wait_multi);
  s.jct_deferrable_s = distribution(jct_deferrable);
  s.jct_other_s = distribution(jct_other);
  s.makespan_s = std::max(0.0, r.last_completion - r.first_arrival);
  const double capacity = static_cast<double>(r.capacity_gpus) * s.makespan_s;
  s.gpu_utilization = capacity > 0 ? r.allocated_gpu_seconds / capacity : 0;
  s.preemptions = r.preemptions;
  s.migrations = r.migrations;
  s.resizes = r.resizes;
  s.region_moves = r.region_moves;
  s.rework_gpu_hours = rework / 3600;
  s.node_failures = r.node_failures;
  s.nodes_provisioned = r.nodes_provisioned;
  s.nodes_released = r.nodes_released;
  s.has_spot = r.spot;
  s.spot_gpu_hours = r.spot_gpu_seconds / 3600;
  s.spot_rework_gpu_hours = spot_rework / 3600;
  s.spot_nodes_provisioned = r.spot_nodes_provisioned;
  s.spot_notices = r.spot_notices;
  s.spot_reclaims = r.spot_reclaims;
  s.spot_jobs_stopped = r.spot_jobs_stopped;
  s.wall_s = r.wall_s;
  s.events = r.events;
  s.invariant_violation = r.invariant_violation;
  s.stopped = r.stopped;
  s.ledger = r.ledger;
  s.has_prediction = r.predicted;
  s.prediction = r.prediction;
  s.deadline_misses = r.deadline_misses;
  s.has_offline_bound = r.has_offline_bound;
  s.offline_bound = r.offline_bound;
  s.offline_energy_bound = r.offline_energy_bound;
  s.has_ledger = r.has_ledger;
  return s;
}

}  // namespace frugal
