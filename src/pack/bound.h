#pragma once
// The limit of packing: an upper bound on the GPU milli that any placement of any subset of a
// pod multiset can allocate on a node list (any order, any packer, any number of migrations).
//
// The LP, over pod classes c (pods equal in cpu, memory, num_gpu, milli, model mask; CPU-only
// pods are left out, they allocate no GPU) and node classes t (nodes equal in cpu, memory,
// cards, model; N_t nodes each), with x_ct = pods of class c on nodes of class t:
//
//   maximise   Σ x_ct · num_gpu_c · milli_c
//   subject to Σ_t x_ct ≤ count_c                                   every class c
//              Σ_c x_ct · cpu_c ≤ N_t · cpu_t, same for memory       every node class t
//              Σ_c x_ct ≤ N_t · kMaxPodsPerNode                      every node class t
//              Σ_c x_ct · num_gpu_c · w_α(milli_c) ≤ N_t · cards_t · 1000
//                                                                    every t, every α in A
//              0 ≤ x_ct ≤ N_t · k_ct, k_ct = the most pods of c one node of t holds alone
//              (cpu, memory, pod count, ⌊cards_t / num_gpu_c⌋ · ⌊1000 / milli_c⌋), and
//              x_ct only where k_ct ≥ 1 and t's model is accepted
//
// with w_α(m) = 1000 if m > 1000 − α, m if α ≤ m ≤ 1000 − α, 0 if m < α, for 0 ≤ α ≤ 500.
// Per card: if a slice larger than 1000 − α sits on it, every other slice there is smaller
// than α, so the card's weight is exactly 1000; otherwise its weights are at most its slices,
// which sum to at most 1000. So every α row holds for every real placement (α = 0 is the plain
// milli capacity); A = {0} ∪ {m : sharing sizes m ≤ 500} ∪ {1001 − m : sharing sizes
// 500 < m < 1000}. Every other constraint is a sum over the nodes of a class of a per-node
// constraint.
//
// Card patterns (pack/card_patterns.h) add what the α rows miss: that the sharing pods on one
// card are a multiset of sizes summing to at most 1000, so a card of 470 + 470 keeps 60 milli
// that no pod larger than 60 can use. Per GPU model g (its cards C_g, over all its node
// classes), with y_gπ = cards of g whose sharing pods form pattern π:
//
//              Σ_{t of g, c whole-card} x_ct · num_gpu_c + Σ_π y_gπ ≤ C_g
//              Σ_{t of g, c sharing of size s} x_ct ≤ Σ_π count_s(π) · y_gπ   every size s
//
// (a card holds whole-card pods or sharing pods, never both: a whole-card pod needs a fully
// free card). The patterns are generated, not listed: starting from one single-size pattern
// per size, each solve adds per model the pattern best at the LP's dual prices (an exact
// knapsack over the card's 1000 milli) until none has a positive reduced cost, when the value
// is that of the LP over all patterns; a round limit, if reached, adds the Lagrangian term
// (Σ_g C_g × the best reduced cost), which keeps it an upper bound.
//
// Hence the optimum of any real placement is a feasible (x, y) with the same objective, and
// the LP optimum (rounded down: placements allocate whole milli) is an upper bound.
//
// Solved with COIN-OR Clp; successive solves change only the count row bounds and restart from
// the previous basis and patterns (dual simplex), so a curve of bounds costs little more than
// one. The opt-in integer version (Cbc) makes the class LP's counts integer, without the
// patterns (a generated set of patterns is not all of them, so its integer model would not
// bound every placement), and is capped by the pattern LP.

#include <cstdint>
#include <memory>
#include <vector>

#include "model/result.h"
#include "pack/pack_model.h"

namespace frugal::pack {

class AllocBound {
 public:
  // `universe`: every pod that may be counted later (it fixes the classes).
  AllocBound(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& universe);
  ~AllocBound();
  AllocBound(const AllocBound&) = delete;
  AllocBound& operator=(const AllocBound&) = delete;

  // The class of a pod of the universe; -1 for a pod that allocates no GPU or that no node can
  // host (it never counts).
  int class_of(const Pod& pod) const;
  size_t classes() const;

  // The bound, in milli-GPU, for count[c] pods of class c (count.size() == classes()).
  // An error when the LP solver fails.
  Result<int64_t> max_alloc_milli(const std::vector<int64_t>& count);

  // The same bound for the placements that hold at least keep[c] of the count[c] pods of each
  // class c (0 ≤ keep[c] ≤ count[c]; keep.size() == classes()): with keep = the pods a packer
  // has placed and count = those that arrived, what any rearrangement of its placed pods
  // (unlimited migrations), with any of those it failed added, can allocate. The pattern LP
  // gets these lower bounds on its count rows, and, from the first such call on, one slack
  // column per size row at a cost above any pod's value, so that it stays feasible while the
  // generated patterns cannot yet hold the kept pods (the real placement is a solution with
  // no slack, so the value is still an upper bound). Calls without keep are unchanged by it
  // (the slacks never pay). The integer bound ignores keep. An error for a keep of the wrong
  // size or above count, and when no placement holds the kept pods: the LP is infeasible, or a
  // slack is still used when the column generation stops (the kept sharing pods do not fit
  // the card patterns found, which after convergence means any).
  Result<int64_t> max_alloc_milli(const std::vector<int64_t>& count,
                                  const std::vector<int64_t>& keep);

  // min(max_alloc_milli(count), Cbc's best dual bound within `seconds` on the class LP with
  // integer x_ct, ilp_dual_bound.h): still an upper bound on every real placement (a real
  // placement gives an integer x). The LP value when Cbc proves nothing in time.
  Result<int64_t> max_alloc_milli_ilp(const std::vector<int64_t>& count, double seconds);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The bound after each arrival of `sequence`, for the discretised curve: bound[i] =
// min(arrived GPU milli of pods 0..i, the LP bound for pods 0..e-1), with e the end of i's
// chunk: the arrivals whose arrived % rounds to one level (as in discretise.h) form one chunk
// when the LP bound at the level's end is not below what arrived by then (the bound is then
// exactly what arrived), and are cut into kBoundChunks equal chunks otherwise. Since the LP
// bound only grows with the pod multiset, bound[i] bounds what any placement of pods 0..i
// allocates.
//
// With options.ilp, every binding level's end also gets the integer bound
// (max_alloc_milli_ilp, options.ilp_seconds per solve), and every event of the level is capped
// by it too (the level's end holds every pod of the level, so its bound bounds each prefix).
inline constexpr size_t kBoundChunks = 8;
struct BoundOptions {
  bool ilp = false;
  double ilp_seconds = 2.0;
};
Result<std::vector<int64_t>> bound_per_event(const std::vector<NodeSpec>& nodes,
                                             const std::vector<Pod>& sequence,
                                             const BoundOptions& options = {});

}  // namespace frugal::pack
