#include "cost/run_accounting.h"

namespace frugal {

RunAccounting::RunAccounting(const ClusterSpec& spec, const GpuCatalog& catalog,
                             const ClusterState& state, GpuModelId reference_model,
                             size_t jobs_hint)
    : ledger_(spec, catalog, state, reference_model, jobs_hint),
      open_(jobs_hint),
      run_time_(jobs_hint, 0.0) {}

void RunAccounting::capacity(double t0, double t1, int fragmentation_block,
                             const std::vector<int64_t>& provisioned_gpus,
                             const std::vector<int64_t>& booting_gpus,
                             const std::vector<int64_t>& provisioned_nodes) {
  ledger_.capacity(t0, t1, fragmentation_block, provisioned_gpus, booting_gpus, provisioned_nodes);
}

void RunAccounting::segment_started(JobIdx j, const Placement& p, double t) {
  if (open_.size() <= j) open_.resize(j + 1);
  open_[j] = Open{p, t};
}

double RunAccounting::segment_ended(JobIdx j, const JobSpec& job, double t, double kept_s,
                                    double utilization, bool reclaimed) {
  if (j >= open_.size() || !open_[j]) return 0;
  const Open o = std::move(*open_[j]);
  open_[j].reset();
  ledger_.segment(j, job, o.placement, o.since, t, kept_s, utilization, reclaimed);
  const double ran = t - o.since;
  add_run_time(j, ran);
  return ran;
}

void RunAccounting::segment(JobIdx j, const JobSpec& job, const Placement& p, double t0, double t1,
                            double kept_s, double utilization) {
  ledger_.segment(j, job, p, t0, t1, kept_s, utilization);
  add_run_time(j, t1 - t0);
}

void RunAccounting::guest_segment(JobIdx g, const JobSpec& guest, JobIdx host,
                                  const JobSpec& host_job, const Placement& p, double t0, double t1,
                                  double kept_s, double utilization) {
  ledger_.guest_segment(g, guest, host, host_job, p, t0, t1, kept_s, utilization);
  add_run_time(g, t1 - t0);
}

void RunAccounting::transfer(JobIdx j, const JobSpec& job, double usd) {
  ledger_.transfer(j, job, usd);
}

void RunAccounting::job_ended(JobIdx j, const JobSpec& job, double first_start, double finish,
                              double utilization) {
  ledger_.job_ended(j, job, first_start, finish, run_time(j), utilization);
}

const Placement* RunAccounting::open_placement(JobIdx j) const {
  return j < open_.size() && open_[j] ? &open_[j]->placement : nullptr;
}

double RunAccounting::open_since(JobIdx j) const {
  return j < open_.size() && open_[j] ? open_[j]->since : -1.0;
}

void RunAccounting::add_run_time(JobIdx j, double s) {
  if (run_time_.size() <= j) run_time_.resize(j + 1, 0.0);
  run_time_[j] += s;
}

}  // namespace frugal
