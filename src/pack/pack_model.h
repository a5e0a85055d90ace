#pragma once
// Static-fill ("pack") experiment model, after the FGD artifact (Weng et al., ATC'23):
// GPU nodes with per-GPU free milli-GPU, and pods that arrive one by one and never leave.
//
// Units: CPU in milli-CPU, memory in MiB, GPU in milli-GPU (1000 = one card).
// A pod asks for `num_gpu` cards at `milli` each: num_gpu == 1 && milli < 1000 is a sharing
// pod, milli == 1000 whole cards, num_gpu == 0 (milli == 0) a CPU-only pod.
// GPU models are small integers (the catalog ids); `model_mask` has bit m set for each model m
// the pod accepts, 0 = any model.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace frugal::pack {

inline constexpr int kMaxGpus = 8;                // per node (openb nodes have 1, 2, 4 or 8)
inline constexpr int32_t kMilli = 1000;           // milli-GPU per card
inline constexpr int32_t kMaxPodsPerNode = 1001;  // the artifact's node "pods" capacity

struct NodeSpec {
  std::string name;
  int64_t cpu = 0;
  int64_t mem = 0;
  int num_gpu = 0;  // 0..kMaxGpus
  int model = -1;   // catalog id; -1 for a CPU-only node
};

struct Pod {
  std::string name;
  int64_t cpu = 0;
  int64_t mem = 0;
  int num_gpu = 0;
  int32_t milli = 0;        // per card; 0 for CPU-only pods
  uint64_t model_mask = 0;  // 0 = any model
  std::string model_key;    // the trace's gpu_spec text ("" = any); orders typical-pod ties

  int64_t total_milli() const { return static_cast<int64_t>(num_gpu) * milli; }
  bool sharing() const { return num_gpu == 1 && milli < kMilli; }
};

// The mutable state of one node during a fill.
struct NodeState {
  int64_t cpu_left = 0;
  int64_t mem_left = 0;
  int32_t pods = 0;
  int num_gpu = 0;
  int model = -1;
  std::array<int32_t, kMaxGpus> free{};  // free milli per card, device-index order
  // Pods on the node by GPU affinity tag: [0] sharing, [k] k whole cards (k = 1..8).
  std::array<int32_t, kMaxGpus + 1> affinity{};
  uint32_t version = 1;  // bumped on every placement (cache key)
  double frag = 0;       // F(node): fragment milli-GPU w.r.t. the typical pods (cached)

  int64_t gpu_left() const {
    int64_t s = 0;
    for (int g = 0; g < num_gpu; ++g) s += free[static_cast<size_t>(g)];
    return s;
  }
  int fully_free() const {
    int n = 0;
    for (int g = 0; g < num_gpu; ++g) n += free[static_cast<size_t>(g)] == kMilli;
    return n;
  }
  int affinity_kinds() const {
    int n = 0;
    for (int32_t c : affinity) n += c > 0;
    return n;
  }
};

NodeState initial_state(const NodeSpec& spec);

// True when a node of model `model` may host a pod with `mask` (the artifact's
// IsNodeAccessibleToPodByType: an empty list accepts any model, a CPU node no GPU pod).
inline bool model_ok(uint64_t mask, int model) {
  if (mask == 0) return true;
  if (model < 0) return false;
  return (mask >> model) & 1u;
}

// Affinity tag index of a GPU pod (see NodeState::affinity); -1 for CPU-only pods.
inline int affinity_tag(const Pod& p) {
  if (p.num_gpu == 0) return -1;
  if (p.sharing()) return 0;
  return p.num_gpu <= kMaxGpus ? p.num_gpu : kMaxGpus;
}

}  // namespace frugal::pack
