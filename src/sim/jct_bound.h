#pragma once
// A lower bound on the mean JCT of a set of jobs under any schedule on a cluster of at most
// `capacity_gpus` GPUs (every node of the spec, on-demand ones included).
//
// Each job j has its release r_j (submit), its floor f_j (JobOutcome::fastest_run_s: no
// schedule finishes it sooner than r_j + f_j) and P_j (JobOutcome::min_gpu_seconds: no
// schedule gives it fewer GPU-seconds). Let N(t) be the number of the jobs released and not
// finished at t in any real schedule. Then
//   N(t) ≥ N_floor(t) = |{j : r_j ≤ t < r_j + f_j}|, since j is in the system at least that long;
//   N(t) ≥ N_srpt(t), the number in the system under SRPT on one machine serving
//         `capacity_gpus` GPU-seconds per second, requirements P_j: the real schedule is a
//         feasible schedule of that machine (its GPU-seconds per job, at most the cluster's
//         GPUs at any time), and SRPT minimises the number in the system at every instant
//         (Schrage 1968).
// So Σ_j (C_j − r_j) = ∫ N(t) dt ≥ ∫ max(N_floor, N_srpt) dt; the bound is that over n. It is
// never below the mean floor (Σ f_j / n) and grows with queueing the floor ignores.

#include <cstdint>
#include <vector>

#include "model/units.h"

namespace frugal {

struct BoundJob {
  Seconds release = 0;
  Seconds floor_s = 0;         // ≥ 0
  double min_gpu_seconds = 0;  // ≥ 0 (0: needs no GPU; leaves the SRPT machine at release)
};

// The bound above, in seconds; 0 for no jobs. `capacity_gpus` ≤ 0 counts only the floors.
// O(n log n).
double queue_jct_bound(const std::vector<BoundJob>& jobs, int64_t capacity_gpus);

}  // namespace frugal
