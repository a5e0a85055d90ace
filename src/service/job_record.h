#pragma once
// A job as the service keeps it: the request, its owner and where it stands. What the
// store persists (one row per job) and what GET /v1/jobs/{id} shows.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/gpu_catalog.h"
#include "model/job.h"
#include "service/job_request.h"

namespace frugal {

// The API's job states. queued/deferred/preempted wait for GPUs (preempted: stopped for
// other work or a lost run, will restart); completed/failed/cancelled are final.
enum class JobStatus : uint8_t {
  kQueued,
  kDeferred,
  kRunning,
  kPreempted,
  kCompleted,
  kFailed,
  kCancelled,
  // Its run began and ended while the service could not see how (no exit status recorded:
  // a crash, a full disk, the host rebooted): final, not run again blindly.
  kUnknown
};

std::string_view to_string(JobStatus s);
std::optional<JobStatus> parse_job_status(std::string_view s);
inline bool is_final(JobStatus s) {
  return s == JobStatus::kCompleted || s == JobStatus::kFailed || s == JobStatus::kCancelled ||
         s == JobStatus::kUnknown;
}

struct JobRecord {
  int64_t id = 0;  // assigned at acceptance, never reused
  std::string team;
  JobRequest request;
  JobStatus state = JobStatus::kQueued;
  bool held = false;             // withdrawn from the queue until released
  double submitted_at = 0;       // Unix seconds
  double started_at = -1;        // first start; < 0 never started
  double segment_start = -1;     // start of the current run segment while running
  double finished_at = -1;       // when it reached a final state
  double deferred_until = 0;     // kDeferred: when the wait ends
  int restart_count = 0;         // run segments ended by preemption or loss
  std::optional<int> exit_code;  // final: the process's exit status when known
  std::string reason;            // why it is in its state (free text)
  std::string handle;            // the driver's handle while running ("" unknown)
  std::string placement;         // JSON of the current placement while running
  double utilization = -1;       // mean GPU utilisation over telemetry samples; < 0 unknown
  int64_t utilization_samples = 0;
  // A run stopped by preemption whose process has not exited yet: its handle and placement
  // (JSON). Until it exits, its GPUs count as in use and the job's next run is not launched
  // (two copies of a job never run at once); a restart finds and kills it. "" when none.
  std::string stopping_handle;
  std::string stopping_placement;
  bool cancel_requested = false;  // a cancel is under way (survives a restart)
  bool output_truncated = false;  // its output passed max_job_output_mb and was cut there
  // Storage (config `storage:`; service/scheduler_storage.cpp). The last run's staging of its
  // datasets and of its newest checkpoint back to the hot tier, seconds (< 0: none). Over all
  // its runs: staging_s, those seconds summed (datasets + restores), and staging_usd, what its
  // GPUs cost while they were held for that staging (Ledger::quote over each run's first
  // staging_s seconds) — a part of its compute cost, not a cost beside it.
  double stage_s = -1;
  double restore_s = -1;
  double staging_s = 0;
  double staging_usd = 0;
};

// The engine's job for record `r` (times relative to `epoch`, Unix s). Its duration is the
// request's estimate (0: none; the service predicts one); `kExternalTeam` jobs are pinned.
std::unique_ptr<JobSpec> make_spec(const JobRecord& r, const GpuCatalog& catalog, double epoch);

}  // namespace frugal
