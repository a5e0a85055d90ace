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

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_state.h"
#include "engine/churn_guard.h"
#include "engine/node_pool.h"
#include "framework/decision.h"
#include "framework/job_runtime.h"
#include "framework/profile.h"

namespace frugal {

struct EngineOptions {
  // Trace durations are taken as measured on this model (kNoGpuModel: no speed scaling).
  GpuModelId reference_model = kNoGpuModel;
  // Treat on-demand pools as always provisioned (no autoscaling): the static cluster.
  bool static_capacity = false;
  // Queued jobs the autoscaler looks at per cycle when sizing on-demand capacity.
  size_t autoscale_lookahead = 64;
  // Wall seconds of progress a migrated job loses (reload of its checkpoint, warm-up): its
  // new run segment starts with this much time without progress, counted as rework.
  Seconds migration_cost_s = 60;
  // Queued whole-GPU jobs (the first ones in queue order) offered to the Consolidate
  // plugin per cycle, and queue entries examined to find them.
  size_t consolidate_jobs = 4;
  size_t consolidate_examined = 16;
  // Elastic jobs (profile +elastic; JobSpec::max_gpus > gpus, whole GPUs): throughput on n
  // GPUs is n^elastic_alpha times that on one, so a job of `duration` at its requested
  // `gpus` does work W = duration * gpus^alpha and runs duration * (gpus/n)^alpha at size n.
  double elastic_alpha = 0.8;
  // Wall seconds without progress after a resize (restart on the new size, like a
  // migration). A job grows only when the time saved exceeds this.
  Seconds resize_cost_s = 30;
  // Pack-down (profile +packdown): on-demand nodes examined as donors per cycle, and
  // destination nodes examined per moved job.
  size_t pack_down_nodes = 8;
  size_t pack_down_scan = 64;
  // Soon-free (profile +soonfree): running jobs ending later than this are not walked.
  Seconds soon_free_horizon_s = 3600;
};

class Engine final : private CycleView {
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

  // One scheduling cycle at `now`. The returned reference is valid until the next call.
  const std::vector<Decision>& schedule(Seconds now);
  // Earliest time the engine needs a cycle without outside events (kNever if none).
  Seconds next_wakeup() const;
  // The earliest expected end (by runtime estimates) of a running job after `t`; kNever if
  // none. A live driver, whose jobs end when they end rather than at their estimates, runs a
  // cycle then while jobs wait: a job past its estimate may then be preempted.
  Seconds next_expected_end(Seconds t) const;

  const ClusterState& cluster() const override { return state_; }
  const JobRuntime& job(JobIdx j) const override { return jobs_[j]; }
  const Profile& profile() const { return profile_; }
  const NodePool& nodes() const { return pool_; }
  size_t pending_count() const { return pending_.size() + deferred_.size(); }
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

  // Cross-checks engine and cluster state; empty when consistent. O(jobs + cluster).
  std::string check_invariants() const;

 private:
  // CycleView
  Seconds now() const override { return now_; }
  const GpuCatalog& catalog() const override { return catalog_; }
  const std::set<std::pair<Seconds, JobIdx>>& running_by_end() const override {
    return running_by_end_;
  }
  const std::set<QueueKey>& pending() const override { return pending_; }
  const std::vector<JobIdx>& jobs_on(NodeId n) const override { return node_jobs_[n]; }
  Seconds migration_cost_s() const override { return options_.migration_cost_s; }
  std::optional<Placement> try_place(const ClusterState& state, const JobSpec& job) const override;
  GpuModelId overflow_model(const JobSpec& job) const override;
  bool can_add_capacity(const JobSpec& job) const override;

