#pragma once
// Slurm's finished-job records from jobcomp/filetxt (JobCompLoc): one line per finished
// run, space-separated Key=Value pairs. A requeued run is logged with JobState=PENDING (or
// REQUEUED) and the job's final run again under the same JobId. Times are the controller's
// local time without a zone. The records carry no GRES unless AccountingStorageTRES lists
// gres/gpu (then Tres has gres/gpu=N); frugal's own GRES log fills the gap (see below).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/slurm_types.h"
#include "model/result.h"

namespace frugal {

struct JobcompRecord {
  int64_t job_id = 0;
  std::string name;
  std::string user;  // "root" from "root(0)"
  std::string account;
  std::string state;  // COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, PENDING (requeued), ...
  std::string partition;
  std::string qos;                 // QOS; empty when the record has none
  std::vector<std::string> nodes;  // expanded NodeList; empty when it never ran
  int64_t submit_unix = 0, start_unix = 0, end_unix = 0;
  int gpus_from_tres = -1;  // gres/gpu count in Tres; -1 when Tres has none
  std::string gpu_type_from_tres;
  int exit_code = 0;
  int64_t time_limit_min = -1;  // TimeLimit in minutes; -1 when UNLIMITED or not given
  size_t line = 0;              // 1-based line of the record in its file
  bool ran() const { return !nodes.empty() && end_unix > start_unix; }
};

// Parses a jobcomp file's text. `utc_offset_s`: the controller's offset from UTC (its local
// times minus this are UTC). Errors name the line and key.
Result<std::vector<JobcompRecord>> parse_jobcomp(std::string_view text, const std::string& origin,
                                                 int64_t utc_offset_s = 0);

// frugal's GRES log, one line per run placed or observed while running:
//   JobId=<id> Start=<unix s> Nodes=<hostlist> Gres=<gres_detail per node, ';'-separated>
// e.g. "JobId=7 Start=1796014873 Nodes=gpu3 Gres=gpu:h100:2(IDX:0-1)". Keyed by (id, start).
using GresLog = std::map<std::pair<int64_t, int64_t>, std::vector<GresItem>>;
Result<GresLog> parse_gres_log(std::string_view text, const std::string& origin);
// One line of that log for a running job (its start time and gres_alloc).
std::string gres_log_line(const SlurmJob& job);

}  // namespace frugal
