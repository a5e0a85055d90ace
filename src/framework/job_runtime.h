#pragma once
// The engine's per-job bookkeeping, visible to policy plugins (read-only).

#include <algorithm>
#include <cmath>

#include "cluster/placement.h"
#include "model/job.h"

namespace frugal {

enum class JobState : uint8_t { kUnknown, kPending, kRunning, kFinished, kRejected };

struct JobRuntime {
  const JobSpec* spec = nullptr;
  JobState state = JobState::kUnknown;
  uint64_t seq = 0;             // arrival order; the final tie-break everywhere
  Placement placement;          // while running
  double speed = 1.0;           // relative speed of the current placement (vs reference)
  Seconds run_start = 0;        // start of the current run segment
  Seconds restart_s = 0;        // wall time at the segment's start without progress (the
                                // restart after a migration); checkpoints count after it
  Seconds queued_since = 0;     // when it last entered the pending queue
  Seconds first_examined = -1;  // when a cycle's walk first examined it; < 0 not yet
  Seconds service_from = 0;     // attained_gpu_s counts service up to this time (LAS
                                // demotions advance it; run_start stays for checkpoints)
  double attained_gpu_s = 0;    // GPU-seconds of service up to service_from
  double progress_ref_s = 0;    // reference-model seconds of work done before this segment
  int las_level = 0;            // LAS queue (0 = highest priority)
  Seconds las_enter = 0;        // when it entered its LAS queue
  int preemptions = 0;
  int migrations = 0;
  int resizes = 0;
  int size = 0;  // whole GPUs held while running (an elastic job's current size)
  // Checkpoint-first preemption (Preempt::checkpoint_grace() >= 0): a signalled job keeps
  // its GPUs until stop_at while writing a checkpoint of its progress at signalled_at.
  Seconds signalled_at = -1;  // < 0: not signalled
  Seconds stop_at = kNever;
  // Waited in the queue past QueueSort::starvation_after(); cleared when the job stops.
  bool starved = false;

  bool signalled() const { return signalled_at >= 0; }

  // Expected end of the current run from the runtime estimate (never before `now`).
  Seconds expected_end(Seconds now) const {
    if (signalled()) return stop_at > now ? stop_at : now;
    const double left = spec->runtime_estimate() - progress_ref_s;
    const Seconds end = run_start + restart_s + (left > 0 ? left / speed : 0);
    return end > now ? end : now;
  }
  // Reference-model seconds of work done up to `now` (before this segment, plus this
  // segment's productive time at its speed).
  double work_done(Seconds now) const {
    const Seconds productive = now - run_start - restart_s;
    return progress_ref_s + (productive > 0 ? productive * speed : 0);
  }
  // Wall seconds of the current segment's work that a stop at `now` keeps: the productive
  // time after the restart, down to the last checkpoint (all of it without checkpoints).
  Seconds kept_at(Seconds now) const {
    const Seconds productive = now - run_start - restart_s;
    if (!(productive > 0)) return 0;
    const Seconds interval = spec->checkpoint_interval;
    return interval > 0 ? std::floor(productive / interval) * interval : productive;
  }
  double gpus() const {
    if (size > 0 && elastic()) return size;
    return static_cast<double>(spec->total_milli()) / kMilliPerGpu;
  }
  // Elastic bounds (JobSpec::min_gpus/max_gpus): whole-GPU jobs with max_gpus > gpus.
  bool elastic() const {
    return spec->gpus > 0 && !spec->fractional() && spec->max_gpus > spec->gpus;
  }
  int min_size() const {
    return spec->min_gpus > 0 ? std::min(spec->min_gpus, spec->gpus) : spec->gpus;
  }
};

}  // namespace frugal
