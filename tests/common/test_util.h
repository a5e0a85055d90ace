#pragma once
// Shared helpers for the cluster, policy, simulator and CLI tests: a small hand-built GPU
// catalog, job and cluster builders, and a one-call simulate().

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "policy/profile.h"
#include "sim/simulator.h"

namespace frugal::testing {

// Model ids in test_gpus(): kA100 (80 GiB, speed 1), kV100 (16 GiB, speed 0.5 for training,
// 0.25 for eval), kT4 (16 GiB, speed 0.2; never in the test clusters).
inline constexpr GpuModelId kA100 = 0;
inline constexpr GpuModelId kV100 = 1;
inline constexpr GpuModelId kT4 = 2;

inline const GpuCatalog& test_gpus() {
  static const GpuCatalog catalog({
      GpuModel{"A100-80GB", {"A100"}, 81920, {1, 1, 1, 1}, "test"},
      GpuModel{"V100", {}, 16384, {0.5, 0.5, 0.25, 0.5}, "test"},
      GpuModel{"T4", {}, 16384, {0.2, 0.2, 0.2, 0.2}, "test"},
  });
  return catalog;
}

// A job asking for `gpus` whole cards for `duration` seconds, arriving at `submit`.
inline JobSpec job(std::string id, Seconds submit, int gpus, Seconds duration) {
  JobSpec j;
  j.id = std::move(id);
  j.submit = submit;
  j.gpus = gpus;
  j.duration = duration;
  return j;
}

// A fractional job: one card at `milli` milli-GPU.
inline JobSpec fraction(std::string id, Seconds submit, Milli milli, Seconds duration,
                        int64_t gpu_memory_mib = 0) {
  JobSpec j = job(std::move(id), submit, 1, duration);
  j.gpu_milli = milli;
  j.gpu_memory_mib = gpu_memory_mib;
  return j;
}

inline NodeSpec node(std::string name, GpuModelId model, int gpus, int64_t cpu_milli = 0,
                     int64_t memory_mib = 0) {
  return NodeSpec{std::move(name), 0, model, gpus, cpu_milli, memory_mib};
}

// A cluster holding exactly `nodes`, in one region and pool.
inline ClusterSpec cluster_of(std::vector<NodeSpec> nodes) {
  ClusterSpec c;
  c.regions.push_back(Region{"default", "UTC"});
  c.pools.push_back(Pool{"default", 0});
  c.nodes = std::move(nodes);
  return c;
}

// A CycleView over a bare ClusterState (nothing running, time 0), for Filter plugins.
class StateView final : public CycleView {
 public:
  explicit StateView(const ClusterState& st) : st_(st) {}
  Seconds now() const override { return 0; }
  const ClusterState& cluster() const override { return st_; }
  const GpuCatalog& catalog() const override { return test_gpus(); }
  const JobRuntime& job(JobIdx) const override { return none_; }
  const std::set<std::pair<Seconds, JobIdx>>& running_by_end() const override { return end_; }
  const std::set<std::pair<Seconds, JobIdx>>& draining() const override { return end_; }
  double speed(const JobSpec&, GpuModelId) const override { return 1; }

 private:
  const ClusterState& st_;
  JobRuntime none_;
  std::set<std::pair<Seconds, JobIdx>> end_;
};

inline Profile profile(const std::string& name) {
  auto p = make_profile(name);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return std::move(p).value();
}

// Simulates `jobs` on `cluster` under `policy` with state checks after every cycle; trace
// durations are A100 seconds.
inline SimResult run_sim(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
                         const std::string& policy, SimOptions o = {}) {
  o.check_invariants = true;
  if (o.reference_model == kNoGpuModel) o.reference_model = kA100;
  SimResult r = simulate(jobs, cluster, test_gpus(), profile(policy), o);
  EXPECT_EQ(r.invariant_violation, "") << policy;
  return r;
}

inline Seconds jct(const JobOutcome& o) {
  return o.finish - o.submit;
}

}  // namespace frugal::testing
