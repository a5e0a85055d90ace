#pragma once
// Migrations in the static fill: checkpoint placed pods and restart them elsewhere so that an
// arriving pod no node can take fits after all. In the pack experiment a migration costs only
// its place in the budget (fill_engine.h).
//
// make_room(fs, i, budget): for every node that could host pod i once emptied (model, cards,
// cpu and memory of the node), the victims are the pods to take off it:
//   cards: pod i needs num_gpu cards with ≥ milli free; per card, the fewest of its pods that
//     free enough (largest GPU share first, then most CPU, then earliest arrival); the
//     num_gpu cards cheapest that way (fewest pods, then least GPU milli moved, then index);
//   then CPU and memory: while short, the remaining pods with the most of the missing
//     resource.
// A candidate whose victims include a pod that no node takes as the cluster stands is dropped.
// Candidates with at most min(budget, kMaxVictims) victims are tried in order of (victims,
// GPU milli moved, rank), at most kMaxTries of them: the victims (largest GPU share first)
// go, one by one, to the node the policy scores best among all others (its own rule, with
// the node being emptied excluded); if one finds no node, or pod i still does not fit, or
// the plan is not worth it (below), every node is put back exactly as it was and the next
// candidate is tried. The first that works is kept: pod i is placed on the emptied node on
// the policy's cards. When none works and the budget allows two moves, swap_room (swap.h)
// trades a pod for a lighter one of the same GPU shape instead.
// Worth it: the policy's F over the nodes the plan touched (pod i placed) grows by at most pod
// i's total GPU milli (worth_moving): a migration places pod i for sure, and is not kept when
// it leaves more GPU milli than that unusable to the typical pods.
// Returns the number of pods moved (0: nothing changed, pod i is not placed). Deterministic.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "pack/fill_state.h"

namespace frugal::pack {

inline constexpr int kMaxVictims = 8;
inline constexpr int kMaxTries = 8;
// After make_room fails for a pod, the engine tries no pod of its class (fill_state.h) again for
// this many arrivals (the cluster has to change first; this keeps a full cluster cheap).
inline constexpr size_t kRetryAfter = 50;

// Whether a trial that placed pod i after moving pods is kept: `saved` holds every node it
// touched, as saved before the trial (see "Worth it" above).
bool worth_moving(const FillState& fs, size_t i, std::span<const FillState::Saved> saved);

// make_room's victims per node, kept between its calls over one fill: a node's victims for an
// arrival depend only on the node (its version) and the arrival's class and memory, so they are
// looked for again only on nodes that changed since. make_room's choices are the same as
// without it. Filled lazily, one row of nodes per pod class that reaches make_room.
class PlanCache {
 public:
  explicit PlanCache(const FillState& fs) : nodes_(fs.size()), rows_(fs.classes()) {}
  // found: the victims free the node for the arrival (before the budget, and before whether
  // each victim fits elsewhere).
  struct Entry {
    uint32_t version = 0;           // node version the entry was found at; 0 = never
    int64_t mem = -1;               // the arrival's memory it was found for
    bool found = false;             // see above
    std::vector<uint32_t> victims;  // indices into FillState::on(node)
    int64_t moved_milli = 0;        // their total GPU milli
  };
  // Node r's victims for sequence pod i (make_room's rule): the kept entry while node r and
  // pod i's class and memory are those it was found for, else found afresh and kept.
  const Entry& victims(const FillState& fs, size_t r, size_t i);

 private:
  size_t nodes_;
  std::vector<std::vector<Entry>> rows_;
};

// Precondition: fs tracks placements; no node takes pod i as it stands; `plans` was made for fs
// and has seen no other FillState.
int make_room(FillState& fs, size_t i, int64_t budget, PolicyRng& rng, bool gpu_rules,
              PlanCache& plans);

}  // namespace frugal::pack
