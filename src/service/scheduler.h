#pragma once
// The live scheduler: the engine on the wall clock behind ONE decision-loop thread.
//
// Every API operation is a command queued to the loop; the caller gets a future of its
// reply. Each turn the loop takes all queued commands at once, runs them, polls the driver
// (exits), runs an engine cycle when something changed or the engine asked to be woken,
// and commits all of it in ONE SQLite transaction before fulfilling any reply (group
// commit: an accepted submission is durable before its 201, and a job is recorded as
// running before its process is started). Then it carries out the starts through the
// driver. HTTP handler threads never touch scheduler state.
//
// Engine time is Unix time minus the cluster's epoch (ClusterSpec::epoch_unix_s), never
// decreasing; Unix time is Parts::clock's. On a ManualClock nothing happens between
// commands: each command is a turn, so a test advances the clock and then calls any method
// (its reply comes after that turn's engine cycle) to see the effect. Thread-safety: every public
// method may be called from any thread once start() has run; create/recover/start/stop from one
// thread.

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cost/run_accounting.h"
#include "drivers/driver.h"
#include "engine/engine.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "policy/runtime_predictor.h"
#include "service/alerts.h"
#include "service/auth.h"
#include "service/clock.h"
#include "service/config.h"
#include "service/job_lifecycle.h"
#include "service/job_record.h"
#include "service/live_calendar.h"
#include "service/live_storage.h"
#include "service/metrics.h"
#include "service/policy_guard.h"
#include "service/shadows.h"
#include "service/store.h"
#include "service/telemetry_book.h"
#include "service/usage_series.h"
#include "service/use_window.h"

namespace frugal {

struct ApiReply {
  int status = 200;
  nlohmann::json body;  // sent when `text` is empty
  std::string text;     // a non-JSON body (Prometheus text)
  std::string content_type = "application/json";
  // Run on the loop after the turn's engine cycle, before the commit (e.g. a submission's
  // answer shows the state the cycle gave it: queued, deferred or running).
  std::function<void(ApiReply&)> after_cycle;
};

// A submission's Idempotency-Key and the SHA-256 (hex) of the body it came with.
struct IdempotencyKey {
  std::string key;
  std::string body_sha256;
};
// How long a key is remembered (docs/API.md).
inline constexpr double kIdempotencyTtlS = 24 * 3600;

// Builds an error reply {"error": message, "field": field (when not empty)}.
ApiReply error_reply(int status, const std::string& message, const std::string& field = "");

// What GET /metrics and /v1/ledger answer from, built on the decision loop and read by the
// HTTP threads without it: so readers cost the loop at most one build per
// config.read_snapshot_s, however many there are (docs/API.md, "Freshness").
// One started job's figures in the ledger: a row of GET /v1/ledger's `jobs`, kept as plain
// values so that only the rows a request asks for are rendered as JSON.
struct LedgerJobRow {
  int64_t id = 0;
  std::string team, name, state;
  double run_s = 0, compute_usd = 0, total_usd = 0;
  double utilization = -1;  // measured, < 0 none
  // Storage: seconds its runs' GPUs were held for staging, and their cost (part of compute_usd).
  double staging_s = 0, staging_usd = 0;
};

struct ReadSnapshot {
  double at = 0;                   // the instant it describes (Unix seconds)
  std::string metrics;             // Prometheus text
  nlohmann::json ledger;           // the admin's ledger body without `jobs` (null: not ready)
  std::vector<LedgerJobRow> jobs;  // every started job in memory, ids ascending
};

// A principal's view of a snapshot's ledger: a team sees its own account and jobs; with
// `only_jobs`, the per-job list holds those jobs only (rendered for those alone).
ApiReply ledger_view(const ReadSnapshot& snap, const Principal& who,
                     const std::set<int64_t>* only_jobs = nullptr);

// One job of a GPU that other jobs' processes use too (scheduler_telemetry.cpp): its share of
// the card (1 = whole) and, for a host lending the card, what it used alone (< 0 none).
struct CardTenant {
  int64_t id = 0;
  double share = 1;
  double solo = -1;
};

class Scheduler {
 public:
  struct Parts {
    ServiceConfig config;
    GpuCatalog catalog;
    ClusterSpec cluster;  // nodes as the engine sees them (from the driver's inventory)
    std::unique_ptr<Driver> driver;
    std::unique_ptr<Store> store;
    std::function<void(const std::string&)> log;  // one line per call; thread-safe
    // Each GPU's memory as the backend reports it (NVML): node name → MiB by GPU index, 0
    // where unknown. A fractional job's memory cap is its share of this, else of the
    // catalog's figure for the model.
    std::map<std::string, std::vector<int64_t>> gpu_memory_mib;
    // The time of day the loop runs on; null: the system clock (service/clock.h).
    std::shared_ptr<const Clock> clock;
    // Crash tests: called with "decided" after a start is committed, before the launch.
    FaultHook fault;
    // Each node's power as the backend's inventory saw it (live capacity; empty: all on).
    std::map<std::string, PowerState> initial_power;
    // The storage manager (config `storage:`; null: storage off). Jobs' checkpoint folders
    // are then config.checkpoint_dir, which the caller sets to storage->checkpoint_root().
    std::unique_ptr<LiveStorage> storage;
  };
  // Builds the engine for `parts.config.policy` ("" = default_profile_name(), the `frugal`
  // profile). The tier preemption of `tiers` and `frugal` uses config.checkpoint_grace_s.
  // Error for unknown policies. Every profile runs live; parts that act on autoscaled
  // on-demand pools (autoscaling, pack-down, soon-free, time-of-use peak sizing) act where
  // the driver powers nodes (Driver::powers_nodes: Slurm with `slurm.pools`) and idle on a
  // static cluster; follow-the-sun is simulation only (docs/API.md, "Live, simulation only,
  // or both").
  static Result<std::unique_ptr<Scheduler>> create(Parts parts);
  ~Scheduler();  // stops the loop if running; running jobs keep running (adopted later)

