#pragma once
// The scheduling engine: events in, decisions out. It never reads a clock and does no
// I/O: every call carries `now`, and the same engine serves the simulator, the local
// driver and the Slurm driver.
//
// Protocol: report events (submit, finish, node_down, node_up) as they happen, then call
// schedule(now) once for that instant; it returns the decisions of one scheduling cycle,
// already applied to the engine's own state (a started job holds its GPUs, a preempted
// job is back in the queue). Call schedule() again no later than next_wakeup() even if
// nothing else happens. Times passed must not decrease. A checkpoint-first Preempt plugin
// yields kSignal (the job checkpoints, keeping its GPUs) and, in the cycle at the end of
// the grace, kPreempt with `saved`; the driver calls schedule() then (next_wakeup()).
//
// Not thread-safe: one driver thread owns an engine.

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_state.h"
#include "engine/churn_guard.h"
#include "engine/node_pool.h"
#include "framework/cycle_ops.h"
#include "framework/decision.h"
#include "framework/engine_options.h"
#include "framework/job_runtime.h"
#include "framework/plugin_status.h"
#include "framework/profile.h"

namespace frugal {

class Engine final : private CycleOps {
 public:
  // `spec` is copied; `catalog` must outlive the engine.
  Engine(const ClusterSpec& spec, const GpuCatalog& catalog, Profile profile,
         EngineOptions options);

  // A job arrives. `spec` must outlive the engine; `j` must be new. Jobs that can never
  // run are rejected (a kReject decision in the next schedule()).
  void submit(JobIdx j, const JobSpec* spec, Seconds now);
  // A running job ended (completed or failed): its resources are freed.
  void finish(JobIdx j, Seconds now);
  // A node failed: jobs on it are stopped (kPreempt decisions, reason "node down").
  void node_down(NodeId n, Seconds now);
  void node_up(NodeId n, Seconds now);  // a failed node was repaired
  // An on-demand node the engine asked for (kProvision) is now usable.
  void node_provisioned(NodeId n, Seconds now);
  // Live capacity: what the backend sees of on-demand node n's power (NodePool::observe_power),
  // whether or not the engine asked for it. Powered down or failed while it held jobs: they
  // are stopped (kPreempt, reason "node powered down" / "node failed") and requeued. Returns
  // whether the engine's view of n changed; false for nodes that are not autoscaled.
  bool node_power(NodeId n, NodePower p, Seconds now);
  // Spot reclaims (Capacity::kSpot; no-ops for other nodes or a static cluster). The
  // provider announced that it takes spot node n back at now + notice: the node is out of
  // service from now on (still paid until it goes) and the jobs on it stop now and are
  // requeued (kPreempt): saved — all their progress kept — when their checkpoint fits in the
  // notice (JobSpec::checkpoint_grace <= notice; an unknown one, < 0, is taken to fit),
  // else keeping only the work up to their last periodic checkpoint (what computing on until
  // the node goes would not have saved either). They stop at the notice rather than when
  // their checkpoint is written or the node goes: running jobs never sit on a node out of
  // service (tentative plans re-place running jobs), at the price of requeuing them up to a
  // notice early and of the checkpoint writes showing as the node's idle time.
  void reclaim_notice(NodeId n, Seconds now, Seconds notice);
  // Spot node n is gone: jobs still on it (none after a notice) stop, losing the work since
  // their last checkpoint, and are requeued; the node is unprovisioned and the autoscaler may
  // ask for it again.
  void node_reclaimed(NodeId n, Seconds now);

  // A guest (policy/lend_idle.h) is reported running (job(j).state) but holds no capacity:
  // finish() ends it like any job; a host that stops or moves recalls its guests first
  // (kPreempt, requeued). running_count() does not count guests.
  bool guest(JobIdx j) const { return is_guest(j); }

