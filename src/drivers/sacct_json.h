#pragma once
// `sacct --json` output in Slurm 22.05's schema (openapi/dbv0.0.38), as SlurmRecords: one per
// entry of "jobs" (with `sacct -D`, one per run of a requeued job). Read per job: job_id,
// name, user, account, partition, qos, state.current, time.{submission,start,end,limit},
// nodes, array.{job_id,task_id}, and the GPUs from tres.allocated (else tres.requested):
// entries {"type": "gres", "name": "gpu" | "gpu:<type>" | "shard" | "shard:<type>", "count"}.
// A job ran when it has a start and held nodes (one cancelled while pending has start 0,
// or start = end and no nodes). Numbers given as 23.02's {"set", "infinite", "number"} objects are
// accepted too.
//
// Required per job: job_id, state.current, time.submission, time.start, time.end. Errors
// name the file, the job (its index in "jobs" and its job_id) and the field; a file that is
// not JSON names the line, column and byte; a non-empty "errors" array is an error quoting
// its first entry.

#include <string>
#include <string_view>
#include <vector>

#include "drivers/slurm_record.h"
#include "model/result.h"

namespace frugal {

Result<std::vector<SlurmRecord>> parse_sacct_json(std::string_view text, const std::string& origin);

}  // namespace frugal