  // Resets j's runtime to a new job of `spec` arriving now (per-job arrays grow as needed).
  JobRuntime& fresh_runtime(JobIdx j, const JobSpec* spec, Seconds now);
  void enqueue(JobIdx j, Seconds now);
  void start(JobIdx j, Placement p, Seconds now);
  // running → pending (resources freed, not decided). `saved`: a signalled job's
  // checkpoint at the signal completed (else only periodic checkpoints count).
  void stop(JobIdx j, Seconds now, bool saved = false);
  // Checkpoint-first preemption: signal `j`; its GPUs free at now + grace (or sooner: its
  // JobSpec::checkpoint_grace when that is shorter).
  void signal(JobIdx j, Seconds now, Seconds grace);
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
  // Speed of j on placement p: the model's relative speed, times (n/gpus)^alpha for an
  // elastic job on n GPUs.
  double speed_on(const JobRuntime& r, const Placement& p) const;
  bool elastic(const JobRuntime& r) const { return profile_.elastic && r.elastic(); }
  // Elastic points (profile +elastic), after the queue walk: shrink elastic jobs to their
  // minimum when that lets the first blocked queued job start; grow them into idle GPUs
  // when nothing is queued and the time saved pays the resize cost.
  void elastic_shrink(Seconds now);
  void elastic_grow(Seconds now);
  // The job's placement plus the wholly free GPUs of the nodes it already runs on (up to
  // max_gpus), or nullopt when there are none: growth in place never keeps another node up
  // nor needs a new one.
  std::optional<Placement> grown_in_place(const JobRuntime& r) const;
  // Failing that, a larger placement anywhere, restarting the job there: up to max_gpus
  // when every node it adds is paid whether used or not (not an autoscaled on-demand node,
  // whose release the job would delay), otherwise only back up to its request (a job that
  // started below its request because the request did not fit). nullopt when none fits.
  std::optional<Placement> grown_elsewhere(const JobRuntime& r);
  // Time-of-use elastic sizing (profile +tou with +elastic; src/engine/tou_elastic.cpp).
  // Whether region r's on-demand rental is discounted (an off-peak hour) at trace time t.
  bool tou_cheap(uint32_t region, Seconds t) const;
  // The first whole hour after t whose off-peak state in region r is `cheap` (kNever: none
  // within 8 days).
  Seconds tou_next_hour(uint32_t region, Seconds t, bool cheap) const;
  // End of the off-peak run of hours containing t in region r (t when t is not off-peak;
  // kNever when it lasts beyond 8 days).
  Seconds tou_cheap_until(uint32_t region, Seconds t) const;
  // The first whole hour after t that is off-peak in region r (kNever: none within 8 days).
  Seconds tou_next_start(uint32_t region, Seconds t) const;
  // The next off-peak boundary (start or end) after `now` of any region with a discount
  // and on-demand pools; kNever when none within 8 days.
  Seconds tou_next_boundary(Seconds now) const;
  // Whether growing running job r to n GPUs (same model, new on-demand GPUs of its region
  // usable after `boot_s`) costs less than leaving it at its size: see tou_elastic.cpp.
  bool tou_growth_pays(const JobRuntime& r, int n, Seconds now, Seconds boot_s) const;
  // Outside off-peak hours, the most GPUs elastic job r keeps on on-demand nodes of its
  // region: its minimum when at its request it would still run at the region's next
  // off-peak start and that does not delay its end (tou_elastic.cpp), else its request
  // (tou_shrink gives back the rest; elastic growth does not take it again).
  int tou_peak_size(const JobRuntime& r, Seconds now) const;
  // The same for a job in region `home` expected to end at `end`.
  int tou_peak_size(const JobRuntime& r, uint32_t home, Seconds end, Seconds now) const;
  // The size elastic job r starts at on on-demand nodes of model m in region `home`: its
  // request, or outside off-peak hours the most GPUs on the whole nodes tou_peak_size needs
  // (a job that would give nodes back at once does not take them).
  int tou_start_size(const JobRuntime& r, GpuModelId m, uint32_t home, Seconds now) const;
  // Reference-model seconds of work job r has left (from its runtime estimate).
  double left_work(const JobRuntime& r, Seconds now) const;
  // GPUs per model that off-peak growth would take on on-demand nodes not yet up.
  std::vector<double> tou_growth_demand(Seconds now) const;
  // Outside off-peak hours: elastic jobs above their request give back whole on-demand
  // nodes they alone occupy (kResize), down to no less than their request.
  void tou_shrink(Seconds now);
  // Places j at `n` whole GPUs on `state` (a copy of its spec with gpus = n), on the Filter's
  // candidate models, or on `model` only when one is given.
  std::optional<Placement> place_sized(const JobRuntime& r, int n,
                                       GpuModelId model = kNoGpuModel) const;
  // Pack-down point (profile +packdown, autoscaled clusters, nothing queued): empties
  // on-demand nodes by migration (onto fuller nodes or idle reserved/owned ones) so the
  // autoscaler can release them (src/engine/pack_down.cpp); appends kMigrate decisions.
  void pack_down(Seconds now);
  // Relay point (profile +sun), at the relay's price ticks and only when no job is queued
  // (a relay must not take GPUs a waiting job could use): offers each running movable job
  // to the Relay plugin and carries out its moves (kMigrate) one by one.
  void relay_jobs(Seconds now);
  // Consolidate point: plans for the first queued whole-GPU jobs; appends decisions to out_.
  void consolidate(Seconds now, const std::vector<char>& victim_flag);
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
  std::set<QueueKey> running_;
  std::set<std::pair<Seconds, JobIdx>> running_by_end_;
  std::set<std::pair<Seconds, JobIdx>> deferred_;
  std::set<std::pair<Seconds, JobIdx>> demotions_;
  std::set<std::pair<Seconds, JobIdx>> drains_;       // signalled jobs by stop_at
  std::set<std::pair<Seconds, JobIdx>> starvations_;  // pending jobs by starvation time
  std::vector<Seconds> starve_at_;                    // per job: its key in starvations_
  Seconds starvation_after_ = kNever;
  std::vector<std::vector<JobIdx>> node_jobs_;
  // Per catalog model id: the shortest provisioning delay of its on-demand pools (kNever
  // when it has none); for the soon-free autoscaling rule.
  std::vector<Seconds> ondemand_delay_;
  size_t pending_small_ = 0;    // pending fractional or CPU-only jobs
  size_t running_movable_ = 0;  // running jobs with JobSpec::movable (Relay point)
  size_t running_elastic_ = 0;  // running jobs with elastic bounds (JobRuntime::elastic)
  Seconds relay_next_ = 0;      // the Relay's next price tick
  // Soon-free (+soonfree): the earliest expected end it counted on in the last autoscaling
  // step (kNever: none); next_wakeup() includes it so an overrun is noticed.
  Seconds soon_free_wake_ = kNever;
  // +tou: the next off-peak boundary (recomputed once `now` reaches it; < 0 before the first
  // cycle), and per catalog model the GPUs per node of its on-demand pools (0: none).
  Seconds tou_wake_ = -1;
  std::vector<int> ondemand_node_gpus_;
  std::vector<int> ondemand_region_;  // per catalog model: region of its first on-demand pool
  int fragmentation_block_ = 0;
  uint64_t next_seq_ = 0;

  std::vector<Decision> queued_;  // decided between cycles (rejects, node-down stops)
  std::vector<Decision> out_;
  ChurnGuard churn_;
};

}  // namespace frugal
