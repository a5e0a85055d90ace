#pragma once
// The Slurm backend: frugal decides, Slurm executes. Each run the engine starts becomes a
// Slurm batch job submitted held, then pinned to the engine's placement (node list, GRES
// type and count, or gres/shard for a fraction) and released. Preemption signals the job
// for a checkpoint, waits the grace, then requeues it held in Slurm (same Slurm id,
// restarts+1); the next start of that frugal job re-places and releases it.
//
// One worker thread owns the SlurmClient: it refreshes Slurm's state every
// `poll_interval_s`, carries out queued starts and stops, and turns what changed into
// events. The Driver methods only queue work or read the last snapshot, so the service's
// decision loop never waits on Slurm. When slurmctld or slurmrestd does not answer, the
// worker retries with exponential backoff (up to `max_backoff_s`) and keeps every queued
// action; it carries out no start while its snapshot is older than `stale_after_s` (the
// staleness bound), and reports nothing it has not seen. The outage is reported once as
// kBackendDown (first failed refresh) and its end as kBackendUp.
//
// Jobs frugal did not submit (slurm_foreign.h) that run on the partition's nodes are
// reported once per run as kForeign with the GPUs they hold, and their end as kExited /
// kLost like frugal's own; the driver never signals, holds, requeues or cancels them.
// Each job frugal releases gets the Slurm priority of its tier (SlurmConfig::priority_*),
// set right after the release (Slurm takes no explicit priority while a job is held).
// Power-managed nodes (manage_power(): the service config's on-demand pools' nodes, declared
// State=CLOUD in Slurm) are powered up and down on request through Slurm's power saving
// (scontrol update State=POWER_UP / POWER_DOWN, which run the site's ResumeProgram /
// SuspendProgram); their power as Slurm shows it comes back as kPower events
// (slurm_power.h). No run is released onto a power-managed node that Slurm does not show
// up (Slurm would power it up by itself, outside frugal's accounting): it waits.
// Thread-safe: every public method may be called from any thread.

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "drivers/driver.h"
#include "drivers/slurm_client.h"
#include "drivers/slurm_power.h"

namespace frugal {

struct SlurmDriverOptions {
  SlurmConfig slurm;
  double poll_interval_s = 1;  // state refresh period when Slurm answers
  double stale_after_s = 10;   // no start on a snapshot older than this
  double max_backoff_s = 30;   // retry period cap while Slurm does not answer
  std::string gres_log;        // append one line per run seen running (slurm_jobcomp.h); "" = none
  // Names this service's jobs in Slurm: each job's comment is "<instance>:<job id>", so that
  // services with different databases never take each other's jobs.
  std::string instance = "frugal";
  std::function<void(const std::string&)> log;  // one line per call; may be empty
  double power_settle_s = 10;  // a request not yet shown by Slurm is waited for this long
  double power_hold_s = 60;    // a node whose power request failed is reported failed this long
};

class SlurmDriver final : public Driver {
 public:
  // Starts nothing; inventory() contacts Slurm first and starts the worker.
  explicit SlurmDriver(SlurmDriverOptions options);
  ~SlurmDriver() override;  // stops the worker; Slurm jobs keep running (adopted later)

  std::string name() const override { return "slurm"; }
  // The partition's nodes with their GPUs named by catalog model (config GPU map). Blocks
  // on one round trip; Error when Slurm does not answer or a GPU type is unmapped.
  Result<Inventory> inventory() override;
  // Queues the submission; returns the run's handle "slurm:<job_id>:<restart_count>" at
  // once. Error only for a placement Slurm cannot express (uneven multi-node GPUs).
  Result<std::string> start(const LaunchSpec& spec) override;
  // Queues: signal now, then after the grace requeue-held (plan.requeue) or cancel.
  Status stop(const std::string& handle, const StopPlan& plan) override;
  // Finds the job's Slurm job (by its comment "<instance>:<job_id>") running or about to run;
  // for a foreign handle ("slurm-external:<id>:<start>"), that Slurm job still in that run.
  Result<bool> adopt(const std::string& job_id, int run, const std::string& handle) override;
  std::string adopted_handle(const std::string& job_id) override;
  std::vector<DriverEvent> poll() override;
  std::vector<GpuTelemetry> telemetry() override { return {}; }  // Slurm reports none
  // Queues: a held Slurm job with begin time `until_unix` (visible in squeue as its start
  // time); the job's later start() places and releases that same Slurm job.
  void deferred(const LaunchSpec& spec, double until_unix) override;
  // Queues: cancel the job's pending (requeued, held) Slurm job, if any.
  void discard(const std::string& job_id) override;

  // Nodes must be in the inventory; their power is tracked from what inventory() saw.
  Status manage_power(const std::vector<std::string>& nodes) override;
  bool powers_nodes() const override;
  // Queue the power request; its outcome comes back as kPower events.
  void power_up(const std::string& node) override;
  void power_down(const std::string& node) override;

  // Seconds since the last snapshot Slurm answered (huge before the first). Thread-safe.
  double staleness_s() const;