  // Live-service additions (src/service): jobs leave and re-enter outside the trace's flow.
  // Withdraws a pending or deferred job (cancelled or held before it ran): it leaves the
  // queue and ends (state kFinished), no decision follows. Returns false if it was not
  // pending (running, finished or unknown); nothing changes then.
  bool withdraw(JobIdx j, Seconds now);
  // A job signalled to checkpoint (kSignal) has ended before its grace did: its drain
  // completes now instead of at the grace's end — the kPreempt (saved) comes with the next
  // schedule() and its GPUs are free for the preemptor at once. Returns false (nothing
  // changes) when `j` is not a running, signalled job.
  bool end_drain(JobIdx j, Seconds now);
  // The service's reaction to a job measured idle (alerts.job_idle.requeue_after_minutes):
  // a checkpoint-first stop of running job j — kSignal with the next schedule(), kPreempt
  // (saved, `reason` + " (checkpointed)") at the end of the grace (or of the job's own
  // shorter checkpoint_grace, or when it ends: end_drain) — then back in the queue; with
  // `hold` > 0 it is deferred that long first (a kDefer after the kPreempt), so the jobs
  // waiting for its GPUs go first whatever the queue order. Returns false (nothing changes)
  // when j is not running, is already signalled, or is pinned.
  bool checkpoint_requeue(JobIdx j, Seconds now, Seconds grace, std::string reason,
                          Seconds hold = 0);
  // A running job's priority changed (the service's POST .../priority): the engine refers
  // to `spec` from now on — the same job, equal to the old spec in every field but `tier` —
  // and re-keys it, which matters only for later preemption choices. Returns false (nothing
  // changes) when `j` is not running.
  bool update_running(JobIdx j, const JobSpec* spec);
  // After a service restart: job `j` (new, like submit) is known to be running on `p`
  // since `run_start`. It holds `p` from now on; error (nothing changes) if `p` is not free.
  Status adopt(JobIdx j, const JobSpec* spec, const Placement& p, Seconds run_start, Seconds now);

  // Prices changed (a live service's calendar, service/live_calendar.h): region `r`'s price,
  // carbon and off-peak series are these from now on, for every plugin that prices time.
  void prices_changed(uint32_t r, const HourlySeries& electricity, const HourlySeries& carbon,
                      const HourlySeries& offpeak) {
    state_.set_region_series(r, electricity, carbon, offpeak);
  }

  // Telemetry (framework/telemetry.h). Node n's latest reading (a driver reports one per
  // sampling period; an empty one when its telemetry stopped): the profile's Health plugins
  // set the node's placement limit from it, effective from the next cycle. Returns whether
  // the limit (tier or reason) changed: the driver then runs a cycle and tells its users.
  bool observe_node(NodeId n, NodeReading r);
  // Running job j's measured use over a window (MeasuredUse::at >= its run segment's start; older
  // measurements are not shown to plugins). Ignored for a job that is not running.
  void observe_job(JobIdx j, const MeasuredUse& u);
  // Conditions (the Hold point, framework/cycle_plugin.h): the names of the conditions in
  // force from now on, as a live driver sees them (the service: its active alert rules).
  // Every waiting job is asked the Hold point again: those a plugin now holds leave the
  // queue, those no longer held re-enter it as arrivals at `now` (in their arrival order).
  // Returns whether the set changed; the driver then runs a cycle.
  bool set_conditions(std::set<std::string> conditions, Seconds now);
  const std::set<std::string>& conditions() const override { return conditions_; }
  // Waiting jobs a Hold plugin keeps out of the queue (counted in pending_count() too).
  size_t held_count() const { return held_.size(); }
  // The limit the Health plugins put on new work on node n (none: NodeLimit{}).
  const NodeLimit& node_limit(NodeId n) const;
  // What plugins see (CycleView): node n's latest known reading, running job j's use
  // measured in its current run segment; nullptr when none.
  const NodeReading* node_reading(NodeId n) const override;
  const MeasuredUse* job_use(JobIdx j) const override;

