#pragma once
// The typical-pod distribution (the artifact's utils.GetTypicalPods with
// isInvolvedCpuPods = true, podPopularityThreshold = 95, podIncreaseStep = 1, gpuResWeight = 0).
//
// Contract: pods are grouped by (cpu, milli per card, num_gpu, model text); groups are sorted
// by count, highest first, ties by the artifact's PodResource order *reversed* (larger cpu,
// then larger milli, then more cards, then the larger model text first). The top k groups are
// kept, where k is the smallest count whose cumulative share reaches the threshold; their
// frequencies are renormalised to sum to 1. `coverage` is the kept share before
// renormalisation (0.9526 for openb default, k = 35).

#include <cstdint>
#include <string>
#include <vector>

#include "pack/pack_model.h"

namespace frugal::pack {

struct TypicalPod {
  int64_t cpu = 0;
  int32_t milli = 0;  // per card; 0 = CPU-only
  int num_gpu = 0;
  uint64_t model_mask = 0;
  std::string model_key;
  double freq = 0;    // renormalised, sums to 1 over the list
  int64_t count = 0;  // pods in the original list with this key
};

struct TypicalPods {
  std::vector<TypicalPod> pods;
  double coverage = 0;  // share of all pods covered by `pods`, in [0, 1]
};

// `pods` is the original (untuned) pod list. threshold_pct in (0, 100].
TypicalPods typical_pods(const std::vector<Pod>& pods, double threshold_pct = 95);

}  // namespace frugal::pack
