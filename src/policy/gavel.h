#pragma once
// `gavel`: a baseline after Gavel (Narayanan et al., OSDI'20), heterogeneity-aware max-min
// fairness. Each scheduling round it solves the LP
//
//   maximise   t + ε · Σ_j ρ_j(X) / n
//   subject to ρ_j(X) = Σ_m X[j][m]·T[j][m] / T_j^eq ≥ t         for every job j
//              Σ_m X[j][m] ≤ 1                                   for every job j
//              Σ_j X[j][m]·g_j ≤ C_m                             for every model m
//              X ≥ 0
//
// where X[j][m] is the share of time job j spends on model m, T[j][m] its throughput there
// (catalog speed for its class; 0 where it may not or cannot run: a disallowed model or
// fewer GPUs than it asks for), g_j its GPUs, C_m the cluster's GPUs of model m, and
// T_j^eq = Σ_m (C_m / Σ C)·T[j][m] the throughput of an equal share of every model. The
// small ε term (1e-3) picks, among max-min optimal allocations, one with the most total
// normalised throughput, so the answer is well determined. Solved with COIN-OR Clp.
//
// Bounded LP: the jobs of a round are the first 200 queued jobs by arrival, then running
// jobs by arrival up to 200 in all; running jobs left out hold their GPUs as fixed
// capacity (C_m shrinks). Queued jobs beyond the window wait for a later round.
// Rounds: the LP is solved at the first cycle at least kGavelRoundS (360 s, Gavel's round
// length) after the previous solve; a job that arrived since waits for the next round.
// Placement (non-preemptive, round-based): a queued job runs on its allocated model with
// the largest share that has room now (shares > 1e-6, largest first); a job with no
// share waits. Deterministic: fixed row/column order, Clp's deterministic simplex.

#include <memory>
#include <vector>

#include "framework/plugins.h"

namespace frugal {

struct GavelProblem {
  std::vector<std::vector<double>> throughput;  // [job][model], >= 0
  std::vector<double> gpus;                     // [job], > 0
  std::vector<double> capacity;                 // [model], >= 0
};

struct GavelAllocation {
  bool ok = false;                     // the LP was solved to optimality
  double min_ratio = 0;                // t: the smallest normalised throughput
  std::vector<std::vector<double>> x;  // [job][model] share of time
};

// Solves the max-min LP above. Jobs with no usable model get a zero row.
GavelAllocation solve_gavel(const GavelProblem& p);

inline constexpr size_t kGavelMaxJobs = 200;
inline constexpr double kGavelRoundS = 360;

// Filter "gavel": the job's models with a positive share this round, largest first.
std::unique_ptr<Filter> make_gavel_filter(size_t max_jobs = kGavelMaxJobs);

}  // namespace frugal