  // Datasets (framework/dataset_residency.h), reported by a live driver's storage manager;
  // effective from the next cycle, no decision follows. Node n holds dataset `name` (GB; <=
  // 0: size unknown) on its hot tier from now on:
  void dataset_resident(NodeId n, const std::string& name, double gb);
  // ... no longer holds it (evicted, or its staging failed). Returns whether it did.
  bool dataset_evicted(NodeId n, const std::string& name);
  // The size (GB) of registered dataset `name`, on any node or none.
  void dataset_size(const std::string& name, double gb);
  // Node n stages data onto its hot tier at `gb_per_s` GB/s (<= 0: back to the plugins'
  // default, policy/dataset_locality.h).
  void staging_bandwidth(NodeId n, double gb_per_s);
  // What plugins see: the reports above plus the engine's own kPrefetch decisions.
  const DatasetResidency* datasets() const override { return &datasets_; }

  // One scheduling cycle at `now`. The returned reference is valid until the next call.
  const std::vector<Decision>& schedule(Seconds now);
  // Earliest time the engine needs a cycle without outside events (kNever if none): its
  // timers and its plugins', and, with EngineOptions::wake_at_expected_ends, while jobs wait,
  // the next expected end of a running job (next_expected_end after the last cycle).
  Seconds next_wakeup() const;
  // next_wakeup() without the expected ends: the engine's and its plugins' timers (deferrals,
  // checkpoint graces, demotions, starvation marks, the node pool's), which a cycle must not
  // come later than. A driver that decides the events of a short window together (the
  // simulator's --decision-window) may take an expected end within it at the window's end,
  // as a live service notices it at its next turn.
  Seconds next_timer() const;
  // The earliest expected end (by runtime estimates) of a running job after `t`; kNever if
  // none.
  Seconds next_expected_end(Seconds t) const;

  const ClusterState& cluster() const override { return state_; }
  const JobRuntime& job(JobIdx j) const override { return jobs_[j]; }
  const Profile& profile() const { return profile_; }
  const NodePool& nodes() const { return pool_; }
  // Waiting jobs: queued, deferred by Admit, or held (held_count()).
  size_t pending_count() const { return pending_.size() + deferred_.size() + held_.size(); }
  // The longest any job waited in the queue before a cycle's walk first examined it, counting
  // the jobs still waiting unexamined at `now`. A cycle with no free GPU and no fractional
  // job queued examines none (nothing could start).
  Seconds max_wait_unexamined(Seconds now) const;
  size_t running_count() const { return running_.size(); }
  double speed(const JobSpec& job, GpuModelId m) const override;
  // After a cycle: the smallest whole-GPU demand of a queued single-node job that did not
  // fit although enough GPUs were free in total (blocked by fragmentation); 0 if none.
  // Free GPUs on nodes with fewer free than this are stranded (src/cost/ledger.h).
  int fragmentation_block() const { return fragmentation_block_; }

  // Set once the engine made more decisions than ChurnGuard allows with no job started or
  // ended (rules undoing each other): the error names the time, decision kinds and jobs.
  // From then on schedule() decides nothing; the driver stops (simulation) or alerts.
  const std::optional<std::string>& stalled() const { return churn_.tripped(); }

  // Why pending job j is not running now, as the plugins would say in a cycle at this
  // instant: deferred by Admit, no candidate model (Filter), no room (Place; noting when the
  // autoscaler can add capacity for it), or it fits but the PostFilter's queue discipline
  // holds it. ok() when j is not pending. Not on the hot path: O(one Filter + Place call).
  PluginStatus explain(JobIdx j) const;

  // explain()'s part for the Health point: when `job` does not fit on candidates `c` now
  // but would without the nodes' limits, the limits that keep it out.
  PluginStatus explain_limits(const JobSpec& job, const Candidates& c) const;

  // Cross-checks engine and cluster state; empty when consistent. O(jobs + cluster).
  std::string check_invariants() const;

