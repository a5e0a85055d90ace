#pragma once
// Priority tiers (core > important > general) with checkpoint-aware preemption.
//
//  tier (QueueSort) — effective tier, then submit time, then arrival order. Starvation
//    guard: a general-tier job that has waited `starvation_s` since it last entered the
//    queue is marked starved (JobRuntime::starved) and counts as important from then on —
//    for ordering and for preemption (it may displace general jobs; only core work may
//    displace it, and not within `protect_s` of its start); the mark stays while it runs
//    and clears when it stops.
//  tier-preempt (Preempt) — when a queued job cannot be placed, even counting the GPUs
//    that already-signalled victims are about to free, it may displace running jobs of a
//    strictly lower effective tier. Among the victim sets whose release lets the job be
//    placed (checked with the profile's own Filter and Place on a copy of the cluster), it
//    picks the one with the least work at risk — Σ (time since the victim's last periodic
//    checkpoint × its GPUs) — then the fewest jobs, then the fewest GPUs, then the lowest
//    node. Single-node jobs: per node, the cheapest subset of that node's victims (all
//    subsets up to 10 victims a node, else a greedy prefix, on the 16 nodes with the best
//    greedy estimate); the best node wins. Larger
//    jobs: victims greedily by work at risk per GPU until the job fits, then pruned.
//    Checkpoint-first: victims are signalled and keep their GPUs `checkpoint_grace_s`
//    while writing a checkpoint (Preempt::checkpoint_grace), then stop with no lost work.
//    Never a victim: a signalled job, a job expected to end within the grace anyway (not
//    one that has outlived its runtime estimate: its end is unknown), and a starved job
//    within `protect_s` of its start. Queued jobs are examined in queue
//    order and planning stops at the first one that neither fits nor gets a plan: a job
//    behind a blocked one may start only by backfilling around it, so GPUs freed for it
//    went to shorter work that it then preempted again. (Without this stop, on ITP
//    cluster04 on hetero-4pool with every job general, jobs promoted by the starvation
//    guard made 4,830 plans, 4,600 of them repeats for a job already planned for in the
//    same wait, and 6,185 preemptions, 5,739 of them of jobs that had started in GPUs
//    freed for the same preemptor; with it 564, docs/EXPERIMENTS.md.) A queued job for which
//    the autoscaler can still add a node (CycleView::can_add_capacity) is not planned for:
//    preempting would gain it at most the provisioning delay and cost the victim its place
//    and a restart (on the autoscaled ITP evaluation this removed all of frugal's 150-2,700
//    preemptions per trace at cost −0 … −2 %, mean JCT +0 … +1 %). Bounded: at most
//    `max_examined` queued jobs and `max_plans` preemption plans per cycle, and with
//    `max_candidates` victims among that many lowest-ranked running jobs only; deterministic.
//
// Profile `tiers` = tier + tier-preempt + easy-backfill + bestfit. Easy-backfill rather than
// skip: the first blocked job (the highest tier waiting) holds a reservation from running
// jobs' estimated ends (a signalled victim's is its grace end), so lower-tier jobs cannot
// take the GPUs it waits for, while short ones still backfill; nor does a job still running
// when a draining victim stops start on that victim's node (post_filter.h). Both plugins
// read only CycleView and JobRuntime, so other profiles (the future `frugal`) can reuse them.

#include <memory>

#include "framework/plugins.h"

namespace frugal {

struct TierOptions {
  Seconds checkpoint_grace_s = 60;
  Seconds starvation_s = 24 * 3600;
  Seconds protect_s = 6 * 3600;  // a starved job is not preempted this long after starting
  size_t max_examined = 32;
  size_t max_plans = 4;
  // Running jobs a plan may choose victims among, the lowest-ranked first (0: all, as in
  // simulation). A bound on the work of a cycle that plans — each running job looked at
  // costs memory reads — at the price of missing a cheaper victim ranked higher: the service
  // sets it (max_jobs_per_cycle), the simulator does not.
  size_t max_candidates = 0;
};

// The tier a job is ordered and protected by: general counts as important once starved.
Tier effective_tier(const JobRuntime& r);

std::unique_ptr<QueueSort> make_tier_sort(Seconds starvation_s = 24 * 3600);
std::unique_ptr<Preempt> make_tier_preempt(const TierOptions& o = {});

}  // namespace frugal