  // Loads the store: queued jobs re-enter the engine, running ones are adopted through the
  // driver or, when gone, recorded as such and requeued. Call once, before start().
  Status recover();
  void start();  // launches the loop thread
  void stop();   // finishes the current turn and joins the loop thread

  // With a key: a key the team used in the last 24 h with the same body answers 200 with
  // the job it made (no new job); with another body 422. A refused submission records none.
  std::future<ApiReply> submit(const Principal& who, JobRequest request,
                               std::optional<IdempotencyKey> key = std::nullopt);
  std::future<ApiReply> get_job(const Principal& who, int64_t id);
  // Newest first, at most `limit` (<= 1000) jobs with ids below `cursor` (none: from the
  // newest), paged from the store (retired jobs included); next_cursor continues.
  std::future<ApiReply> list_jobs(const Principal& who, std::optional<JobStatus> state,
                                  size_t limit, std::optional<int64_t> cursor = std::nullopt);
  enum class Action { kCancel, kHold, kRelease };
  std::future<ApiReply> act(const Principal& who, int64_t id, Action action);
  std::future<ApiReply> set_tier(const Principal& who, int64_t id, Tier tier);
  // Nodes and their GPUs; a team sees the ids of its own jobs only (others' GPUs show as
  // allocated, without ids).
  std::future<ApiReply> nodes(const Principal& who);
  // Per (pool, GPU model, node state): node and GPU counts, allocated, failed and idle GPUs,
  // mean measured utilisation (GET /v1/nodes?summary=1: the dashboard above 1,000 nodes).
  // The same for every principal (no job ids).
  std::future<ApiReply> node_summary();
  // The usage series (service/usage_series.h; GET /v1/usage) over the last `window_s`: the
  // admin sees the cluster's figures and every team's burn; a team the cluster's capacity
  // figures (no cluster burn) and its own burn.
  std::future<ApiReply> usage(const Principal& who, double window_s);
  // `only_jobs`: the per-job list holds these jobs only (GET /v1/ledger?jobs=ID,...; the
  // dashboard asks for the rows it shows instead of every job's figures).
  std::future<ApiReply> ledger(const Principal& who,
                               std::optional<std::set<int64_t>> only_jobs = std::nullopt);
  // Alerts; a team sees those about its own jobs and the cluster's (AlertBook::to_json).
  std::future<ApiReply> alerts(const Principal& who);
  // Right-sizing (service/insights.h) over the jobs in memory: a team sees its own keys, the
  // admin every team's.
  std::future<ApiReply> insights(const Principal& who);
  // Regions on the real calendar: local time, weekday, holiday and off-peak state, the
  // current hour's price and carbon intensity and where the price came from
  // (LiveCalendar::status_json). Any principal.
  std::future<ApiReply> regions();
  // From the read snapshot (fresh_snapshot), off the loop unless it is stale.
  std::future<ApiReply> metrics();
  // Off the loop: what the last turn published, with loop_age_s.
  std::future<ApiReply> health();
  // Answers after the loop's next turn is done: its commands, events, cycle and the launches
  // that cycle decided (a caller that then reads the backend sees those runs).
  std::future<ApiReply> barrier();
  // The active policy (POST /v1/policy, admin): switched without a restart (switch_policy);
  // 200 {"policy", "previous"}, 400 naming `policy` or `reason`, 409 when it is already
  // active. GET /v1/policy: the active policy, where it came from, the changes (audit log),
  // and the guard's state.
  std::future<ApiReply> set_policy(const Principal& who, std::string policy, std::string reason);
  std::future<ApiReply> get_policy(const Principal& who);
  // Shadow policies (service/shadows.h; GET /v1/shadow): each shadow's figures per window
  // beside the active policy's real ones. Any principal; 404 when none is configured.
  std::future<ApiReply> shadow(const Principal& who);
  // Telemetry a node agent posted (POST /v1/telemetry): checked against the cluster and
  // kept for the loop's next telemetry sample (service/telemetry_book.h). Off the loop;
  // 202 {"accepted", "stale"}, or the refusal with its status and field.
  ApiReply ingest_telemetry(const Principal& who, TelemetryBatch batch);
  // Storage (config `storage:`; docs/API.md "Storage"; 404 when it is off). GET /v1/datasets
  // and GET /v1/storage answer on the loop from the storage reader (quick SQLite reads);
  // add_dataset (POST /v1/datasets) hashes and registers `path` as `spec` for `team` on the
  // storage worker, blocking the calling (HTTP) thread, not the loop: 201 with the dataset,
  // 400 naming `name` or `path`.
  std::future<ApiReply> datasets(const Principal& who);
  std::future<ApiReply> storage_view(const Principal& who);
  ApiReply add_dataset(const Principal& who, const std::string& spec, const std::string& path,
                       const std::string& team);

