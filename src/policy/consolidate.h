#pragma once
// Consolidate plugins.
//  consolidate — defragmentation by migration. For a queued whole-GPU job that fits on one
//    node of a candidate model but finds no node with enough wholly free cards, although
//    the model has enough free capacity in total (partly used cards, free cards spread over
//    nodes): look at a bounded number of nodes (most wholly free cards first), and on each
//    find the cheapest set of its running jobs — fractional jobs, and whole-GPU jobs smaller
//    than the blocked one that sit on that node only — whose departure frees enough cards.
//    Moved jobs go elsewhere on the same model: fractional ones best fit onto partly used
//    cards (then a free card on the fullest node), whole-GPU ones best fit onto free cards.
//    The plan with the least moved work that can be placed wins, and is carried out only
//    when its gain exceeds its cost (both in GPU-seconds):
//      gain = blocked GPUs × (expected wait avoided: the earliest expected end, from runtime
//             estimates, of running jobs whose release would let the job fit anyway)
//      cost = Σ moved GPUs × (migration_cost_s + work since the job's last checkpoint)
//    so a job with checkpoints is cheapest to move right after one. Deterministic.

#include <memory>

#include "framework/plugins.h"

namespace frugal {

struct ConsolidateOptions {
  size_t max_nodes = 32;        // candidate nodes examined per blocked job and model
  size_t max_plans = 4;         // cheapest per-node plans whose moves are tried
  size_t lookahead = 256;       // running jobs walked to estimate the wait avoided
  size_t max_scan_nodes = 512;  // nodes scanned for a moved fractional job's best fit
  int max_cards = 12;           // nodes with more partly used or busy cards are skipped
};

std::unique_ptr<Consolidate> make_consolidate(ConsolidateOptions o = {});

}  // namespace frugal