 private:
  // CycleView
  Seconds now() const override { return now_; }
  const GpuCatalog& catalog() const override { return catalog_; }
  const std::set<std::pair<Seconds, JobIdx>>& running_by_end() const override {
    return running_by_end_;
  }
  const std::set<std::pair<Seconds, JobIdx>>& draining() const override { return drains_; }

  const std::set<QueueKey>& pending() const override { return pending_; }
  const std::vector<JobIdx>& jobs_on(NodeId n) const override { return node_jobs_[n]; }
  Seconds migration_cost_s() const override { return options_.migration_cost_s; }
  std::optional<Placement> try_place(const ClusterState& state, const JobSpec& job) const override;
  GpuModelId overflow_model(const JobSpec& job) const override;
  bool can_add_capacity(const JobSpec& job) const override;

  // Resets j's runtime to a new job of `spec` arriving now (per-job arrays grow as needed).
  JobRuntime& fresh_runtime(JobIdx j, const JobSpec* spec, Seconds now);
  void enqueue(JobIdx j, Seconds now);
  // A job enters the queue (an arrival, a deferral's end, a requeue) unless a Hold plugin
  // keeps it out (held_; engine_hold.cpp).
  void enter_queue(JobIdx j, Seconds now);
  // The first Hold plugin's reason to keep waiting job j out of the queue; "" when none does.
  std::string hold_reason(JobIdx j) const;
  // Pending job j leaves the queue, held for `why`.
  void hold(JobIdx j, std::string why);
  void start(JobIdx j, Placement p, Seconds now);
  // running → pending (resources freed, not decided). `saved`: the job's checkpoint at its
  // signal (or, unsignalled, now) completed (else only periodic checkpoints count).
  void stop(JobIdx j, Seconds now, bool saved = false);
  // Checkpoint-first preemption: signal `j` (a kSignal into `into`: out_ in a cycle,
  // queued_ outside one); its GPUs free at now + grace (or sooner: its
  // JobSpec::checkpoint_grace when that is shorter). `reason` says why (its kPreempt too).
  void signal(JobIdx j, Seconds now, Seconds grace, std::vector<Decision>& into,
              std::string reason);
  static constexpr const char* kPreemptedForTier = "preempted for higher-tier work";
  // Why signalled job j was signalled (forgotten after); kPreemptedForTier when unknown.
  std::string take_drain_reason(JobIdx j);
  // A signalled job's drain ends: it stops saved (kPreempt, its reason + `how`, into `into`)
  // and is requeued, or deferred for its checkpoint_requeue hold.
  void requeue_drained(JobIdx j, Seconds now, const char* how, std::vector<Decision>& into);
  // Node n failed or is being reclaimed: the jobs on it, but pinned ones, stop and are
  // requeued, each with a kPreempt (`reason`) for the next cycle; with a `notice` (>= 0) those
  // whose checkpoint fits in it stop saved.
  void evict(NodeId n, Seconds now, const char* reason, Seconds notice = -1);
  // Stops signalled jobs whose grace has ended (kPreempt, saved) and requeues them.
  void complete_drains(Seconds now);
  // Marks pending jobs that waited past the sort's starvation limit (re-keys them).
  void apply_starvations(Seconds now);
  void unwatch_starvation(JobIdx j);
  QueueKey key_of(JobIdx j) const;
  // Removes j from the pending queue and its counters (it starts or resumes).
  void leave_pending(JobIdx j);
  // Moves running job j to `to` atomically (nothing changes on failure); a new run segment
  // starts now with the restart cost. The job keeps running; its speed may change.
  Status migrate(JobIdx j, Placement to, Seconds now, Seconds cost);
  // CycleOps (framework/cycle_ops.h): what cycle plugins see and do.
  const std::set<QueueKey>& running() const override { return running_; }
  size_t running_elastic() const override { return running_elastic_; }
  size_t running_movable() const override { return running_movable_; }
  const CapacityView& capacity() const override { return pool_; }
  const OnDemandShape& on_demand_shape() const override { return on_demand_; }
  const EngineOptions& options() const override { return options_; }
  const CycleState& cycle() const override { return cycle_; }
  const std::set<std::pair<Seconds, JobIdx>>& deferred() const override { return deferred_; }
  Status prefetch(JobIdx j, const Placement& p, Seconds by, std::string reason) override;
  // The model's relative speed, times (n/gpus)^alpha for an elastic job on n GPUs.
  double speed_on(const JobRuntime& r, const Placement& p) const override;
  std::optional<Placement> place_sized(const JobRuntime& r, int n,
                                       GpuModelId model = kNoGpuModel) const override;
  ClusterState& scratch() override { return state_; }
  Status move(JobIdx j, Placement to, Decision::Kind kind, Seconds cost,
              std::string reason) override;
  Status start_job(JobIdx j, Placement p) override;
  void report_internal(JobIdx j, std::string message) override;
  // Guests (engine_guests.cpp; policy/lend_idle.h). A guest is kRunning with its one slot
  // in JobRuntime::placement but holds nothing: it is in none of running_, running_by_end_,
  // node_jobs_ or the cluster state, only in guests_ (guest → host).
  const std::map<JobIdx, JobIdx>& guests() const override { return guests_; }
  Status start_guest(JobIdx j, JobIdx host, Slot slot, std::string reason) override;
  bool recall_guest(JobIdx j, std::string reason) override;
  bool is_guest(JobIdx j) const { return !guests_.empty() && guests_.count(j) != 0; }
  // Host j stops or moves: its guests are recalled first (`reason`).
  void drop_guests(JobIdx host, const char* reason);
  // Where decisions made now go: this cycle's (inside schedule()) or the next one's.
  std::vector<Decision>& sink() { return in_cycle_ ? out_ : queued_; }
  // A guest ended by itself (finish()).
  void end_guest(JobIdx j);
  // check_invariants()' part for guests.
  std::string check_guests() const;