 private:
  struct Live {
    JobRecord rec;
    std::unique_ptr<JobSpec> spec;  // stable: the engine keeps a pointer
    static constexpr JobIdx kNone = ~JobIdx{0};
    JobIdx idx = kNone;     // current engine index (a new one per re-entry)
    Placement placement;    // while running
    bool draining = false;  // signalled; the engine holds its GPUs until the grace ends
    bool exited = false;    // process ended while the engine still counts it running
    // A kMigrate/kResize in progress: the engine already holds this new placement; the old
    // run segment (rec.handle, rec.placement, `placement`) is being stopped with the
    // checkpoint plan. Its exit starts the next segment here (restart_count + 1). Only in
    // memory: until that exit the store records the old segment, which is what runs.
    std::optional<Placement> move_to;
    // Measured by telemetry (not stored): GPU memory its processes used at the latest
    // sample that mapped them, MiB (< 0 unknown), and the GPUs they ran on.
    int64_t gpu_memory_mib = -1;
    std::vector<std::pair<std::string, int>> measured_gpus;
    // Its latest measured utilisation, when it was measured, and since when it has been
    // below alerts.job_idle.below (< 0: it is not), Unix s.
    double last_utilization = -1;
    double measured_at = -1;
    double idle_since = -1;
    // Its mean measured use over the window at its latest sample alone on its cards (no
    // other job's processes there), < 0 none yet: what a host keeps of a card it lends.
    double solo_use = -1;
    int64_t card_memory_mib = 0;  // memory of a GPU it was measured on (0 unknown)
    UseWindow use;                // this run's measured use, for the engine (use_rules())
    // A guest on measured idle (policy/lend_idle.h): its host's job id while it runs as one,
    // else 0. Stored in its placement's JSON ("guest_of").
    int64_t guest_of = 0;
    // Shadows (scheduler_shadow.cpp): whether they were told of this job, and the work its
    // run segments did so far, in reference-model seconds (what a shadow run lasts).
    bool in_shadow = false;
    double work_ref_s = 0;
    // Storage: its staging figures are in `rec` (stored; JobRecord::stage_s, staging_usd).
  };
  struct Command {
    std::function<ApiReply()> fn;
    std::promise<ApiReply> done;
    bool after_launches = false;  // answered at the end of its turn (barrier())
  };

