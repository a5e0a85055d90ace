#pragma once
// Slurm's inventory as a frugal cluster: one NodeSpec per Slurm node (same name), its GPU
// model from the node's GRES type through the config's GPU map. Used by the Slurm backend
// (the engine schedules onto this spec) and by offline accounting of jobcomp records.

#include <vector>

#include "drivers/slurm_config.h"
#include "drivers/slurm_types.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"

namespace frugal {

// Builds one region ("slurm", UTC) and one owned pool ("slurm") holding `nodes` in order;
// when `partition` is not empty, only that partition's nodes. CPU and memory are tracked.
// Error names the node whose GPU type the map does not know.
Result<ClusterSpec> cluster_from_slurm(const std::vector<SlurmNode>& nodes,
                                       const SlurmConfig& config, const GpuCatalog& catalog,
                                       const std::string& partition = "");

}  // namespace frugal
