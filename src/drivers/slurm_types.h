#pragma once
// What frugal reads from Slurm, as plain values: nodes with their typed GRES, partitions and
// jobs. Filled by the parsers (slurm_parse.h) from slurmrestd v0.0.38 / `squeue --json` /
// `sinfo --json` output. No behaviour; copy freely.

#include <cstdint>
#include <string>
#include <vector>

namespace frugal {

// One GRES item: "gpu:a100:8", "shard:h100:3(IDX:0)", "gpu:2".
struct GresItem {
  std::string name;          // "gpu", "shard", ...
  std::string type;          // "a100"; empty when untyped
  int64_t count = 0;         //
  std::vector<int> indices;  // device indices from "(IDX:0-1,3)"; empty when not given
};

struct SlurmNode {
  std::string name;
  std::string state;               // base state, lower case: idle, mixed, allocated, down, ...
  std::vector<std::string> flags;  // upper case: DRAIN, NOT_RESPONDING, ...
  std::string reason;              // why drained/down
  std::vector<std::string> partitions;
  std::vector<std::string> features;
  int64_t cpus = 0;
  int64_t memory_mb = 0;
  std::string gpu_type;  // the GRES type of its GPUs ("" when untyped or none)
  int gpus = 0;          // configured GPUs
  int shards = 0;        // configured gres/shard (0 = none)
  int gpus_used = 0;     // whole GPUs allocated (GPUs carrying shards are not counted)
  // Whether new work may be placed here: not down, drained, draining or not responding.
  bool usable() const;
};

struct SlurmPartition {
  std::string name;
  std::vector<std::string> nodes;  // expanded host list
  std::string state;               // "UP", ...
  bool is_default = false;
};

struct SlurmJob {
  int64_t id = 0;
  std::string name;
  std::string user;
  std::string partition;
  std::string state;               // PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, REQUEUED, ...
  std::string reason;              // JobHeldUser, JobHeldAdmin, BeginTime, Resources, None, ...
  std::vector<std::string> nodes;  // allocated nodes (expanded)
  std::vector<std::string> required_nodes;  // requested node list (expanded)
  std::string features;                     // constraint expression
  std::string tres_per_node;                // "gres:gpu:h100:2", "gres:shard:3"
  std::vector<GresItem> gres_alloc;         // per allocated node, in `nodes` order
  std::string comment;
  int64_t priority = 0;
  int64_t nice = 0;
  int restarts = 0;
  bool requeue = false;
  int64_t submit_time = 0, eligible_time = 0, start_time = 0, end_time = 0;  // Unix s, 0 = unset
  int exit_code = 0;

  bool pending() const { return state == "PENDING"; }
  bool running() const { return state == "RUNNING" || state == "COMPLETING"; }
  bool held() const { return reason == "JobHeldUser" || reason == "JobHeldAdmin"; }
};

}  // namespace frugal