  explicit Scheduler(Parts parts, Profile profile);
  // The engine profile of `policy` as the service runs it: live_profile() plus the
  // telemetry plugins the config asks for (node health, sharing, the general-tier pause).
  static Result<Profile> engine_profile(const std::string& policy, const ServiceConfig& c);
  // Makes `to` the active policy now (scheduler_policy.cpp): a new engine takes over the
  // cluster (failed nodes, on-demand power, running jobs adopted where they run, guests and
  // jobs being checkpointed stopped and requeued, waiting jobs queued again), the change is
  // stored with the next commit (audit log), logged and alerted. Error when `to` does not
  // parse (nothing changes then).
  Status switch_policy(const std::string& to, const std::string& by, const std::string& reason,
                       double now);
  // switch_policy's parts: failed nodes and on-demand power as `old` sees them into `next`;
  // the jobs into the new engine_ (running ones adopted, waiting ones queued), returning how
  // many of each.
  void carry_nodes(const Engine& old, Engine& next, Seconds t) const;
  std::pair<size_t, size_t> carry_jobs(const std::string& to, double now);
  // The policy guard's check (shadow_turn): falls back when its rule says so.
  void check_guard(double now);
  std::future<ApiReply> enqueue(std::function<ApiReply()> fn, bool after_launches = false);
  void loop();
  void turn(std::deque<Command>& batch);
  // flush() inside one transaction; false when it failed (a full disk: the commit_failing
  // alert; what it held stays to be written, retried at most once a second unless
  // `now_or_never`, at shutdown).
  bool commit_group(bool now_or_never = false);
  // While commits fail or the disk is short of space: the 507 refusing a change.
  std::optional<ApiReply> refuse_change() const;
  bool read_only() const { return commit_failing_ || !disk_low_.empty(); }
  size_t pending_writes() const {
    return dirty_.size() + segments_out_.size() + transitions_out_.size() +
           idempotency_out_.size() + policy_out_.size() + usage_out_.size();
  }
  double wall_now();
  Seconds engine_time(double unix) const {
    return unix - static_cast<double>(cluster_.epoch_unix_s);
  }
  double unix_time(Seconds t) const { return t + static_cast<double>(cluster_.epoch_unix_s); }

