#pragma once
// A seeded synthetic workload for scale tests and benchmarks: Poisson arrivals, GPU counts
// drawn from a mix typical of shared training clusters (most jobs 1 GPU, a tail of 8-64),
// log-normal durations (median 30 min, capped at 7 days). The arrival rate is set so the
// offered load (GPU-seconds asked for / GPU-seconds available) equals `load`.
// The same arguments always give the same jobs.

#include <cstdint>
#include <vector>

#include "model/job.h"

namespace frugal {

struct SyntheticOptions {
  size_t jobs = 1000;
  int64_t cluster_gpus = 640;  // capacity the load is relative to
  double load = 0.9;
  uint64_t seed = 1;
};

std::vector<JobSpec> make_synthetic_jobs(const SyntheticOptions& o);

}  // namespace frugal
