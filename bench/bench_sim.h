#pragma once
// Shared by the simulation benchmarks: what one simulation needs, and one measured run.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "policy/profile.h"
#include "sim/simulator.h"

namespace frugal_bench {

// What one simulation needs; `error` is set when it could not be loaded.
struct Workload {
  frugal::GpuCatalog catalog;
  std::vector<frugal::JobSpec> jobs;
  frugal::ClusterSpec cluster;
  frugal::GpuModelId reference = frugal::kNoGpuModel;
  std::string error;
};

// Simulates `w` under `policy` once, adding its events and jobs to the running totals.
// Returns false (after SkipWithError) when the policy is unknown or an invariant broke.
inline bool run_once(benchmark::State& state, const Workload& w, const std::string& policy,
                     const frugal::SimOptions& options, double& events, double& jobs) {
  auto profile = frugal::make_profile(policy);
  if (!profile.ok()) {
    state.SkipWithError(profile.error().message.c_str());
    return false;
  }
  const frugal::SimResult r =
      frugal::simulate(w.jobs, w.cluster, w.catalog, std::move(profile).value(), options);
  if (!r.invariant_violation.empty()) {
    state.SkipWithError(r.invariant_violation.c_str());
    return false;
  }
  events += static_cast<double>(r.events);
  jobs += static_cast<double>(w.jobs.size());
  benchmark::DoNotOptimize(r.last_completion);
  benchmark::DoNotOptimize(r.ledger.total.total_usd());
  return true;
}

}  // namespace frugal_bench
