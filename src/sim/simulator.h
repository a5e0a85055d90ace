#pragma once
// The discrete-event simulator: a virtual clock drives an Engine over a trace.
//
// Job progress model: a job's `duration` is its run time on the reference GPU model; on a
// model with relative speed s (catalog, per job class) it runs s times as fast. A stopped
// job keeps the work up to its last checkpoint (all of it when checkpoint_interval is 0)
// and redoes the rest later (counted as rework). A migrated job (kMigrate) is stopped the
// same way and restarts at once on its new placement, where its first migration_cost_s
// seconds make no progress (rework too): a migration's rework is the work since the last
// checkpoint plus that restart. A job preempted checkpoint-first is signalled, stops
// computing, holds its GPUs through the grace while its checkpoint is written, then stops
// with all its progress up to the signal saved (no rework).
//
// Spot pools (Capacity::kSpot, autoscaled; not on a static cluster): each spot node, once
// usable, draws a reclaim time (sim/spot_reclaims.h). At the reclaim minus the pool's notice
// the engine is told (Engine::reclaim_notice): the node leaves service and its jobs stop —
// saved when their checkpoint fits the notice, else losing the work since their last
// periodic checkpoint (rework, priced as the ledger's spot_reclaim waste) — and are requeued;
// at the reclaim the node goes (Engine::node_reclaimed) and may be provisioned again. Stops
// of jobs on a node under notice count as the reclaim's (SimResult::spot_jobs_stopped).
//
// Deterministic: events at the same instant are handled finishes first, then node events,
// then arrivals in trace order; the engine's own tie-breaks are stable. The same inputs
// give the same result.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cost/ledger.h"
#include "cost/offline_bound.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "policy/profile.h"
#include "policy/runtime_predictor.h"
#include "sim/timeline.h"
#include "storage/plan/lifecycle_policies.h"

