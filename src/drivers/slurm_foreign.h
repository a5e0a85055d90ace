#pragma once
// Jobs in Slurm that this frugal service did not submit ("foreign": submitted with sbatch
// directly, or by another frugal instance): which they are and which GPUs they hold, so the
// service can count those GPUs as taken and account for them. Pure functions; thread-safe.

#include <set>
#include <string>
#include <vector>

#include "drivers/driver.h"
#include "drivers/slurm_types.h"

namespace frugal {

// True when `job` is not one of this service's jobs (its comment does not start with
// "<instance>:").
bool is_foreign(const SlurmJob& job, const std::string& instance);

// The GPU shares `job` holds on the nodes in `nodes` (other nodes are skipped), one slot per
// GPU, from its allocated GRES with device indices: gpu items give whole GPUs, a shard item
// (all of a job's shards on a node come from one GPU) gives that GPU's share,
// ceil(count × 1000 / shards_per_gpu) milli, at most 1000. A node whose item lacks indices
// contributes nothing (which GPUs it holds is unknown) and is named in `unknown`.
std::vector<SlotAssignment> foreign_slots(const SlurmJob& job, const std::set<std::string>& nodes,
                                          int shards_per_gpu, std::vector<std::string>* unknown);

// The handle of a foreign run: "slurm-external:<id>:<start_time>" (a requeued job's next run
// has another start time); parse_foreign_handle() gives (id, start_time), or (0, 0) when
// `handle` is not one.
std::string foreign_handle(const SlurmJob& job);
std::pair<int64_t, int64_t> parse_foreign_handle(const std::string& handle);

}  // namespace frugal
