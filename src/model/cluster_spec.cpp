#include "model/cluster_spec.h"

namespace frugal {

int64_t ClusterSpec::region_index(const std::string& name) const {
  for (size_t r = 0; r < regions.size(); ++r)
    if (regions[r].name == name) return static_cast<int64_t>(r);
  return -1;
}

int64_t ClusterSpec::total_gpus() const {
  int64_t n = 0;
  for (const auto& node : nodes) n += node.gpus;
  return n;
}

std::vector<StorageTier> default_storage_tiers() {
  return {{"hot", 0.10}, {"warm", 0.02}, {"cold", 0.004}};
}

ClusterSpec make_single_pool_cluster(const std::string& region, const std::string& pool) {
  ClusterSpec spec;
  Region r;
  r.name = region;
  spec.regions.push_back(r);
  Pool p;
  p.name = pool;
  spec.pools.push_back(p);
  return spec;
}

ClusterSpec make_homogeneous_cluster(int64_t gpus, GpuModelId model, int gpus_per_node) {
  ClusterSpec spec = make_single_pool_cluster("default", "default");
  int64_t left = gpus;
  for (int64_t i = 0; left > 0; ++i) {
    const int here = static_cast<int>(std::min<int64_t>(left, gpus_per_node));
    NodeSpec node;
    node.name = "node-" + std::to_string(i);
    node.model = model;
    node.gpus = here;
    spec.nodes.push_back(node);
    left -= here;
  }
  return spec;
}

}  // namespace frugal
