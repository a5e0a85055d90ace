#pragma once
// PostFilter plugins (queue disciplines).
//  strict        — stop at the first job that cannot be placed (strict FIFO).
//  skip          — pass over it and try the next (greedy; work-conserving).
//  easy-backfill — EASY backfilling as Slurm's backfill does it: the first blocked job
//                  gets a reservation at the earliest time enough GPUs free up (from the
//                  running jobs' runtime estimates; a job still running past its estimate
//                  frees its GPUs at an unknown time and is not counted, so with no known
//                  time there is no reservation); a later job may start now only if it
//                  ends (by its estimate) before that time, or uses only GPUs the
//                  reservation leaves spare. Examines at most `max_jobs` queued jobs per
//                  cycle after the reservation (Slurm's bf_max_job_test, default 500).
//                  GPUs a checkpoint-first preemption is freeing are held for the job it
//                  preempted for: while a job blocks, no job still running when a
//                  draining victim stops starts on that victim's node (the reservation
//                  counts GPUs per model, so a free GPU elsewhere let one take the hole,
//                  and the preemptor then preempted it in turn).

#include <memory>

#include "framework/plugins.h"

namespace frugal {

std::unique_ptr<PostFilter> make_strict_post_filter();
std::unique_ptr<PostFilter> make_skip_post_filter();
std::unique_ptr<PostFilter> make_easy_backfill(size_t max_jobs = 500);

}  // namespace frugal
