#pragma once
// One run of a Slurm job as its accounting recorded it, whatever the source (`sacct --json`,
// the jobcomp file with frugal's GRES log): the common input of `frugal import slurm`
// (drivers/slurm_import.h). A requeued job has one record per run under the same job id,
// plus one for the end of its wait when it was cancelled while pending again. Plain value.

#include <cstdint>
#include <string>
#include <vector>

#include "drivers/slurm_types.h"

namespace frugal {

struct SlurmRecord {
  std::string where;  // the record's place for messages: "jobcomp.log:3", "sacct.json: jobs[2]"
  int64_t job_id = 0;
  std::string array_id;  // "100_7" for task 7 of array job 100; empty otherwise
  std::string name, user, account, partition, qos;
  std::string state;               // COMPLETED, FAILED, CANCELLED, TIMEOUT, REQUEUED, PENDING, ...
  std::vector<std::string> nodes;  // expanded; empty when it never ran
  int64_t submit_unix = 0, start_unix = 0, end_unix = 0;  // UTC; 0 = unknown / not yet
  int64_t time_limit_s = -1;                              // < 0: none
  bool ran = false;  // it held nodes for a run from start_unix to end_unix
  // The GPUs the run held, over all its nodes: name "gpu" (whole cards) or "shard", type
  // the GRES type ("" when untyped), count. count == 0: none known.
  GresItem gres;
  std::string gres_field;  // where `gres` came from, for messages: "Tres", "GRES log", ...
};

}  // namespace frugal
