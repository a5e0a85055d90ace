#pragma once
// The `frugal serve` configuration file (YAML; examples/local.yaml documents every key).
// Token secrets never appear in it: teams and the admin are given SHA-256 digests
// (`frugal hash-token TOKEN` prints one). Command-line flags override listen/db/backend.

#include <map>
#include <string>
#include <vector>

#include "drivers/slurm_config.h"
#include "model/result.h"
#include "service/capacity_pools.h"
#include "storage/storage_config.h"

namespace frugal {

struct AlertRules {
  double low_utilization_below = 0.70;  // allocated GPU busy less than this ...
  double low_utilization_minutes = 10;  // ... for this long (0: rule off)
  double gpu_memory_above = 0.95;       // memory used share (>= 1: rule off)
  double node_silent_s = 120;           // node telemetry older than this (0: rule off)
  bool deadline_risk = true;            // a pending job can no longer meet its deadline
  double job_idle_below = 0.05;         // a running job measured below this on all its GPUs ...
  double job_idle_minutes = 30;         // ... for this long (0: rule off)
  // Opt-in reaction: a job idle this long is checkpointed and requeued while other jobs wait
  // (0: never).
  double job_idle_requeue_minutes = 0;
  double job_idle_requeue_hold_s = 60;  // then held back this long: waiting jobs go first
  // A node running hot (node_hot; policy/node_health.h): a GPU above this temperature (°C)
  // or drawing more than this share of its model's peak power, for `minutes`. Both 0: off.
  double node_hot_temperature_c = 0;
  double node_hot_power_fraction = 0;
  double node_hot_minutes = 5;
  bool node_hot_stop_general = true;  // the reaction: no new general-tier work there
  // Budget burn (budget_burn; service/alerts.h, docs/API.md "Pausing the general tier"): the
  // cluster's spend rate — every provisioned GPU at the ledger's prices, allocated ones at
  // their jobs' utilisation — averaged over `minutes`, above usd_per_hour (0: not checked), or
  // a team's (its running jobs') above its limit in `teams`.
  double budget_burn_usd_per_hour = 0;
  double budget_burn_minutes = 15;
  std::map<std::string, double> budget_burn_teams;
  bool budget_burn_on() const { return budget_burn_usd_per_hour > 0 || !budget_burn_teams.empty(); }
  std::string webhook;  // http://host:port/path to POST alerts to ("": none)
};

// The general-tier pause (`pause_general:`; policy/pause_general.h, docs/API.md "Pausing the
// general tier"): while an alert of a rule in `on` is active, queued general-tier jobs are
// not started (an alert about one team, its budget_burn, pauses that team's only) and, with
// requeue_running, running ones are checkpointed and requeued; when those alerts clear, the
// pause lifts. Core and important work is never paused.
struct PauseGeneralConfig {
  bool enabled = false;
  std::vector<std::string> on;  // alert rules, each one of kPauseRules
  bool requeue_running = false;
};
// The alert rules pause_general.on may name (service/alerts.h).
inline constexpr const char* kPauseRules[] = {
    "budget_burn",       "node_hot",           "gpu_memory_high", "low_utilization",
    "node_silent",       "deadline_risk",      "job_idle",        "backend_unreachable",
    "node_power_failed", "price_series_stale", "disk_low",        "storage_tier_unavailable"};

// The team under which the service accounts for jobs it observes but did not start (jobs
// submitted to Slurm directly). Reserved: no configured team may have this name.
inline constexpr const char* kExternalTeam = "external";

// Prices for hours a region's configured price series does not cover (a live service runs
// on the real calendar; the bundled series end). Exactly one source, or none (the
// series' same-hour-of-week mean; io/live_prices.h). The file or the command's standard
// output is a price CSV like the cluster file's `prices` (docs/API.md, "Prices on the real
// calendar"); both are read again every refresh_s. A failed refresh keeps the last good
// hours and is named by the price_series_stale alert.
struct PriceFallbackConfig {
  double usd_per_mwh = -1;  // < 0: none
  std::string file;         // relative: to the config file's directory
  std::string command;      // run with /bin/sh -c
  double refresh_s = 3600;
  double timeout_s = 60;  // the command is killed after this
  bool any() const { return usd_per_mwh >= 0 || !file.empty() || !command.empty(); }
};

// Pushed telemetry (POST /v1/telemetry; service/telemetry_book.h).
struct TelemetryRules {
  double max_skew_s = 60;            // agent clock vs the service's
  double max_age_s = 3600;           // older reports are skipped
  double min_post_interval_s = 0.2;  // per node
  double stale_after_s = 60;         // a node's newest report is used this long after it came
};

// Sharing measured idle (`sharing:`; policy/lend_idle.h, docs/TELEMETRY.md): present, the
// lend plugin runs. A consenting job (lend_idle, or any general-tier one with general_lends)
// whose own measured use stayed below lend_below busy and memory_below of card memory for
// window_minutes lends its cards to queued opportunistic jobs; a guest is recalled when the
// host's newest sample is above return_above or the card's memory above memory_below.
struct SharingConfig {
  bool enabled = false;
  double lend_below = 0.5;
  double memory_below = 0.8;
  double window_minutes = 5;
  double return_above = 0.75;
  double min_headroom = 0.2;
  bool general_lends = false;
};

// The policy guard (`policy_guard:`; service/policy_guard.h, docs/WHATIF.md): when the active
// policy's shadow is worse than the fallback's shadow by more than a threshold for a whole
// window, the service switches to the fallback, alerts, and does not switch back by itself.
// A KPI with a threshold < 0 is not checked; at least one must be.
struct PolicyGuardConfig {
  bool enabled = false;
  std::string fallback;       // a policy string
  double window_s = 3600;     // the comparison holds this long before a switch
  double check_every_s = 60;  // how often it is evaluated
  // Core-tier p95 wait (first start − submit) of the jobs started over the window: worse
  // when active > fallback × (1 + x) and active − fallback > min_wait_s.
  double core_p95_wait = -1;
  double min_wait_s = 60;
  // Cost per GPU-hour of useful work over the window: worse when active > fallback × (1 + x).
  double usd_per_useful_gpu_hour = -1;
  // Deadline misses over the window: worse when active − fallback > x.
  double deadline_misses = -1;
};

// A node agent's token (`agents:`): it may only post telemetry, for `nodes` (empty: any).
struct AgentConfig {
  std::string name;
  std::string token_sha256;
  std::vector<std::string> nodes;
};

struct TeamConfig {
  std::string name;
  std::string token_sha256;
};

struct ServiceConfig {
  std::string listen = "127.0.0.1:8080";
  std::string db = "frugal.db";
  std::string backend = "local";  // local | dry-run | slurm
  std::string policy;             // engine profile; "" = default_profile_name()
  // Shadow policies (service/shadows.h): each runs its own engine on the live events with
  // simulated execution, beside the active policy's own shadow. Empty: none.
  std::vector<std::string> shadow_policies;
  // true: the shadows run on their own thread of the lowest priority, so a busy machine makes
  // them fall behind instead of slowing the decision loop; false: in the loop's turn
  // (deterministic on a fake clock). Same results either way (service/shadows.h).
  bool shadow_thread = true;
  PolicyGuardConfig policy_guard;
  double checkpoint_grace_s = 60;       // engine: a signalled job keeps its GPUs this long
  double term_grace_s = 10;             // driver: SIGTERM → SIGKILL
  std::string log_dir = "frugal-logs";  // relative: beside the database file
  std::string checkpoint_dir = "frugal-checkpoints";
  size_t max_request_bytes = 1 << 20;
  int http_threads = 32;  // handler threads (requests being handled; idle clients hold none)
  double http_read_timeout_s = 10;  // a request must arrive whole in this; also keep-alive idle
  // GET /metrics and /v1/ledger answer from a snapshot at most this old (0: always fresh,
  // one build on the decision loop per read); docs/API.md "Freshness".
  double read_snapshot_s = 5;
  // Disk: below this many MiB free on the database's or the log folder's file system, new
  // submissions get 507 and nothing new is launched (docs/API.md, "Disk space").
  int64_t min_free_mb = 1024;
  // Each job's stdout and stderr are cut at this many MiB (0: no cap); output_truncated.
  int64_t max_job_output_mb = 1024;
  // Retention (docs/API.md): finished jobs leave memory after retain_jobs_s (still in the
  // store); their logs and run files are deleted after retain_logs_s (0: kept forever).
  double retain_jobs_s = 86400;
  double retain_logs_s = 30 * 86400;
  // Queued jobs one decision cycle examines at most (EngineOptions::walk_limit; 0: all).
  size_t max_jobs_per_cycle = 1000;
  double telemetry_period_s = 5;  // how often the loop samples telemetry and checks alerts
  // The usage series (GET /v1/usage; docs/API.md "Usage over time"): buckets of this many
  // seconds (time-weighted means of readings taken at most every telemetry_period_s), kept in
  // SQLite this long.
  double usage_interval_s = 300;
  double usage_retention_s = 7 * 86400;
  // This host (local backend).
  std::string node_name = "localhost";
  bool use_nvml = true;
  std::string gpu_model;  // GPUs declared for when NVML finds none
  int gpus = 0;
  // A cluster spec file (docs/CLUSTER_SPEC.md) replacing the host inventory: a synthetic
  // cluster for the dry-run backend. Relative to the config file's directory. With the slurm
  // backend only its first region and storage tiers are used (the nodes come from Slurm).
  std::string cluster_file;
  PriceFallbackConfig price_fallback;
  // The slurm backend (docs/SLURM.md): how to reach Slurm, the GPU map, polling.
  SlurmConfig slurm;
  double slurm_poll_interval_s = 1;  // state refresh period
  double slurm_stale_after_s = 10;   // staleness bound: no start on older state
  double slurm_max_backoff_s = 30;   // retry period cap while Slurm does not answer
  std::string slurm_gres_log;        // GPUs each run held, for `frugal attribute` ("": none)
  // Live capacity (slurm.pools, service/capacity_pools.h): Slurm nodes grouped into pools with
  // a capacity type and rates; on-demand pools' nodes are powered up and down by frugal.
  std::vector<CapacityPoolConfig> capacity_pools;
  std::vector<TeamConfig> teams;
  std::string admin_token_sha256;
  std::vector<AgentConfig> agents;
  TelemetryRules telemetry;
  AlertRules alerts;
  PauseGeneralConfig pause_general;
  SharingConfig sharing;
  // The storage manager (`storage:`; storage/storage_config.h, docs/API.md "Storage"): tiers
  // as real folders (relative paths: beside the config file), datasets, the checkpoint
  // lifecycle. Absent: storage.enabled is false and jobs may not declare datasets.
  storage::StorageConfig storage;
};

// Reads and validates `path`. Errors name the file and the key at fault.
Result<ServiceConfig> load_service_config(const std::string& path);

}  // namespace frugal