  // The steps of one cycle, in schedule()'s order.
  // Deferred jobs now due enter the queue; LAS demotions and starvation marks fall due.
  void release_due(Seconds now);
  // Preempt point: checkpoint-first plugins signal victims (they stop when their grace
  // ends); others stop them tentatively. Returns those, each with its state before the stop.
  std::vector<std::pair<JobIdx, JobRuntime>> preempt_point(Seconds now);
  // Queue walk: Filter → Place → Size → PostFilter for each pending job in QueueSort order;
  // then the tentative victims nobody displaced resume and the rest are reported.
  void walk(Seconds now, std::vector<std::pair<JobIdx, JobRuntime>>& victims);
  // The bounded walk of one cycle (EngineOptions::walk_limit; `limit` 0: unbounded): the
  // first limit/2 queued jobs, then up to limit/2 from where the previous cycle's stopped.
  // next() says whether the job at `it` (the `examined`-th) is examined, moving `it` from
  // the end of the head to that point; resume(), given where the walk stopped (`stop`, the
  // first job not examined, or end()), where the next cycle's tail starts (none: right
  // after the head).
  class WalkWindow {
   public:
    WalkWindow(size_t limit, std::optional<QueueKey> resume) : limit_(limit), resume_(resume) {}
    bool next(const std::set<QueueKey>& pending, std::set<QueueKey>::const_iterator& it,
              size_t examined);
    std::optional<QueueKey> resume(const std::set<QueueKey>& pending,
                                   std::set<QueueKey>::const_iterator stop) const;