namespace frugal {

struct SimOptions {
  GpuModelId reference_model = kNoGpuModel;  // model the trace's durations were measured on
#ifdef NDEBUG
  bool check_invariants = false;  // verify engine + cluster state after every cycle (slow)
#else
  bool check_invariants = true;  // debug builds check every simulated step
#endif
  // Optional node failures: mean time between failures per node and repair time (hours).
  double node_mtbf_hours = 0;  // 0 = no failures
  double node_repair_hours = 1;
  // With failures, the run stops once this many nodes have failed (0: max(1,000,000, 1,000 ×
  // jobs)); the jobs not done then are reported unfinished and SimResult::stopped says why.
  // Without it a failure rate no job can outrun (a gang spanning many nodes, checkpoints
  // further apart than failures) would never end.
  uint64_t max_node_failures = 0;
  uint64_t seed = 1;   // node failures and spot reclaims (separate streams)
  bool ledger = true;  // price every GPU-second (src/cost/ledger.h); off only for benchmarks
  // On-demand pools always provisioned (a static cluster) instead of autoscaled.
  bool static_capacity = false;
  // Progress a migrated job loses (EngineOptions::migration_cost_s): its new segment starts
  // with this many seconds of restart, counted as rework.
  Seconds migration_cost_s = 60;
  // Elastic jobs (profile +elastic): EngineOptions::elastic_alpha and resize_cost_s.
  double elastic_alpha = 0.8;
  Seconds resize_cost_s = 30;
  // EngineOptions::walk_limit (0: the whole queue each cycle, the simulator's default; the
  // service bounds it with max_jobs_per_cycle).
  size_t walk_limit = 0;
  // EngineOptions::wake_at_expected_ends: also decide when a running job reaches its
  // estimated end while jobs wait, as `frugal serve` does (replaying its history). Off by
  // default (the evaluation).
  bool wake_at_expected_ends = false;
  // Runtime prediction (src/policy/runtime_predictor.h): a job arriving without an
  // estimate (JobSpec::estimate < 0) gets the predictor's estimate, learned online from the
  // jobs completed so far; the engine (backfill, hetero's deadline and wait rules) sees
  // that estimate instead of the true duration. The progress model still runs the true
  // duration. Off = the oracle (estimate = duration).
  bool predict_runtimes = false;
  PredictorOptions predictor;
  // After the run, solve the offline time-shifting bound for the deferrable jobs that
  // completed (src/cost/offline_bound.h; needs the ledger), once for each objective (the
  // least cost and the least energy cost). Jobs without a deadline may
  // start up to offline_max_delay_s after arrival.
  bool offline_bound = false;
  double offline_max_delay_s = 24 * 3600.0;
  // Record SimResult::timeline (sim/timeline.h, bounded memory) and each job's cost, waste
  // and pool (JobOutcome::cost_usd, ...), for the HTML report. Off: nothing is sampled.
  bool timeline = false;
  // A common horizon for comparing policies on a fixed cluster (the owned-cluster setting of
  // bench/evaluate): seconds after the first arrival; 0 = none. SimResult then also holds the
  // allocated GPU-seconds up to it (the work completed by it is in the jobs' finishes).
  Seconds work_horizon_s = 0;
  // Decide once per window instead of at every event time: the events (arrivals, ends,
  // failures) within this many seconds of the earliest pending one are handled together, at
  // the latest one's time, and the engine schedules once; never past the engine's next
  // timer (Engine::next_timer). A live service decides in turns, and the ends one turn saw
  // reach its history apart by its decision latency (each job's start lagged the submission
  // or end that allowed it); replaying that history event by event decides between them
  // where the service did not. Replay a service's history with a window longer than its
  // decision latency and shorter than the time between its turns (docs/WHATIF.md: 10 ms on
  // Slurm). 0: every event at its own time (the default; results then do not depend on it).
  Seconds decision_window_s = 0;
  // Checkpoint lifecycle (opt-in; Ledger::set_checkpoint_lifecycle): jobs' checkpoint series
  // priced per tier under these policies. Unset: checkpoint_gb on the declared tier.
  std::optional<storage::LifecyclePolicies> storage_lifecycle;
};

struct JobOutcome {
  Seconds submit = 0;
  Seconds first_start = -1;            // -1 = never started
  Seconds finish = -1;                 // -1 = did not complete
  Seconds run_time = 0;                // wall time spent running, all segments
  double gpu_seconds = 0;              // allocated GPU-seconds (milli-GPU share × time)
  double rework_gpu_seconds = 0;       // GPU-seconds of work lost to stops and redone
  double spot_rework_gpu_seconds = 0;  // of which lost to spot reclaims
  // GPU-seconds held between a checkpoint signal and the stop (checkpoint-first
  // preemption's grace): paid, included in gpu_seconds, no progress, not rework.
  double checkpoint_gpu_seconds = 0;
  int preemptions = 0;
  int migrations = 0;          // moves while running (consolidation, pack-down, relays)
  int resizes = 0;             // elastic resizes (kResize)
  int region_moves = 0;        // run segments begun in a region other than its data's (transfers)
  int gang_gpus = 0;           // whole cards asked for (0 for fractional and CPU-only jobs)
  bool deferrable = false;     // JobSpec::deferrable
  Tier tier = Tier::kGeneral;  // JobSpec::tier
  // The job's work in reference-model GPU-seconds: duration × gpus × gpu_milli / 1000 (0
  // for CPU-only jobs), whether it completes or not.
  double work_ref_gpu_seconds = 0;
  // Its run time on the fastest GPU model of the cluster it may use (duration / that model's
  // relative speed for its class; duration when none), an elastic job at its largest size
  // (× (gpus / max_gpus)^elastic_alpha): no schedule finishes it sooner.
  Seconds fastest_run_s = 0;
  // The fewest GPU-seconds any schedule gives it: on that model, at its most efficient size
  // (gpus × gpu_milli / 1000 cards; an elastic job at min_gpus: duration × gpus^α ×
  // min_gpus^(1−α) / speed); 0 for CPU-only jobs. For queue_jct_bound (sim/jct_bound.h).
  double min_gpu_seconds = 0;
  // For each job class k, the fewest GPU-seconds any schedule gives it weighted by class k's
  // speed on the model it runs on (relative to the reference model): the minimum over the
  // models it may use of its GPU-seconds there (as min_gpu_seconds) × that speed. The need of
  // queue_jct_bound's machine k (SimResult::capacity_class_gpus); 0 for CPU-only jobs.
  std::array<double, kJobClassCount> min_class_gpu_seconds{};
  bool unschedulable = false;
  std::string reason;  // why unschedulable
  GpuModelId last_model = kNoGpuModel;
  // With SimOptions::timeline and the ledger: the job's total cost and waste (USD) and the
  // pool it last ran in (index into ClusterSpec::pools; -1: never ran).
  double cost_usd = 0;
  double waste_usd = 0;
  int32_t pool = -1;
};

struct SimResult {
  std::string policy;
  std::string profile;           // the plugins behind `policy`
  std::vector<JobOutcome> jobs;  // in trace order
  int64_t capacity_gpus = 0;
  // For each job class k, the cluster's GPUs weighted by class k's speed on their model
  // (relative to the reference model), the same nodes as capacity_gpus: the rate of
  // queue_jct_bound's machine k.
  std::array<double, kJobClassCount> capacity_class_gpus{};
  Seconds first_arrival = 0;
  Seconds last_completion = 0;
  double allocated_gpu_seconds = 0;  // integral of allocated milli-GPU over time / 1000
  uint64_t events = 0;
  uint64_t cycles = 0;
  int64_t preemptions = 0;
  int64_t migrations = 0;
  int64_t resizes = 0;
  int64_t region_moves = 0;  // Σ JobOutcome::region_moves
  double transfer_usd = 0;   // their data transfer (also in the ledger's transfer line)
  int64_t node_failures = 0;
  int64_t nodes_provisioned = 0;  // on-demand node requests by the autoscaler
  int64_t nodes_released = 0;
  // Spot capacity (set when the cluster has a spot pool).
  bool spot = false;
  double spot_gpu_seconds = 0;         // allocated GPU-seconds on spot nodes
  int64_t spot_nodes_provisioned = 0;  // of nodes_provisioned, spot nodes
  int64_t spot_notices = 0;            // reclaim notices of provisioned spot nodes
  int64_t spot_reclaims = 0;           // spot nodes taken back
  int64_t spot_jobs_stopped = 0;       // job stops caused by them
  double wall_s = 0;
  std::string invariant_violation;  // first one found, when check_invariants is on
  std::string stopped;          // why the run stopped before every job ended (empty: it did not)
  LedgerReport ledger;          // empty when SimOptions::ledger is off
  bool has_ledger = false;      // SimOptions::ledger was on (the ledger may still be all 0)
  bool predicted = false;       // SimOptions::predict_runtimes was on
  PredictionReport prediction;  // predicted estimates vs true durations, at arrival
  // Jobs with a deadline that completed after it or were never scheduled.
  int64_t deadline_misses = 0;
  bool has_offline_bound = false;            // SimOptions::offline_bound was on (see .ok)
  OfflineBound offline_bound;                // minimising rental + energy (OfflineObjective::kCost)
  OfflineBound offline_energy_bound;         // the same LP minimising energy alone (kEnergy)
  bool has_timeline = false;                 // SimOptions::timeline was on
  Timeline timeline;                         // provisioned/allocated GPUs, queue, cost rate, price
  Seconds work_horizon_s = 0;                // SimOptions::work_horizon_s
  double horizon_allocated_gpu_seconds = 0;  // allocated_gpu_seconds up to that horizon
  // GPU-seconds of progress whose work survives (a segment's productive seconds after its
  // restart, up to the last checkpoint kept when it stops; not the checkpoint grace, the
  // restart or the work lost and redone), in all and up to the horizon.
  double busy_gpu_seconds = 0;
  double horizon_busy_gpu_seconds = 0;
};

// Replays `jobs` on `cluster` under `profile`. `catalog` must contain every model the
// cluster and jobs refer to.
SimResult simulate(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
                   const GpuCatalog& catalog, Profile profile, const SimOptions& options);

}  // namespace frugal
