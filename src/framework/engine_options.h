#pragma once
// The engine's tunables: how the job model behaves (reference model, migration and resize
// costs, elastic speed-up) and how much each cycle plugin may examine per cycle. Set once
// by the driver (simulation, service); cycle plugins read them through CycleOps::options().

#include <cstddef>

#include "model/gpu_catalog.h"
#include "model/units.h"

namespace frugal {

struct EngineOptions {
  // Trace durations are taken as measured on this model (kNoGpuModel: no speed scaling).
  GpuModelId reference_model = kNoGpuModel;
  // Treat on-demand pools as always provisioned (no autoscaling): the static cluster.
  bool static_capacity = false;
  // Queued jobs the autoscaler looks at per cycle when sizing on-demand capacity.
  size_t autoscale_lookahead = 64;
  // Wall seconds of progress a migrated job loses (reload of its checkpoint, warm-up): its
  // new run segment starts with this much time without progress, counted as rework.
  Seconds migration_cost_s = 60;
  // Queued whole-GPU jobs (the first ones in queue order) offered to the Consolidate
  // plugin per cycle, and queue entries examined to find them.
  size_t consolidate_jobs = 4;
  size_t consolidate_examined = 16;
  // Elastic jobs (profile +elastic; JobSpec::max_gpus > gpus, whole GPUs): throughput on n
  // GPUs is n^elastic_alpha times that on one, so a job of `duration` at its requested
  // `gpus` does work W = duration * gpus^alpha and runs duration * (gpus/n)^alpha at size n.
  double elastic_alpha = 0.8;
  // Wall seconds without progress after a resize (restart on the new size, like a
  // migration). A job grows only when the time saved exceeds this.
  Seconds resize_cost_s = 30;
  // Queued jobs the cycle's walk examines at most (0: all, the simulator's default). The
  // first walk_limit/2 in queue order every cycle, then up to walk_limit/2 more continuing
  // after where the previous cycle's stopped, wrapping round: every queued job is examined
  // within about 2 * queue / walk_limit cycles (as Slurm's backfill bounds its work with
  // bf_max_job_test and continues with bf_continue). The service sets it
  // (max_jobs_per_cycle); a queue shorter than the limit is walked whole, as without it.
  size_t walk_limit = 0;
  // Also a wake-up (Engine::next_wakeup): a running job reaching its estimated end while jobs
  // wait. From then on its end is unknown, which moves EASY's reservations and makes it a
  // preemption candidate (policy/tiers.cpp). A live service decides then (it sets this, and
  // so do its shadows); `simulate --wake-at-estimates` replays its history alike. Off in
  // the evaluation: the extra cycles would make the schedules of policies that read no
  // estimates (las, gavel: time-dependent decisions) depend on the estimates.
  bool wake_at_expected_ends = false;
};

}  // namespace frugal
