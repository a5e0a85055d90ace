#include "drivers/slurm_inventory.h"

#include <fmt/format.h>

#include <algorithm>

namespace frugal {

Result<ClusterSpec> cluster_from_slurm(const std::vector<SlurmNode>& nodes,
                                       const SlurmConfig& config, const GpuCatalog& catalog,
                                       const std::string& partition) {
  ClusterSpec spec = make_single_pool_cluster("slurm", "slurm");
  for (const SlurmNode& n : nodes) {
    if (!partition.empty() &&
        std::find(n.partitions.begin(), n.partitions.end(), partition) == n.partitions.end())
      continue;
    NodeSpec ns;
    ns.name = n.name;
    ns.cpu_milli = n.cpus * 1000;
    ns.memory_mib = n.memory_mb;
    if (n.gpus > 0) {
      const GresMapping* m = config.by_gres_type(n.gpu_type);
      if (m == nullptr)
        return Error{
            fmt::format("Slurm node {}: GPU type '{}' is not in the GPU map (slurm.gpu_map)",
                        n.name, n.gpu_type)};
      auto id = catalog.find(m->model);
      if (!id)
        return Error{fmt::format("Slurm node {}: GPU map model '{}' is not in the catalog", n.name,
                                 m->model)};
      if (n.gpus > kMaxGpusPerNode)
        return Error{
            fmt::format("Slurm node {}: {} GPUs, more than {}", n.name, n.gpus, kMaxGpusPerNode)};
      ns.model = *id;
      ns.gpus = n.gpus;
    }
    spec.nodes.push_back(ns);
  }
  if (spec.nodes.empty())
    return Error{partition.empty() ? std::string("Slurm reports no nodes")
                                   : fmt::format("Slurm partition '{}' has no nodes", partition)};
  return spec;
}

}  // namespace frugal
