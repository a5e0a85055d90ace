#pragma once
// The arrival sequence of one seeded run (the artifact's SortClusterPods with shufflePod and
// TunePodsByNodeTotalResource → tuneUpPods), and the node tie-break order.
//
// Contract of tune_workload: pods are sorted by name, shuffled, then copies drawn uniformly
// with replacement from the (shuffled) list are appended while
//   total + copy.milli (per card, as the artifact does) <= ratio × capacity_milli,
// where total starts at the sum of the pods' total milli-GPU and grows by each copy's total.
// When the pods already exceed ratio × capacity, random pods are dropped instead until the total
// fits (the artifact's tuneDownPods; multigpu30 is 1.3018× capacity). ratio <= 0 keeps the
// shuffled list. Up-sampling is skipped when no pod asks for GPUs (copies of CPU-only pods
// would never reach the target) and when tuning down left no pod; the result may be empty. The
// random stream is std::mt19937_64(seed): it is the same experiment as the artifact's,
// statistically, not draw for draw (seed-42 draws are replayed from files instead, see
// pack_inputs.h).

#include <cstdint>
#include <vector>

#include "pack/go_rand.h"
#include "pack/pack_model.h"

namespace frugal::pack {

std::vector<Pod> tune_workload(const std::vector<Pod>& pods, int64_t capacity_milli, double ratio,
                               uint64_t seed);

// A random tie-break rank per node (a permutation of 0..n-1): lower rank wins a tie.
std::vector<int> random_node_ranks(size_t n, uint64_t seed);

// The artifact's own draws, replayed with Go's math/rand (go_rand.h), draw for draw:
// rand.Seed(seed); one Int() (a Debugf argument); pods sorted by name then rand.Shuffle;
// up-sampling copies pods[rand.Intn(len)] from the name-sorted (unshuffled) list under the same
// stopping rule as tune_workload; `extra_draws` Int63 draws (client-go informer jitter, 10 in the
// artifact's runs, README §4.5); then rand.Perm(len(nodes)) over the nodes sorted by name gives
// each node's tie-break prefix. With seed 42 this reproduces seed42_pod_order.csv and
// seed42_node_prefix.csv exactly (tests/pack).
struct GoDraws {
  std::vector<Pod> order;
  std::vector<int> rank;  // rank[i] for nodes[i]
  GoRand after{1};        // the stream after the Perm (the random policy continues it)
};
GoDraws go_rand_draws(const std::vector<Pod>& pods, const std::vector<NodeSpec>& nodes,
                      double ratio, int64_t seed, int extra_draws = 10);

}  // namespace frugal::pack