  // Loop-thread helpers.
  // The engine's view of a job; with no estimate given, its runtime predicted (predictor_).
  std::unique_ptr<JobSpec> make_job_spec(const JobRecord& r) const;
  // A completed job's run teaches the predictor (one-piece runs only).
  void learn_runtime(const JobRecord& r, const JobSpec& spec);
  // A kForeign event: records the job (team kExternalTeam) and adopts it, pinned, in the
  // engine (scheduler_foreign.cpp).
  void observe_foreign(const DriverEvent& e, double now);
  Live* find(const Principal& who, int64_t id);
  // For a job not in memory: 409 when the store has it (it ended), else 404.
  ApiReply not_in_memory(const Principal& who, int64_t id) const;
  // A stored job's JSON (as job_json) for one retention took out of memory.
  nlohmann::json record_json(const JobRecord& rec, double now) const;
  // Retention (service/scheduler_retention.cpp), at most once a minute after a commit.
  void retention(double now);
  void remove_old_logs(double finished_before);
  void remove_empty_checkpoint_dir(int64_t id) const;
  void enter_engine(Live& l, double now);  // (re)submits the job under a new index
  void mark(Live& l) { dirty_.push_back(l.rec.id); }
  // Moves the job by `event` (service/job_lifecycle.h) and sets its reason; the transition is
  // persisted with the job's row. An event the lifecycle does not allow changes neither
  // state nor reason: it is logged ("not a transition of the job lifecycle") and raises the
  // alert job_lifecycle — a bug, which the service tests look for in the log.
  void transition(Live& l, JobEvent event, std::string reason, double now);
  // The job was born in its current state (`how`: "submit" or "observe").
  void record_birth(const Live& l, const char* how, double now);
  Status flush();  // put_job for every dirty record (inside a transaction); keeps them
  void flushed();  // after the commit: forgets what flush() wrote
  // Free space on the database's and the log folder's file systems (at most once a second):
  // sets disk_low_ and the disk_low alert (service/scheduler_disk.cpp).
  void check_disk(double now);
  Status purge_idempotency();  // drops expired keys, at most hourly (inside a transaction)
  void close_segment(Live& l, double now);
  // A node's kNodeUp / kNodeDown.
  void node_event(const DriverEvent& e, double now);
  // Live capacity (service/scheduler_capacity.cpp): the inventory's power states into the
  // engine (before recovery adopts runs), kProvision / kRelease to the driver, kPower events.
  std::optional<NodeId> node_named(const std::string& name) const;
  void apply_initial_power(double now);
  void apply_power_decision(const Decision& d);
  void power_event(const DriverEvent& e, double now);
  // How a kPreempt stops a run: stop_plan(l, false), or on a node under a spot reclaim notice
  // checkpoint-first with a grace of at most the notice.
  StopPlan preempt_plan(const Live& l) const;
  // Shadows (scheduler_shadow.cpp): a new job, a job's real end (after transition() to a
  // final state), the active policy's real figures per window, the frugal_shadow_* metrics.
  // Speed of GPU model `m` relative to the engine's reference model, for a job of `c`.
  double reference_speed(GpuModelId m, JobClass c) const;
  void shadow_submit(Live& l, double now);
  // Each turn after the engine's cycle: the shadows to `now`, the live ledger's hourly mark.
  void shadow_turn(double now);
  void shadow_ended(Live& l, double now);
  WindowFigures real_figures(double now) const;
  void real_ledger_window(ShadowFigures& f, double from, const LedgerReport& ledger) const;
  void render_shadow_metrics(double now, std::string& out) const;
  // frugal_pool_gpus{pool, state}: provisioned, booting and idle GPUs per pool.
  void render_pool_metrics(std::string& out) const;
  // The per-GPU, per-job and per-team gauges (service/gpu_metrics.h) from telemetry_ and the
  // running jobs.
  void render_telemetry_metrics(std::string& out) const;
  // The job id a kExited / kLost event is about (0: none known).
  int64_t event_job(const DriverEvent& e) const;
  // `starts`: jobs whose new run segment begins (a moved job's old segment ended).
  void handle_event(const DriverEvent& e, double now, std::vector<int64_t>& starts);
  // Carries out kMigrate/kResize: stops the running segment, the exit relaunches it.
  void move(Live& l, const Decision& d);
  // The moved job's old segment ended: its next one starts on `move_to`.
  void begin_moved_segment(Live& l, double now, std::vector<int64_t>& starts);
  // True when a GPU of `p` is still used by the old segment of a job being moved (a start
  // there waits for that exit).
  bool gpus_in_transit(const Placement& p) const;
  void apply(const Decision& d, double now, std::vector<int64_t>& starts);
  // Stops a run found at recovery that is not adopted (its stop sequence, as a preemption's).
  void stop_found_run(Live& live, const Placement& placement);
  LaunchSpec launch_spec(const Live& l) const;  // what the driver runs (no slots if waiting)
  void launch(Live& l, double now);
  // A decided start that cannot be launched: the job fails with `why` (its GPUs are freed).
  void fail_launch(Live& l, double now, const std::string& why);
  // Storage (scheduler_storage.cpp). A submission's datasets: the 400 refusing them (storage
  // off, or one not registered), else nullopt.
  std::optional<ApiReply> check_datasets(const JobRequest& r) const;
  // Whether job l's decided run may launch now: true when it needs nothing from storage or its
  // preparation (datasets staged, checkpoint restored) is done; else the preparation is posted
  // or under way (storage_turn() hands it back to launch_started), or it failed (the job is
  // failed here).
  bool storage_ready(Live& l, double now);
  // Each turn: finished preparations back to the launch queue, the lifecycle every
  // storage.lifecycle_interval_s, tier alerts (storage_tier_unavailable).
  void storage_turn(double now);
  void storage_alerts(double now);
  // A finished preparation of job l's current run segment: the last run's stage_s/restore_s
  // and, added to staging_s and staging_usd, its seconds and what the held GPUs cost over
  // them (Ledger::quote from the segment's start, at the utilisation its segments are priced).
  void charge_staging(Live& l, const StoragePrep& p);
  // Per team, staging_usd over its jobs (those in memory and those retention took out): a
  // part of the team's compute (rental + energy), never added beside it.
  std::map<std::string, double> staging_by_team() const;
  // A run segment closed: its datasets released, its checkpoint folder scanned (worker).
  void storage_run_ended(const Live& l, double now);
  // The prepared run's environment: FRUGAL_DATASET_DIR(S), FRUGAL_SHARD_INDEX/COUNT.
  void storage_env(const Live& l, LaunchSpec& s) const;
  // The engine's dataset residency (Engine::dataset_resident): what a preparation staged or
  // evicted; every dataset's nodes at start and after a policy switch (a new engine).
  void storage_residency(const StoragePrep& p);
  void seed_residency();
  // kPrefetch: the job's datasets staged on the decision's node ahead of its planned start.
  void storage_prefetch(const Live& l, const Decision& d, double now);
  // The turn's decided starts (`starts`, then those that waited for GPUs in transit) still
  // to launch: launched, or kept waiting (blocked_launches_) while their GPUs are in transit.
  void launch_started(std::vector<int64_t>& starts, double now);
  StopPlan stop_plan(const Live& l, bool checkpoint_first) const;
  // A stop without a checkpoint: SIGTERM now, SIGKILL after term_grace_s (a cancel, or a
  // stopped run found still alive after a restart: its checkpoint time is over).
  StopPlan kill_plan(const Live& l) const;
  // After a restart: a job's stopped run still alive is stopped again and waited for.
  void resume_stop(Live& l);
  // recover()'s parts (scheduler_api.cpp). What became of one stored job.
  enum class Recovered {
    kKept,      // ended or held: in jobs_ only
    kQueued,    // waiting: back in the engine's queue
    kAdopted,   // running: adopted in the engine with its run
    kObserved,  // external and running, its GPUs taken in the engine: recorded only
    kEnded,     // external, its run gone: ended
    kRequeued,  // its run lost: requeued
  };
  // The runtime predictor learns from the stored completed jobs, in completion order.
  void learn_completed(const std::vector<JobRecord>& stored);
  Recovered recover_job(JobRecord rec, double now);
  Recovered recover_running(Live& l, double now);
  // Whether the backend still has the job's run; sets its handle when the driver found it.
  bool find_run(JobRecord& r);
  // The found run adopted at `placement` in the engine; nullopt when it no longer fits
  // there (the run is then being stopped).
  std::optional<Recovered> adopt_run(Live& l, const Placement& placement, double now);
  // The ledger's index of job `id` (ids start at 1 and are never reused).
  static JobIdx ledger_index(int64_t id) { return static_cast<JobIdx>(id - 1); }
  // The job's measured utilisation for pricing (clamped to [0, 1]), -1 when none was measured.
  static double measured_utilization(const Live& l);
  // Capacity nobody held, priced from the last turn to `now` (the state before this turn's
  // changes).
  void account_capacity(double now);
  // The run accounting rebuilt from the store (start()): every stored segment, then the end
  // of every job that ended.
  Status rebuild_accounting();
  // `guest_of` > 0: a guest's placement (scheduler_guests.cpp), its host's job id kept.
  std::string placement_json(const Placement& p, int64_t guest_of = 0) const;
  // The host's job id a stored placement names ("guest_of"), or 0.
  static int64_t guest_host(const std::string& placement_text);
  // Prices run segment [t0, t1) of job l on `p` into `acc`: a guest's as its share of its
  // host's card (RunAccounting::guest_segment), any other's as RunAccounting::segment.
  void account_segment(RunAccounting& acc, const Live& l, const Placement& p, double t0, double t1,
                       double kept_s) const;
  // A guest's launch: its memory limit beside its host's measured peak (sharing.memory_below)
  // and FRUGAL_GUEST_OF.
  void guest_limits(const Live& l, LaunchSpec& s) const;
  // One GPU's readings for /v1/nodes: a process's job only where `who` may see the job.
  nlohmann::json telemetry_json(const GpuTelemetry& t, const Principal& who) const;
  std::optional<Placement> parse_placement(const std::string& json) const;
  nlohmann::json job_json(const Live& l, double now) const;
  // The live accounting as if every open run segment ended at `now` and capacity were priced
  // up to it (a copy; accounting_ must be set). Costly: O(jobs).
  RunAccounting accounting_at(double now) const;
  // The admin's ledger body as of `now` without its `jobs`, whose figures go to `jobs` (every
  // started job, each with its team); null before the accounting is rebuilt. Costly: O(jobs).
  nlohmann::json ledger_json(double now, std::vector<LedgerJobRow>& jobs);
  std::string metrics_text(double now, const nlohmann::json& ledger);
  // Reads served off the loop (see ReadSnapshot): the newest snapshot if at most
  // config.read_snapshot_s old, else one the loop builds (one build for all waiting readers);
  // null when the loop did not answer in 30 s.
  std::shared_ptr<const ReadSnapshot> fresh_snapshot();
  void publish_snapshot(double now);  // loop: builds and publishes a ReadSnapshot
  void publish_health(double now);    // loop: every turn
  // Telemetry (service/scheduler_telemetry.cpp): the driver's readings and the agents'
  // reports into telemetry_, node_seen_, jobs' measured use and the alert rules.
  void sample_telemetry(double now);
  // The running jobs by the nodes of their placements' GPUs (ids ascending) and by Slurm job
  // id (from their run handles), for fold_job_use. O(running jobs); valid while no job
  // starts, ends or moves.
  struct RunningIndex {
    std::unordered_map<std::string, std::vector<int64_t>> by_node;
    std::map<std::string, int64_t> by_slurm;
  };
  RunningIndex running_index() const;
  // Folds one set of GPU readings into the measured use of the running jobs on them: a
  // job's GPUs are those its processes were seen on (by frugal or Slurm job id), else its
  // placement's. Visits only the jobs placed on the readings' nodes or named by their
  // processes (`index`, built since the last start, end or move), in id order.
  void fold_job_use(const std::vector<GpuTelemetry>& readings, double at,
                    const RunningIndex& index);
  // The jobs `ids` whose processes share GPU `key` (node name, index), with their shares
  // there and a lending host's solo use.
  std::vector<CardTenant> card_tenants(const std::pair<std::string, int>& key,
                                       const std::vector<int64_t>& ids) const;
  // One measurement of job l at `at`: `own` (its part of its cards) is its latest,
  // idle_since and its mean (what the ledger prices); `load` (what its cards do: the
  // engine's lend and recall rules) goes into its window (Live::use) and the engine
  // (Engine::observe_job); `alone` (no other job on its cards) updates its solo_use.
  void note_measured(Live& l, double own, double load, bool alone, double at);
  // The measured-use window: sharing.window_minutes with `sharing:`, else one period.
  UseWindow::Rules use_rules() const;
  // The alert rules' view of running jobs measured lately (job_idle).
  std::vector<AlertBook::JobView> job_views(double now) const;
  // The opt-in reaction to job_idle: jobs idle for alerts.job_idle.requeue_after_minutes are
  // checkpointed and requeued (Engine::checkpoint_requeue) while other jobs wait.
  void requeue_idle(double now);
  // The spend rates at `now` for budget_burn (service/scheduler_budget.cpp); cluster < 0 when
  // the rule is off or the accounting is not ready.
  BurnRates burn_rates(double now) const;
  // The spend rates at `now` as budget_burn prices them (burn_rates) into `r`: burn_usd_h,
  // idle_usd_h (provisioned GPUs nobody holds) and teams_usd_h. accounting_ must be set.
  void spend_rates(double now, UsageReading& r) const;
  // The usage series' reading at `now` (service/scheduler_usage.cpp), at most every
  // min(telemetry_period_s, usage_interval_s); closed buckets go to usage_out_.
  void sample_usage(double now);
  // The general-tier pause (service/scheduler_pause.cpp; config pause_general): the active
  // alerts as the engine's conditions, the general_paused alerts, requeue_running; its state
  // for GET /v1/policy and its gauges.
  void pause_turn(double now);
  nlohmann::json pause_json(const Principal& who) const;
  void render_pause_metrics(std::string& out) const;
  // Telemetry into the engine (service/scheduler_health.cpp): each node's newest readings
  // (telemetry_) as Engine::observe_node — the node-health plugin's limits, node_hot alerts.
  void observe_nodes(double now);
  // The regions' series follow the real clock (calendar_); price_series_stale alerts.
  void update_calendar(double now);
  void fatal(const std::string& what);

