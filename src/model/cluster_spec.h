#pragma once
// The platform description: regions → pools → nodes. Written in YAML (io/cluster_yaml.h),
// derived from a trace's node list (openb), or built as the quick homogeneous cluster.
// Node groups in YAML are expanded here into one NodeSpec per node.

#include <string>
#include <vector>

#include "model/gpu_catalog.h"
#include "model/units.h"

namespace frugal {

struct Region {
  std::string name;
  std::string timezone = "UTC";  // IANA name, e.g. "America/Los_Angeles"
};

struct Pool {
  std::string name;
  uint32_t region = 0;  // index into ClusterSpec::regions
};

struct NodeSpec {
  std::string name;
  uint32_t pool = 0;                 // index into ClusterSpec::pools
  GpuModelId model = kNoGpuModel;    // kNoGpuModel for CPU-only nodes
  int gpus = 0;                      // whole cards on the node (0..64)
  int64_t cpu_milli = 0;             // 0 = not tracked (CPU never limits placement)
  int64_t memory_mib = 0;            // host memory; 0 = not tracked
};

inline constexpr int kMaxGpusPerNode = 64;

struct ClusterSpec {
  std::vector<Region> regions;
  std::vector<Pool> pools;
  std::vector<NodeSpec> nodes;

  int64_t total_gpus() const;
  uint32_t region_of(const NodeSpec& n) const { return pools[n.pool].region; }
};

// The quick homogeneous cluster behind `--gpus N`: ceil(N / gpus_per_node) nodes of
// `gpus_per_node` cards (the last node holds the remainder) of `model`, in one region
// "default" (timezone UTC) and one pool "default". CPU and memory are not tracked.
ClusterSpec make_homogeneous_cluster(int64_t gpus, GpuModelId model, int gpus_per_node = 8);

}  // namespace frugal
