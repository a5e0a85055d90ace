#pragma once
// The arrival sequence of one seeded run (the artifact's SortClusterPods with shufflePod and
// TunePodsByNodeTotalResource → tuneUpPods), and the node tie-break order.
//
// Contract of tune_workload: pods are sorted by name, shuffled, then copies drawn uniformly
// with replacement from the (shuffled) list are appended while
//   total + copy.milli (per card, as the artifact does) <= ratio × capacity_milli,
// where total starts at the sum of the pods' total milli-GPU and grows by each copy's total.
// ratio <= 0 keeps the shuffled list. The random stream is std::mt19937_64(seed): it is the
// same experiment as the artifact's, statistically, not draw for draw (seed-42 draws are
// replayed from files instead, see pack_inputs.h).

#include <cstdint>
#include <vector>

#include "pack/pack_model.h"

namespace frugal::pack {

std::vector<Pod> tune_workload(const std::vector<Pod>& pods, int64_t capacity_milli, double ratio,
                               uint64_t seed);

// A random tie-break rank per node (a permutation of 0..n-1): lower rank wins a tie.
std::vector<int> random_node_ranks(size_t n, uint64_t seed);

}  // namespace frugal::pack
