#pragma once
// The scheduling pipeline's extension points, after the Kubernetes scheduling framework:
//
//   QueueSort → Admit → Filter → Place → (PostFilter when Place fails)
//   plus Preempt, which runs once per cycle before the queue is walked, Consolidate,
//   which runs after the walk for whole-GPU jobs blocked by fragmentation, and Relay,
//   which runs after the walk at price ticks to move running jobs where they cost less.
//
// Each point is a small plugin with a name; a Profile (profile.h) composes one plugin per
// point. Plugins read engine state through CycleView and never mutate it: the engine
// applies their verdicts. Every "no" carries a reason a person can read.

#include <limits>
#include <memory>
#include <optional>
#include <ranges>
#include <set>
#include <string>
#include <vector>

#include "cluster/cluster_state.h"
#include "framework/dataset_residency.h"
#include "framework/job_runtime.h"
#include "framework/placer.h"
#include "framework/plugin_state.h"
#include "framework/telemetry.h"
#include "model/gpu_catalog.h"

namespace frugal {

// Ordering key of a job in the pending queue: lexicographic (a, b), then arrival seq.
struct QueueKey {
  double a = 0;
  double b = 0;
  uint64_t seq = 0;
  JobIdx job = 0;
  friend bool operator<(const QueueKey& x, const QueueKey& y) {
    if (x.a != y.a) return x.a < y.a;
    if (x.b != y.b) return x.b < y.b;
    return x.seq < y.seq;
  }
};

// What plugins may read during a cycle.
// The entries of a running-by-end set (CycleView::running_by_end) still expected to end
// after `now`, earliest first. A job still running at or past its expected end has shown its
// estimate wrong: when it frees its GPUs is unknown, so plans built on expected ends (EASY's
// reservation, soon-free, hetero's fallback wait) leave it out.
inline auto ending_after(const std::set<std::pair<Seconds, JobIdx>>& by_end, Seconds now) {
  return std::ranges::subrange(by_end.upper_bound({now, std::numeric_limits<JobIdx>::max()}),
                               by_end.end());
}

class CycleView {
 public:
  virtual ~CycleView() = default;
  virtual Seconds now() const = 0;
  virtual const ClusterState& cluster() const = 0;
  virtual const GpuCatalog& catalog() const = 0;
  virtual const JobRuntime& job(JobIdx j) const = 0;
  // Running jobs ordered by expected end (from runtime estimates), earliest first.
  virtual const std::set<std::pair<Seconds, JobIdx>>& running_by_end() const = 0;
  // Running jobs signalled to checkpoint (JobRuntime::signalled), by when they stop.
  virtual const std::set<std::pair<Seconds, JobIdx>>& draining() const = 0;
  // Speed of `job` on GPU model `m` relative to the reference model.
  virtual double speed(const JobSpec& job, GpuModelId m) const = 0;
  // The plugins' state kept between calls (framework/plugin_state.h): one per view, so one
  // per engine. The one mutable part of a view: plugins read and write their own slot.
  PluginStates& plugin_state() const { return plugin_states_; }
  // The pending queue in QueueSort order (empty for views without a queue).
  virtual const std::set<QueueKey>& pending() const {
    static const std::set<QueueKey> kNone;
    return kNone;
  }
  // Running jobs holding resources on node `n` (empty for views without that index).
  virtual const std::vector<JobIdx>& jobs_on(NodeId /*n*/) const {
    static const std::vector<JobIdx> kNone;
    return kNone;
  }
  // Telemetry (framework/telemetry.h): node n's latest reading, running job j's measured
  // use; nullptr when there is none (simulation, or nothing reported).
  virtual const NodeReading* node_reading(NodeId /*n*/) const { return nullptr; }
  virtual const MeasuredUse* job_use(JobIdx /*j*/) const { return nullptr; }
  // Where datasets are (framework/dataset_residency.h): what the driver reported and the
  // engine's own prefetches; nullptr for views without it.
  virtual const DatasetResidency* datasets() const { return nullptr; }
  // The conditions a live driver reports in force (Engine::set_conditions: the service's
  // active alert rules, "rule@team" for an alert about one team); empty in simulation.
  virtual const std::set<std::string>& conditions() const {
    static const std::set<std::string> kNone;
    return kNone;
  }
  // Wall seconds of progress a migrated job loses to its restart (EngineOptions).
  virtual Seconds migration_cost_s() const { return 60; }
  // Where the profile's Filter and Place would put `job` on `state` (a hypothetical copy
  // of cluster(), e.g. with some jobs released); nullopt when it does not fit.
  virtual std::optional<Placement> try_place(const ClusterState& state, const JobSpec& job) const {
    (void)state;
    (void)job;
    return std::nullopt;
  }
  // The GPU model the autoscaler would add on-demand capacity of for `job` when it is queued:
  // the first of the profile's candidate models that has on-demand capacity; kNoGpuModel when
  // none does, the cluster is not autoscaled, or the view does not know.
  virtual GpuModelId overflow_model(const JobSpec& job) const {
    (void)job;
    return kNoGpuModel;
  }
  // Whether unprovisioned on-demand nodes of overflow_model(job) hold at least the job's GPUs,
  // i.e. the autoscaler could still add capacity for it (false when not autoscaled).
  virtual bool can_add_capacity(const JobSpec& job) const {
    (void)job;
    return false;
  }

