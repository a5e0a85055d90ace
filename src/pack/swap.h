#pragma once
// Swap migrations in the static fill: trade a CPU- or memory-heavy placed pod for a lighter
// one of the same GPU shape on another node, so that a node whose free cards an arriving pod
// could use, but whose CPU or memory is taken, can host it (two migrations).
//
// swap_room(fs, i, budget): pod i fits no node. For every node r that could take pod i on its
// cards (model, num_gpu cards with ≥ milli free, pod count) but is short of CPU or memory
// (dc = cpu(i) − r's CPU left, dm likewise; one of them > 0), and every pod V on r, look for
// a pod W on another node s with the same (num_gpu, milli), accepted by r's model, with V
// accepted by s's model, such that
//   cpu(V) − cpu(W) ≥ dc, mem(V) − mem(W) ≥ dm        (r gains enough), and
//   s has cpu(V) − cpu(W) CPU and mem(V) − mem(W) memory left (V fits where W was).
// Among these, the pair that moves the least CPU, then memory (smallest cpu(V) − cpu(W)),
// then the lowest (r, V, s, W) is tried: V and W leave their nodes, W goes on r and V on s
// (the policy's cards), then pod i on r. If any step does not fit, or the swap is not worth it
// (migration.h, worth_moving), every touched node is put back exactly and the next-best pair
// is tried (at most kMaxSwapTries pairs).
// Returns the pods moved (2) or 0 (nothing changed). Needs budget ≥ 2 and fs tracking
// placements. Deterministic.

#include <cstddef>
#include <cstdint>

#include "pack/fill_state.h"

namespace frugal::pack {

inline constexpr int kMaxSwapTries = 4;

int swap_room(FillState& fs, size_t i, int64_t budget, PolicyRng& rng, bool gpu_rules);

}  // namespace frugal::pack
