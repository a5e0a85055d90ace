#pragma once
// Run accounting: what ran, turned into the ledger. It keeps each job's open run segment
// (placement and start) and its run time, prices capacity between instants, and feeds one
// Ledger (src/cost/ledger.h) from them. The simulator (as it applies the engine's
// decisions), `frugal attribute` (a sweep over Slurm's finished-job records) and the
// service (as its loop applies decisions; rebuilt from stored segments after a restart)
// all account through this class — it is the only caller of Ledger::segment, capacity and
// job_ended — so a run costs the same whichever of them saw it.
//
// Job indices are the caller's (dense from 0 is cheapest); times are trace seconds (Unix
// time minus the cluster's epoch). No clock, no I/O. Not thread-safe.

#include <optional>
#include <vector>

#include "cost/ledger.h"

namespace frugal {

class RunAccounting {
 public:
  // All references must outlive this object (see Ledger).
  RunAccounting(const ClusterSpec& spec, const GpuCatalog& catalog, const ClusterState& state,
                GpuModelId reference_model, size_t jobs_hint = 0);

  // Capacity over [t0, t1) with the cluster as it is now: call before the state changes at
  // t1 (Ledger::capacity). Nothing happens unless t1 > t0.
  void capacity(double t0, double t1, int fragmentation_block,
                const std::vector<int64_t>& provisioned_gpus,
                const std::vector<int64_t>& booting_gpus = {},
                const std::vector<int64_t>& provisioned_nodes = {});

  // Job j's run segment on `p` begins at t (a segment still open is replaced unpriced: end
  // it first).
  void segment_started(JobIdx j, const Placement& p, double t);
  // Job j's open segment ends at t; `kept_s` seconds of its work survived (the rest is
  // rework; spot_reclaim waste when `reclaimed`, Ledger::segment). `utilization` >= 0 prices
  // it at that utilisation instead of the spec's (a measured one). Returns the segment's
  // length; 0 and nothing priced when none was open.
  double segment_ended(JobIdx j, const JobSpec& job, double t, double kept_s,
                       double utilization = -1, bool reclaimed = false);
  // A whole segment known after the fact (a Slurm record, a stored segment after a
  // restart): as segment_started(t0) then segment_ended(t1), without touching an open one.
  void segment(JobIdx j, const JobSpec& job, const Placement& p, double t0, double t1,
               double kept_s, double utilization = -1);
  // A guest's whole segment on a card job `host` held (Ledger::guest_segment), known after
  // the fact like segment().
  void guest_segment(JobIdx g, const JobSpec& guest, JobIdx host, const JobSpec& host_job,
                     const Placement& p, double t0, double t1, double kept_s,
                     double utilization = -1);
  // Job j's data moved between regions before a segment (Ledger::transfer).
  void transfer(JobIdx j, const JobSpec& job, double usd);
  // Job j ended (completed, failed or cancelled): storage and the per-job waste checks, with
  // the run time accounted so far. `first_start` < 0 when it never ran.
  void job_ended(JobIdx j, const JobSpec& job, double first_start, double finish,
                 double utilization = -1);

  // Seconds job j ran in closed segments; 0 for jobs not seen.
  double run_time(JobIdx j) const { return j < run_time_.size() ? run_time_[j] : 0.0; }
  // Job j's open segment's placement, or null.
  const Placement* open_placement(JobIdx j) const;
  // When job j's open segment began, or -1.
  double open_since(JobIdx j) const;

  // Opt-in checkpoint lifecycle pricing (Ledger::set_checkpoint_lifecycle).
  bool set_checkpoint_lifecycle(const storage::LifecyclePolicies& policies) {
    return ledger_.set_checkpoint_lifecycle(policies);
  }
  // The ledger reads `state` from now on (Ledger::rebind).
  void rebind(const ClusterState& state) { ledger_.rebind(state); }
  const Ledger& ledger() const { return ledger_; }
  const Pricing& pricing() const { return ledger_.pricing(); }
  LedgerReport report() const { return ledger_.report(); }

 private:
  struct Open {
    Placement placement;
    double since = 0;
  };
  void add_run_time(JobIdx j, double s);

  Ledger ledger_;
  std::vector<std::optional<Open>> open_;
  std::vector<double> run_time_;
};

}  // namespace frugal