 private:
  struct Run {
    std::string handle, job_id;
    int64_t slurm_id = 0;  // 0 until submitted
    LaunchSpec spec;
    bool launched = false;  // released in Slurm with its placement
    bool seen_running = false;
    bool stopping = false;
    StopPlan plan;
    double signal_at = -1, end_at = -1;  // steady seconds: when to signal / requeue or cancel
    bool signalled = false, ended = false;
    bool end_requested = false;      // requeue or cancel sent
    std::vector<std::string> nodes;  // where it was seen running
    uint64_t launch_gen = 0;         // snapshot generation when it was released
    int failures = 0;                // consecutive failed attempts of its pending action
    bool foreign = false;            // not frugal's: observed only (job_id "" until adopted)
  };
  void worker();
  bool refresh();          // true when Slurm answered
  void act(double now);    // queued starts/stops that are due
  void diff();             // snapshot changes → events
  void observe_foreign();  // new runs of foreign jobs on the partition's nodes → kForeign
  Status launch(Run& r);   // submit or reuse, place, release

  // act()'s steps, in its order: cancel discarded jobs' pending Slurm jobs (a failed one
  // stays queued), submit or re-date deferrals (likewise), then per run its due start or stop.
  void act_discards();
  void act_deferrals();
  Status defer(const LaunchSpec& spec, int64_t begin);  // held until `begin`, new or existing
  void act_launch(Run& r);  // launch(); gives up (kLost) after the third failure in a row
  void act_stop(Run& r, double now);
  void act_signal(Run& r, const SlurmJob& j, double now);  // the checkpoint signal when due
  void act_end(Run& r, const SlurmJob& j);                 // requeue-held or cancel
  // launch()'s steps: cancel the job's pending Slurm jobs that cannot take `gres`, setting
  // `*reuse` to one that can; place that one (`*reuse_restarts`: its restarts) and end any
  // earlier run on it; or submit a new one held and place it (cancelled again on failure).
  Status pick_pending(const std::string& job_id, const std::string& gres, bool one_node,
                      int64_t* reuse);
  Status place_reused(Run& r, int64_t reuse, SlurmUpdate u, const std::string& gres,
                      int* reuse_restarts);
  Status submit_placed(Run& r, const SlurmUpdate& u);
  // diff()'s steps: node usability changes, then per launched run what its Slurm job did.
  void diff_nodes();
  void diff_power();  // power-managed nodes' power changes → kPower
  void act_power();   // queued power requests
  // Whether node `name` is in the configured partition(s) (slurm.partition: a comma list).
  bool in_partition(const SlurmNode& n) const;
  // Whether every power-managed node of the run's placement is up in the snapshot.
  bool nodes_powered(const Run& r) const;
  const SlurmNode* find_node(const std::string& name) const;  // nullptr when absent
  void diff_run(Run& r);
  void diff_running(Run& r, const SlurmJob& j);
  void diff_pending(Run& r, const SlurmJob& j);
  void diff_finished(Run& r, const SlurmJob& j);
  bool ran_on_down_node(const Run& r) const;         // a node it was seen on is now down
  const SlurmJob* find_job(int64_t slurm_id) const;  // in the snapshot; nullptr when absent
  // Submits `s` held (begin time `begin_unix` when > 0) with its batch script; its Slurm id.
  Result<int64_t> submit_held(const LaunchSpec& s, int64_t begin_unix);
  void emit(DriverEvent e);
  void say(const std::string& line) const;
  double now_s() const;
  std::string comment_of(const std::string& job_id) const { return o_.instance + ":" + job_id; }

  SlurmDriverOptions o_;
  SlurmClient client_;  // worker thread only (and inventory()/adopt() before it starts)
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool quit_ = false;
  std::thread thread_;
  std::map<std::string, Run> runs_;               // by handle
  std::map<std::string, std::string> adopted_;    // job_id → handle
  std::map<std::string, std::string> node_type_;  // node → GRES type
  std::map<std::string, bool> node_usable_;       // last seen
  std::vector<SlurmJob> jobs_;                    // last snapshot
  std::vector<SlurmNode> nodes_;
  double last_ok_ = -1e18;  // steady s of the last good refresh
  double backoff_s_ = 0;
  uint64_t gen_ = 0;  // snapshots diffed so far
  std::vector<DriverEvent> events_;
  std::vector<std::pair<LaunchSpec, double>> deferrals_;  // (spec, until) to submit
  std::vector<std::string> discards_;             // job ids whose pending Slurm jobs are to go
  std::set<std::pair<int64_t, int64_t>> logged_;  // (slurm id, start) in the GRES log
  std::vector<std::pair<std::string, bool>> power_requests_;  // (node, up) to send
  PowerTracker power_;
  std::set<std::string> power_nodes_;                  // manage_power()'s nodes
  std::map<std::string, PowerState> inventory_power_;  // as inventory() saw them
  std::set<std::string> power_changed_;  // nodes whose power diff_power() reported this diff
};

}  // namespace frugal