  ServiceConfig config_;
  std::shared_ptr<const Clock> clock_;
  GpuCatalog catalog_;
  ClusterSpec cluster_;
  RuntimePredictor predictor_;  // live runtime prediction (docs/API.md, estimate_s)
  std::map<std::string, std::vector<int64_t>> gpu_memory_mib_;  // Parts::gpu_memory_mib
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<Store> store_;
  std::function<void(const std::string&)> log_;
  FaultHook fault_;
  // The engine of the active policy; replaced whole by a policy change (switch_policy()).
  std::unique_ptr<Engine> engine_;
  // The live run accounting (src/cost/run_accounting.h): every closed run segment, every job
  // end and the capacity between turns, the same feed the simulator gives its ledger.
  std::optional<RunAccounting> accounting_;
  Seconds accounted_until_ = 0;  // engine time capacity is priced up to
  // Shadow policies (null: none configured) and the live ledger at hourly marks, for the
  // real figures' windows: Unix s, total and waste (usd), GPU-hours in all and idle.
  std::unique_ptr<ShadowSet> shadows_;
  std::unique_ptr<PolicyGuard> guard_;       // config policy_guard (null: none)
  std::vector<PolicyChangeRow> policy_out_;  // policy changes to store with the next commit
  std::vector<std::array<double, 5>> real_marks_;
  AlertBook alerts_;
  std::unique_ptr<LiveCalendar> calendar_;
  double earliest_ = 1e300;      // oldest submission or run start known (Unix s)
  double next_stale_check_ = 0;  // when price_series_stale is next evaluated
  bool calendar_error_logged_ = false;