   private:
    size_t limit_;
    std::optional<QueueKey> resume_;
    bool in_tail_ = false;
  };
  // Where queued job r (not a returning victim) starts now, or nullopt; sets the
  // fragmentation block when it does not fit although enough GPUs are free.
  std::optional<Placement> placement_for(const JobRuntime& r, Candidates& c);
  // Autoscale point: size on-demand capacity to the queue (or to what plugins ask for with
  // nothing queued); release idle nodes.
  void autoscale(Seconds now);
  // Consolidate point: plans for the first queued whole-GPU jobs; appends decisions to out_.
  void consolidate(Seconds now);
  // Undoes a tentative stop: the job runs on as `before` (its GPUs re-allocated already).
  void resume(JobIdx j, const JobRuntime& before);
  // Queues the job's next LAS demotion (service counted from r.service_from); not before now.
  void schedule_demotion(JobIdx j, Seconds now);
  void apply_demotions(Seconds now);
  bool small_job(const JobSpec& s) const { return s.gpus == 0 || s.fractional(); }
  // GPUs per model that the first queued jobs need beyond free and booting capacity.
  std::vector<double> unmet_demand();

  const GpuCatalog& catalog_;
  Profile profile_;
  EngineOptions options_;
  ClusterState state_;
  NodePool pool_;
  std::vector<double> thresholds_;
  Seconds now_ = 0;

  std::vector<JobRuntime> jobs_;
  std::vector<Seconds> end_key_;    // per job: its key in running_by_end_
  std::vector<Seconds> demote_at_;  // per job: its key in demotions_ (or kNever)
  std::set<QueueKey> pending_;
  std::optional<QueueKey> walk_resume_;  // WalkWindow::resume() of the last cycle
  // The longest a job waited in the queue before a walk first examined it (seconds), and the
  // queued jobs not examined yet by when they entered the queue (stale entries — examined,
  // started or re-queued since — are skipped when read and dropped each cycle).
  Seconds max_wait_unexamined_ = 0;
  std::set<std::pair<Seconds, JobIdx>> unexamined_;
  bool unexamined_stale(const std::pair<Seconds, JobIdx>& e) const;
  std::set<QueueKey> running_;
  std::set<std::pair<Seconds, JobIdx>> running_by_end_;
  std::set<std::pair<Seconds, JobIdx>> deferred_;
  std::set<std::pair<Seconds, JobIdx>> demotions_;
  std::set<std::pair<Seconds, JobIdx>> drains_;       // signalled jobs by stop_at
  std::map<JobIdx, std::string> drain_reasons_;       // why each signalled job was signalled
  std::map<JobIdx, Seconds> requeue_holds_;           // checkpoint_requeue's holds
  std::set<std::pair<Seconds, JobIdx>> starvations_;  // pending jobs by starvation time
  std::vector<Seconds> starve_at_;                    // per job: its key in starvations_
  std::vector<std::vector<JobIdx>> node_jobs_;
  // Telemetry (engine_telemetry.cpp): per node, filled at the first reading (empty before).
  std::vector<NodeReading> readings_;
  std::vector<NodeLimit> limits_;
  std::map<JobIdx, MeasuredUse> job_use_;  // running jobs measured (erased when they end)
  // The Hold point (engine_hold.cpp): the conditions in force; waiting jobs kept out of the
  // queue (kPending, in neither pending_ nor deferred_) and why.
  std::set<std::string> conditions_;
  std::map<JobIdx, std::string> held_;
  std::map<JobIdx, JobIdx> guests_;  // running guests → their hosts
  DatasetResidency datasets_;        // engine_datasets.cpp
  bool in_cycle_ = false;            // inside schedule()
  OnDemandShape on_demand_;
  CycleState cycle_;
  size_t pending_small_ = 0;    // pending fractional or CPU-only jobs
  size_t running_movable_ = 0;  // running jobs with JobSpec::movable (Relay point)
  size_t running_elastic_ = 0;  // running jobs with elastic bounds (JobRuntime::elastic)
  int fragmentation_block_ = 0;
  uint64_t next_seq_ = 0;

  std::vector<Decision> queued_;  // decided between cycles (rejects, node-down stops)
  std::vector<Decision> out_;
  ChurnGuard churn_;
};

}  // namespace frugal
