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
#include <map>
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

// frugal's workload distribution: the same popularity cut applied within each placement domain
// (pods with the same gpu_spec text; "" = any model) instead of over the whole list. A domain
// with s of all pods keeps its own top classes up to threshold_pct of *its* pods, with
// frequencies scaled to sum to s; the union is sorted as above and its frequencies sum to 1.
// With one domain (no gpu_spec, as on openb default) the result equals typical_pods().
// Why: model-restricted classes are rare on the whole list and the global cut drops them by
// whole domains (openb gpuspec20 keeps 6610 of 6708 unrestricted pods but 0 of 15 V100M32-only,
// 24 of 51 G3-only, 58 of 95 V100M16|V100M32 ones), yet only their models can host them, so a
// measure without them cannot see those pods being stranded there (the V100/P100-restricted
// pods that fail at low load fail for CPU on GPU-feasible nodes). An unrestricted tail class can
// go anywhere, and stays cut. `coverage` is the kept share of all pods.
TypicalPods typical_pods_per_domain(const std::vector<Pod>& pods, double threshold_pct = 95);

// The cut of each group (typical_pods with threshold_pct on the group alone), frequencies
// scaled by the group's share of `total` pods, unioned and sorted as above: the merge under
// typical_pods_per_domain (groups = domains) and frugal_typical_pods (groups = kept domains
// plus one pool).
TypicalPods typical_pods_of_groups(const std::map<std::string, std::vector<Pod>>& groups,
                                   size_t total, double threshold_pct);

}  // namespace frugal::pack
