#pragma once
// A lower bound on the mean JCT of a set of jobs under any schedule on a cluster.
//
// Each job j has its release r_j (submit) and its floor f_j (JobOutcome::fastest_run_s: no
// schedule finishes it sooner than r_j + f_j). Let N(t) be the number of the jobs released and
// not finished at t in any real schedule. Then
//   N(t) ≥ N_floor(t) = |{j : r_j ≤ t < r_j + f_j}|, since j is in the system at least that long;
//   N(t) ≥ N_k(t) for every relaxed machine k (BoundMachine): the number in the system under
//         SRPT on one preemptive machine serving rate_k units per second, job j needing need_k[j]
//         units. The machine is a relaxation when every GPU of the cluster gives at most its own
//         weight c_g units per second whatever job it serves, rate_k = Σ_g c_g, and need_k[j] is
//         at most the units any schedule spends on j; then the real schedule is a feasible
//         schedule of that machine, and SRPT minimises the number in the system at every
//         instant (Schrage 1968). Unit weights (c_g = 1, need = GPU-seconds on the fastest model
//         j may use) give one such machine; weights proportional to one job class's speed on
//         each model (need = min over models of GPU-seconds there × that model's weight) give
//         others, far tighter on a heterogeneous cluster whose slow GPUs the unit weights count
//         as fast ones.
// So Σ_j (C_j − r_j) = ∫ N(t) dt ≥ ∫ max(N_floor, max_k N_k) dt, the pointwise maximum over the
// machines; the bound is that over n. It is never below the mean floor (Σ f_j / n) and grows with
// queueing the floor ignores.

#include <cstdint>
#include <vector>

#include "model/units.h"

namespace frugal {

struct BoundJob {
  Seconds release = 0;
  Seconds floor_s = 0;  // ≥ 0
};

// One relaxation of the cluster to a single preemptive machine (see above).
struct BoundMachine {
  double rate = 0;           // units per second; ≤ 0: the machine is ignored
  std::vector<double> need;  // per job, in the order of the jobs; ≥ 0 (0: leaves at release)
};

// The bound above, in seconds; 0 for no jobs. With no machine (or none of positive rate) only
// the floors count. Every machine's `need` has one entry per job (std::invalid_argument
// otherwise). O(K n log n) for K machines.
double queue_jct_bound(const std::vector<BoundJob>& jobs,
                       const std::vector<BoundMachine>& machines);

}  // namespace frugal
