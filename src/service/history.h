#pragma once
// The service's history as a trace (`frugal history export`, docs/WHATIF.md): the jobs a
// `frugal serve` database holds that ran and ended, as JobSpecs with what happened to them
// (first start, end, restarts), for `frugal simulate`, `compare` and what-if replays.
//
// The database is opened read-only (a running service may hold it). Jobs still queued or
// running are left out (they have no end yet), and so are jobs that ended without ever
// running (cancelled while waiting: a replay cannot make a job leave the queue); both are
// counted. A job's duration is its run time over all its run segments, each converted to
// the reference model by the catalog's relative speed of the model it ran on (so a replay
// on the same cluster runs it as long as it ran); failed and cancelled jobs keep the time
// they ran. Times are trace seconds since `epoch_unix_s`: the first exported submission,
// floored to the hour (hourly price and carbon series stay aligned).

#include <string>
#include <vector>

#include "model/gpu_catalog.h"
#include "model/job.h"
#include "model/result.h"

namespace frugal {

struct HistoryOptions {
  double since_unix_s = 0;  // only jobs submitted at or after this (0: all)
  // Durations are given on this model (kNoGpuModel: as run, no conversion).
  GpuModelId reference = kNoGpuModel;
};

struct History {
  std::vector<JobSpec> jobs;  // by submission, then id
  double epoch_unix_s = 0;    // trace second 0 (0 when no job was exported)
  int unfinished = 0;         // left out: not ended when read
  int never_started = 0;      // left out: ended without running
};

// Reads `db_path`. Errors name the file: missing, not a frugal database, a schema newer
// than this build's, a stored job or segment that does not parse.
Result<History> read_history(const std::string& db_path, const GpuCatalog& catalog,
                             const HistoryOptions& options);

// A --since value: Unix seconds, or a UTC date or time (2026-11-01, 2026-11-01T08:00:00Z).
// The error quotes it.
Result<double> parse_since(const std::string& s);

}  // namespace frugal
