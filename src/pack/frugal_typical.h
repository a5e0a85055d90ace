#pragma once
// frugal's workload distribution: the typical pods cut per *narrow, contended* placement domain.
//
// Contract: a pod's domain is its gpu_spec text when both
//   narrow:    the GPU models it accepts are held by nodes with at most `max_reach` (r) of the
//              cluster's GPUs, and
//   contended: the pods with that gpu_spec ask for at least min_pressure·r of all the GPU milli
//              the list asks for (their hardware is not an afterthought for them),
// and "" otherwise (any model, a model list most of the cluster satisfies, or a rare list: pooled
// with the unrestricted pods, as FGD's global cut pools everything). Each domain is cut on its
// own (typical_pods with threshold_pct over that domain's pods) and its frequencies are scaled by
// its share of all pods; the union is sorted as typical_pods() sorts and its frequencies sum to 1.
// `coverage` is the kept share of all pods.
//   * No domain of its own (no gpu_spec, or none narrow and contended): equal to typical_pods(),
//     bit for bit.
//   * max_reach ≥ 1 and min_pressure 0: equal to typical_pods_per_domain().
// Why: a restricted class that the global cut drops still matters when only a small part of the
// cluster can host it and it asks for a real part of that hardware (openb gpuspec10/20: T4-,
// P100- and V100-only pods fail for CPU on their few nodes under FGD; frugal +2..+3.7 points at
// 90–95 % arrived). Cutting every gpu_spec per domain (typical_pods_per_domain) also adds classes
// most of the cluster can host, or that ask for a few percent of their hardware; the F they add
// only perturbs FGD's coarse integer score, and on generated pod lists that cost frugal up to
// 0.38 points against FGD, up to 1.7 on held-out ones (bench/PACK_RESULTS.md §6.1).

#include <vector>

#include "pack/pack_model.h"
#include "pack/typical_pods.h"

namespace frugal::pack {

// A model list is narrow when its nodes hold at most this share of the cluster's GPUs.
inline constexpr double kNarrowDomainReach = 0.5;
// A narrow list is contended when its pods ask for at least this times its reach of all GPU milli.
inline constexpr double kContendedDomainPressure = 0.1;

// `pods` is the original pod list, `nodes` the cluster. max_reach in [0, 1], min_pressure ≥ 0,
// threshold_pct in (0, 100]. A cluster without GPUs gives every restricted list reach 0.
TypicalPods frugal_typical_pods(const std::vector<Pod>& pods, const std::vector<NodeSpec>& nodes,
                                double max_reach = kNarrowDomainReach,
                                double min_pressure = kContendedDomainPressure,
                                double threshold_pct = 95);

}  // namespace frugal::pack
