#pragma once
// The k8s-like filter of the artifact's scheduling cycle: NodeResourcesFit (CPU, memory and
// pod count against requests) and the Open-Gpu-Share filter (a GPU pod needs a GPU node of an
// accepted model with num_gpu cards each having free ≥ milli). CPU-only pods pass the GPU part.

#include "pack/pack_model.h"

namespace frugal::pack {

// Cards on `n` with at least `milli` free.
inline int cards_with(const NodeState& n, int32_t milli) {
  int c = 0;
  for (int g = 0; g < n.num_gpu; ++g) c += n.free[static_cast<size_t>(g)] >= milli;
  return c;
}

// The GPU part of the filter.
inline bool gpu_fits(const NodeState& n, const Pod& p) {
  if (p.milli <= 0) return true;
  if (n.num_gpu == 0 || !model_ok(p.model_mask, n.model)) return false;
  return cards_with(n, p.milli) >= p.num_gpu;
}

// CPU and GPU parts (these depend only on the pod's class, see fill_engine.h).
inline bool cpu_gpu_fits(const NodeState& n, const Pod& p) {
  return n.cpu_left >= p.cpu && gpu_fits(n, p);
}

// Memory and pod-count parts (checked live, they are not part of the pod class).
inline bool mem_pods_fit(const NodeState& n, const Pod& p) {
  return n.mem_left >= p.mem && n.pods < kMaxPodsPerNode;
}

inline bool fits(const NodeState& n, const Pod& p) {
  return cpu_gpu_fits(n, p) && mem_pods_fit(n, p);
}

}  // namespace frugal::pack
