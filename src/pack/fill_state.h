#pragma once
// The mutable state of one static fill (fill_engine.h): node states in rank order with their
// F, the running idle and fragment totals, the per-(pod class, node) score cache, and, when
// asked to, which pods sit on which cards of each node (for migrations, migration.h).
//
// Position r holds the node of rank r, so a strict '>' scan keeps the lowest rank on ties.
// Every change to a node goes through place()/remove(), which keep the totals, F and the
// node's version (the cache key) right.

#include <cstdint>
#include <span>
#include <vector>

#include "pack/frag.h"
#include "pack/pack_model.h"
#include "pack/policy.h"

namespace frugal::pack {

// A placed pod: its index in the sequence and its cards.
struct Placed {
  uint32_t pod = 0;
  GpuChoice cards;
};

class FillState {
 public:
  // `metric` gives the recorded fragmentation; `scoring` (may be null: the metric) the policy's
  // own F. `track`: keep the per-node pod lists (on()).
  FillState(const std::vector<NodeSpec>& nodes, const std::vector<int>& rank,
            const std::vector<Pod>& sequence, Policy policy, FragMemo& metric, FragMemo* scoring,
            bool track);

  size_t size() const { return st_.size(); }
  const NodeState& node(size_t r) const { return st_[r]; }
  const NodeSpec& spec(size_t r) const { return *spec_[r]; }
  const std::vector<Placed>& on(size_t r) const { return on_[r]; }
  const Pod& pod(size_t i) const { return (*seq_)[i]; }
  // Sequence pod i's class (pods equal in cpu, num_gpu, milli, model mask) and how many.
  size_t pod_class(size_t i) const { return static_cast<size_t>(pod_class_[i]); }
  size_t classes() const { return st_.empty() ? 0 : cache_.size() / st_.size(); }
  int64_t idle() const { return idle_; }
  double frag() const { return frag_; }
  int64_t total_gpus() const { return total_gpus_; }
  Policy policy() const { return policy_; }
  FragMemo& memo() { return *memo_; }

  // The policy's score of node r for sequence pod i (cached per class and node version);
  // kInfeasible when it does not fit there.
  int64_t score(size_t r, size_t i, bool gpu_rules);
  // The best-scoring feasible node for pod i other than `skip` (lowest rank on ties); size()
  // when there is none.
  size_t best(size_t i, bool gpu_rules, size_t skip);
  // Places pod i on node r (precondition: it fits) on the policy's cards.
  void place(size_t r, size_t i, PolicyRng& rng, bool gpu_rules);
  // Takes the k-th placed pod off node r (needs track) and returns it.
  Placed remove(size_t r, size_t k);
  // Drops every cached score (frugal's GPU rules switched on).
  void clear_cache();

  // A copy of node r's state, to restore after a trial (restore() also moves its version on,
  // past any version cached during the trial).
  struct Saved {
    size_t r = 0;
    NodeState state;
    double metric_frag = 0;
    std::vector<Placed> on;
  };
  Saved save(size_t r) const;
  void restore(const Saved& s);
  // How much the policy's F (NodeState::frag) of the saved nodes grew since they were saved
  // (milli-GPU; negative when it fell). Each node counted once: pass distinct nodes.
  double frag_growth(std::span<const Saved> saved) const;
  // The idle and fragment totals, to put back exactly after restoring a trial's nodes.
  struct Totals {
    int64_t idle = 0;
    double frag = 0;
  };
  Totals totals() const { return {idle_, frag_}; }
  void set_totals(const Totals& t) {
    idle_ = t.idle;
    frag_ = t.frag;
  }

 private:
  void account(size_t r, int sign);  // adds (+1) or subtracts (-1) node r from the totals
  void take(size_t r, const Pod& p, const GpuChoice& c, int sign);

  const std::vector<Pod>* seq_;
  Policy policy_;
  FragMemo* memo_;    // the policy's F (NodeState::frag)
  FragMemo* metric_;  // the recorded F
  bool split_;
  bool track_;
  std::vector<const NodeSpec*> spec_;
  std::vector<NodeState> st_;
  std::vector<double> metric_frag_;
  std::vector<std::vector<Placed>> on_;
  std::vector<int> pod_class_;
  struct CacheEntry {
    int64_t score = 0;
    uint32_t version = 0;  // node version the score was computed at; 0 = never
  };
  std::vector<CacheEntry> cache_;
  int64_t idle_ = 0;
  double frag_ = 0;
  int64_t total_gpus_ = 0;
};

}  // namespace frugal::pack