  // Loop state (loop thread only, or before start()).
  std::map<int64_t, Live> jobs_;
  std::vector<int64_t> by_idx_;  // engine index → job id
  // Specs of submissions refused at admission (no entry in jobs_): the engine keeps a
  // pointer to each under its index, so they live as long as the engine.
  std::vector<std::unique_ptr<JobSpec>> rejected_specs_;
  JobIdx next_idx_ = 0;
  int64_t next_id_ = 1;
  std::vector<int64_t> dirty_;
  std::vector<SegmentRow> segments_out_;        // ended segments to persist with the next flush
  std::vector<TransitionRow> transitions_out_;  // state changes to persist with it
  // Idempotency-Keys of the last 24 h by (team, key), those to persist with the next flush,
  // and when the stored ones were last purged of expired keys.
  std::map<std::pair<std::string, std::string>, IdempotencyRow> idempotency_;
  std::vector<IdempotencyRow> idempotency_out_;
  double idempotency_purged_at_ = 0;
  // Decided starts waiting for gpus_in_transit(); jobs with a move_to (old segment running);
  // (deferred_until, job) of deferred jobs, set back to queued when the wait ends.
  std::vector<int64_t> blocked_launches_;
  std::set<int64_t> moving_;
  // Jobs whose preempted run has not exited yet (rec.stopping_handle): the GPUs it holds.
  std::map<int64_t, Placement> stopping_runs_;
  std::set<std::pair<double, int64_t>> deferrals_;
  bool engine_dirty_ = true;
  double last_now_ = 0;
  double started_at_ = 0;
  // Read snapshots (fresh_snapshot): the newest, a build under way, and /healthz's body,
  // republished each turn. Guarded by read_mu_ (HTTP threads and the loop).
  std::mutex read_mu_;
  std::shared_ptr<const ReadSnapshot> read_snapshot_;
  std::shared_future<ApiReply> read_pending_;
  nlohmann::json health_;
  double last_turn_at_ = 0;
  uint64_t snapshots_ = 0;  // read snapshots built (loop only)
  // Disk: why it is short of space ("" when not), when last checked; a commit failing.
  std::string disk_low_;
  double disk_checked_at_ = -1e18;
  bool commit_failing_ = false;
  // Retention: when it last ran; specs of evicted jobs (the engine and the ledger keep
  // pointers to them); how many jobs left memory.
  double retention_at_ = 0;
  std::vector<std::unique_ptr<JobSpec>> retired_specs_;
  uint64_t evicted_ = 0;
  double commit_retry_at_ = 0;
  // Answers of commands whose effects are not stored yet (commits failing).
  struct Held {
    std::promise<ApiReply> done;
    ApiReply reply;
  };
  std::vector<Held> held_;
  // The usage series (GET /v1/usage), its last reading's time, buckets to store.
  UsageSeries usage_;
  double usage_sampled_at_ = -1e18;
  std::vector<UsageSampleRow> usage_out_;
  double last_telemetry_ = -1e18;
  double spend_rate_ = -1;  // the cluster's spend rate at the last sample, USD/h (< 0 unknown)
  std::vector<GpuTelemetry> telemetry_;                   // the latest reading of every GPU seen
  std::unique_ptr<TelemetryBook> pushed_;                 // agents' reports (thread-safe)
  std::map<std::string, HostLoad> host_load_;             // node → its agent's latest host load
  std::unordered_map<std::string, NodeId> node_by_name_;  // cluster_'s nodes (node_named)
  std::set<NodeId> observed_;                        // nodes whose last observe_node had a reading
  std::map<std::string, PowerState> initial_power_;  // Parts::initial_power
  std::set<NodeId> reclaiming_;                      // spot nodes under a reclaim notice
  std::map<std::string, double> node_seen_;          // node → last telemetry/heartbeat (Unix s)
  // Storage (null: off): runs whose preparation is under way (job → its segment) and those
  // prepared (kept until the run segment closes); when the lifecycle and the tier check ran.
  std::unique_ptr<LiveStorage> storage_;
  std::map<int64_t, int> preparing_;
  std::map<int64_t, StoragePrep> prepared_;
  double lifecycle_at_ = 0;
  double tiers_checked_at_ = -1e18;
  std::set<std::string> tiers_alerted_;
  // staging_usd of the jobs retention took out of memory, by team (staging_by_team()).
  std::map<std::string, double> retired_staging_usd_;
  const Engine* seeded_engine_ = nullptr;  // the engine seed_residency() last told
  // Metrics.
  LatencyHistogram decision_latency_;  // one engine cycle (schedule + applying it)
  LatencyHistogram submit_to_start_;   // acceptance → start decision
  LatencyHistogram commit_latency_;    // one group commit
  uint64_t decisions_ = 0, cycles_ = 0, accepted_ = 0, commits_ = 0;
  std::deque<std::pair<double, uint64_t>> decision_marks_;  // (time, decisions_) for rate

  // The command queue (any thread).
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Command> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace frugal
