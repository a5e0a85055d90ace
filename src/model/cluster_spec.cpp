#include "model/cluster_spec.h"

namespace frugal {

int64_t ClusterSpec::total_gpus() const {
  int64_t n = 0;
  for (const auto& node : nodes) n += node.gpus;
  return n;
}

ClusterSpec make_homogeneous_cluster(int64_t gpus, GpuModelId model, int gpus_per_node) {
  ClusterSpec spec;
  spec.regions.push_back(Region{"default", "UTC"});
  spec.pools.push_back(Pool{"default", 0});
  int64_t left = gpus;
  for (int64_t i = 0; left > 0; ++i) {
    const int here = static_cast<int>(std::min<int64_t>(left, gpus_per_node));
    spec.nodes.push_back(NodeSpec{"node-" + std::to_string(i), 0, model, here, 0, 0});
    left -= here;
  }
  return spec;
}

}  // namespace frugal
