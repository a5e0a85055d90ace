#pragma once
// Offline optimum with perfect foresight for deferrable jobs: the lower bound time-shifting
// is judged against.
//
// Each job j keeps the cost centre c_j, GPUs g_j, utilisation u_j and run time r_j it had
// in the simulation; only its start moves, within [earliest_j, latest_j] (submit and
// deadline − run time; a job whose actual start lay outside keeps that start as a candidate
// too, so the problem is always feasible). The LP relaxation
//
//   minimise   Σ_{j,s} x_js · cost_j(s)
//   subject to Σ_s x_js = 1                                      for every job j
//              Σ_{j,s: c_j = c} x_js · g_j · overlap(s, h) ≤ C_c  for every centre c, hour h
//              x ≥ 0
//
// is solved with COIN-OR Clp, where cost_j(s) = span(c_j, g_j, u_j, s, s + r_j) is, by
// `objective`, either its rental (with time-of-use discounts) + energy (hourly prices)
// (kCost: a lower bound on the deferrable jobs' cost) or its energy alone (kEnergy: a lower
// bound on their energy cost — the two optima are different schedules in general), s ranges
// over the candidate starts of j (earliest, latest, every whole UTC hour in between and every
// start that ends on a whole hour — either cost of a contiguous run is piecewise linear in its
// start with breaks only there, so these contain the continuous optimum), overlap(s, h) is the
// fraction of hour h that [s, s + r_j) covers, and C_c the centre's GPUs. Simplifications:
// the capacity available to deferrable work is the centre's whole capacity (non-deferrable
// load is ignored), hourly occupancy is averaged (a relaxation), and fractional x is allowed
// — all of which only lower the bound. Both objectives share the candidates, rows and limits.
//
// Bounded: at most kOfflineMaxJobs jobs and kOfflineMaxNonzeros constraint coefficients;
// larger problems return ok = false with the reason.

#include <string>
#include <vector>

#include "cost/pricing.h"

namespace frugal {

struct OfflineJob {
  uint32_t centre = 0;
  double gpus = 1;
  double utilization = 1;
  double runtime = 0;   // seconds
  double earliest = 0;  // trace time
  double latest = 0;    // trace time, >= earliest
  double actual = -1;   // start it had (added as a candidate when >= 0)
};

// What the bound minimises (see above).
enum class OfflineObjective : uint8_t {
  kCost,    // rental (with time-of-use discounts) + energy
  kEnergy,  // energy alone
};

struct OfflineBound {
  bool ok = false;
  std::string error;
  OfflineObjective objective = OfflineObjective::kCost;
  size_t jobs = 0;
  size_t columns = 0;
  double energy_usd = 0;  // energy cost of the optimal (fractional) schedule
  double cost_usd = 0;    // rental + energy of that schedule (with kEnergy: of one
                          // energy-optimal schedule, not the cheapest of them)
};

inline constexpr size_t kOfflineMaxJobs = 8000;
inline constexpr size_t kOfflineMaxNonzeros = 20'000'000;

// `capacity[c]`: GPUs of centre c. `epoch_unix_s`: trace time 0 (whole hours are taken in
// Unix time). With kCost, `cost_usd` is the bound; with kEnergy, `energy_usd` is.
OfflineBound solve_offline_bound(const Pricing& pricing, const std::vector<OfflineJob>& jobs,
                                 const std::vector<double>& capacity, int64_t epoch_unix_s,
                                 OfflineObjective objective = OfflineObjective::kCost);

}  // namespace frugal