 private:
  mutable PluginStates plugin_states_;
};

// QueueSort: the order in which pending jobs are considered.
class QueueSort {
 public:
  virtual ~QueueSort() = default;
  virtual std::string name() const = 0;
  virtual QueueKey key(const JobRuntime& j) const = 0;
  // Attained-service thresholds (GPU-seconds) at which a running job's key changes
  // (LAS demotion). Empty for static orders. The engine wakes at each crossing, raises
  // JobRuntime::las_level and re-keys the job.
  virtual std::vector<double> service_thresholds() const { return {}; }
  // Starvation guard: a pending job that has waited this long in the queue (since it last
  // entered it) is marked JobRuntime::starved and re-keyed; the mark stays while it runs
  // and clears when it stops. kNever: no guard.
  virtual Seconds starvation_after() const { return kNever; }
  // When a job that entered the queue at `queued` counts as starved (the same mark and
  // re-key as above): by default `queued` + starvation_after(). A sort may move it earlier per
  // job (frugal's: when a deadline job's slack runs out). kNever: not watched.
  virtual Seconds starve_at(const JobRuntime& j, Seconds queued) const {
    (void)j;
    const Seconds after = starvation_after();
    return after == kNever ? kNever : queued + after;
  }
};

// Admit: whether a job may be considered now, must wait (defer), or can never run.
struct AdmitVerdict {
  enum class Kind { kAdmit, kDefer, kReject } kind = Kind::kAdmit;
  Seconds until = kNever;
  std::string reason;
};
class Admit {
 public:
  virtual ~Admit() = default;
  virtual std::string name() const = 0;
  virtual AdmitVerdict admit(const CycleView& v, const JobRuntime& j) const = 0;
};

// Filter: narrows the GPU models a job may use. An empty result means unschedulable now.
class Filter {
 public:
  virtual ~Filter() = default;
  virtual std::string name() const = 0;
  virtual Candidates filter(const CycleView& v, const JobSpec& job) const = 0;
  // Why filter() leaves `job` no model (ok() when it leaves some). The default: unresolvable
  // when no model the job allows is in the cluster, else unschedulable now.
  virtual PluginStatus explain(const CycleView& v, const JobSpec& job) const;
};

// PostFilter / queue discipline: what happens around a job that cannot be placed.
// One instance per engine; begin_cycle() resets its per-cycle state.
class PostFilter {
 public:
  enum class Flow { kContinue, kStop };
  virtual ~PostFilter() = default;
  virtual std::string name() const = 0;
  virtual void begin_cycle(const CycleView& v) = 0;
  // `j` could not be placed now. kStop ends the walk of the queue for this cycle.
  virtual Flow blocked(const CycleView& v, const JobRuntime& j, const Candidates& c) = 0;
  // A job that fits may start only if this says so (a reservation may forbid it).
  virtual bool may_start(const CycleView& v, const JobRuntime& j, const Placement& p) = 0;
  // Upper bound on queued jobs examined per cycle (0 = unlimited).
  virtual size_t max_examined() const { return 0; }
};

// Preempt: runs once per cycle before the queue walk; chooses running jobs to stop so that
// higher-priority pending jobs can run. Returns victims in the order to stop them.
class Preempt {
 public:
  virtual ~Preempt() = default;
  virtual std::string name() const = 0;
  virtual std::vector<JobIdx> victims(const CycleView& v, const std::set<QueueKey>& pending,
                                      const std::set<QueueKey>& running) = 0;
  // < 0: victims stop at once, tentatively (a victim nobody displaced resumes where it was)
  // and keep only the work up to their last periodic checkpoint. >= 0: checkpoint-first —
  // each victim is signalled (Decision::kSignal), keeps its GPUs this many seconds while it
  // writes a checkpoint of its progress at the signal, then stops for good (kPreempt,
  // saved) and is requeued; it loses no work, and its GPUs free only after the grace.
  virtual Seconds checkpoint_grace() const { return -1; }
};

// Consolidate: after the queue walk, moves running jobs (kMigrate) so that a whole-GPU job
// blocked by fragmentation fits. A plan lists the moves and the blocked job's placement on
// the state after the moves; the engine applies the moves in order, then starts the job.
struct Move {
  JobIdx job = 0;
  Placement to;
};
struct ConsolidationPlan {
  JobIdx blocked = 0;
  std::vector<Move> moves;
  Placement placement;    // for `blocked`, valid once every move is applied
  double gain_gpu_s = 0;  // blocked job's GPUs × the wait it avoids (estimate)
  double cost_gpu_s = 0;  // moved jobs' GPUs × (restart + work since their last checkpoint)
};
class Consolidate {
 public:
  virtual ~Consolidate() = default;
  virtual std::string name() const = 0;
  // A plan for `j` (pending, whole-GPU, on candidate models `c`) or nullopt. Read-only.
  virtual std::optional<ConsolidationPlan> plan(const CycleView& v, JobIdx j,
                                                const Candidates& c) const = 0;
};

// Relay: after the walk (and Consolidate/Elastic), at the instants next_tick() names and
// when no job is queued (a move must not take GPUs a waiting job could use), the engine offers each
// running job that declares JobSpec::movable, in running-queue order; relay() returns where to move
// it (kMigrate, with the engine's migration restart) or nullopt. The engine applies a move before
// asking about the next job, so each answer sees the moves before it. Read-only. Follow-the-sun is
// the one implementation (src/policy/follow_sun.h).
class Relay {
 public:
  virtual ~Relay() = default;
  virtual std::string name() const = 0;
  virtual std::optional<Move> relay(const CycleView& v, JobIdx j) const = 0;
  // The next instant after v.now() at which relay() may answer differently (a price tick);
  // the engine wakes then while a movable job runs.
  virtual Seconds next_tick(const CycleView& v) const = 0;
  // The autoscaler provisions on-demand nodes of a model lowest rank first (ties → node id):
  // e.g. the cost of one GPU of node n over the next hour, so new capacity lands in the
  // region that is cheapest now. The default ranks every node alike (node order).
  virtual double provision_rank(const CycleView& v, NodeId n) const {
    (void)v;
    (void)n;
    return 0;
  }
};

}  // namespace frugal
