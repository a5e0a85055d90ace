// queue_jct_bound (sim/jct_bound.h): exact on cases worked out by hand (one machine, and the
// pointwise maximum over several), never above the mean JCT of any simulated schedule (every
// profile, elastic and fractional jobs, job classes of different speeds, heterogeneous nodes),
// never below the floor; the speed-weighted machines tighter than the unit one; and the floor
// of an elastic job at its largest size.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <stdexcept>

#include "../common/test_util.h"
#include "sim/jct_bound.h"
#include "sim/summary.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::fraction;
using testing::job;
using testing::kA100;
using testing::kV100;
using testing::node;
using testing::run_sim;

// queue_jct_bound with one machine of `rate`: jobs as {release, floor, need}.
double jct_bound_one_machine(const std::vector<std::array<double, 3>>& jobs, double rate) {
  std::vector<BoundJob> js;
  BoundMachine m{rate, {}};
  for (const auto& [release, floor_s, need] : jobs) {
    js.push_back({release, floor_s});
    m.need.push_back(need);
  }
  return queue_jct_bound(js, {m});
}

TEST(JctBound, NoQueueIsTheFloor) {
  EXPECT_DOUBLE_EQ(jct_bound_one_machine({}, 8), 0);
  EXPECT_DOUBLE_EQ(jct_bound_one_machine({{0, 100, 400}}, 8), 100);
  // Far apart: each alone.
  EXPECT_DOUBLE_EQ(jct_bound_one_machine({{0, 100, 100}, {1000, 50, 50}}, 1), 75);
}

TEST(JctBound, CountsTheQueueTheFloorIgnores) {
  // Two 100-second one-GPU jobs at 0 on one GPU: any schedule ends them at 100 and 200.
  EXPECT_DOUBLE_EQ(jct_bound_one_machine({{0, 100, 100}, {0, 100, 100}}, 1), 150);
  // Three: 100, 200, 300 → 200 (the floor says 100).
  EXPECT_DOUBLE_EQ(jct_bound_one_machine({{0, 100, 100}, {0, 100, 100}, {0, 100, 100}}, 1), 200);
  // Without a capacity only the floor counts.
  EXPECT_DOUBLE_EQ(jct_bound_one_machine({{0, 100, 100}, {0, 100, 100}}, 0), 100);
  // A job needing no GPU leaves the machine at once but stays its floor.
  EXPECT_DOUBLE_EQ(jct_bound_one_machine({{0, 100, 100}, {0, 30, 0}}, 1), 65);
  // SRPT serves the short job first when it arrives (a 4-GPU-second job at 10 behind a
  // 100-GPU-second one on 1 GPU): N = 2 on [10, 14), floors (100 and 4) end at 100 and 14:
  // max(N_floor, N_srpt) = 1 on [0, 10), 2 on [10, 14), 1 on [14, 104): (10 + 8 + 90) / 2.
  EXPECT_DOUBLE_EQ(jct_bound_one_machine({{0, 100, 100}, {10, 4, 4}}, 1), 54);
}

TEST(JctBound, PointwiseMaximumOverMachines) {
  // Three jobs at 0 (floors 1). Machine A (rate 1, needs 100 each) has 3, 2, 1 in the system
  // on [0, 100), [100, 200), [200, 300); machine B (needs 0, 0, 1000) has 1 on [0, 1000), the
  // floors 3 on [0, 1). Each alone gives 600 / 3 and (3 + 999) / 3; their pointwise maximum
  // 3, 2, 1, then 1 until 1000: 1300 / 3.
  const std::vector<BoundJob> jobs = {{0, 1}, {0, 1}, {0, 1}};
  const BoundMachine a{1, {100, 100, 100}}, b{1, {0, 0, 1000}};
  EXPECT_DOUBLE_EQ(queue_jct_bound(jobs, {a}), 200);
  EXPECT_DOUBLE_EQ(queue_jct_bound(jobs, {b}), 334);
  EXPECT_DOUBLE_EQ(queue_jct_bound(jobs, {a, b}), 1300.0 / 3);
  EXPECT_DOUBLE_EQ(queue_jct_bound(jobs, {}), 1);                // floors only
  EXPECT_DOUBLE_EQ(queue_jct_bound(jobs, {{0, {5, 5, 5}}}), 1);  // a machine of no rate
  EXPECT_THROW(queue_jct_bound(jobs, {{1, {100, 100}}}), std::invalid_argument);
}

TEST(JctBound, SpeedWeightsCountSlowGpusAsSlow) {
  // Two 100-second one-GPU training jobs at 0 on one A100 and one V100 (half speed). Unit
  // weights see 2 GPUs for 2 × 100 GPU-seconds: the floor, 100. Weighted by training speed the
  // machine serves 1.5 units per second and each job needs 100 (100 s on the A100, or 200 s at
  // 0.5 on the V100): SRPT ends them at 66.7 and 133.3, so 2 in the system on [0, 100) (the
  // floors), 1 on [100, 133.3): 350 / 3. Any real schedule: 100 and 200, mean 150.
  const ClusterSpec c = cluster_of({node("a", kA100, 1), node("v", kV100, 1)});
  const SimResult r = run_sim({job("x", 0, 1, 100), job("y", 0, 1, 100)}, c, "fifo");
  EXPECT_DOUBLE_EQ(r.capacity_class_gpus[0], 1.5);
  EXPECT_DOUBLE_EQ(r.capacity_class_gpus[2], 1.25);  // eval: the V100 at 0.25
  EXPECT_DOUBLE_EQ(r.jobs[0].min_gpu_seconds, 100);
  EXPECT_DOUBLE_EQ(r.jobs[0].min_class_gpu_seconds[0], 100);
  const Summary s = summarize(r);
  EXPECT_DOUBLE_EQ(s.jct_floor_s, 100);
  EXPECT_NEAR(s.jct_bound_s, 350.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(s.jct_s.mean, 150);
}

TEST(JctBound, ElasticFloorAtTheLargestSize) {
  JobSpec e = job("e", 0, 4, 100);
  e.min_gpus = 2;
  e.max_gpus = 8;
  const SimResult r =
      run_sim({e, fraction("f", 0, 250, 100)}, cluster_of({node("a", kA100, 8)}), "fifo");
  EXPECT_DOUBLE_EQ(r.jobs[0].fastest_run_s, 100 * std::pow(0.5, 0.8));
  EXPECT_DOUBLE_EQ(r.jobs[0].min_gpu_seconds, 100 * std::pow(4, 0.8) * std::pow(2, 0.2));
  EXPECT_DOUBLE_EQ(r.jobs[1].fastest_run_s, 100);
  EXPECT_DOUBLE_EQ(r.jobs[1].min_gpu_seconds, 25);
}

// Random workloads on a small heterogeneous cluster: the bound holds for every profile's
// schedule (frugal's elastic growth included), and is at least the floor.
TEST(JctBound, NeverAboveAnySimulatedSchedule) {
  const ClusterSpec c =
      cluster_of({node("a0", kA100, 4), node("a1", kA100, 4), node("v0", kV100, 4)});
  std::mt19937_64 rng(7);
  int tighter = 0, weighted_tighter = 0;
  for (int round = 0; round < 12; ++round) {
    std::vector<JobSpec> jobs;
    Seconds t = 0;
    for (int i = 0; i < 30; ++i) {
      t += std::uniform_real_distribution<double>(0, 300)(rng);
      const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
      const Seconds d = std::uniform_real_distribution<double>(60, 3000)(rng);
      JobSpec j = kind == 0 ? fraction("j" + std::to_string(i), t, 500, d)
                            : job("j" + std::to_string(i), t, 1 << (kind - 1), d);
      if (kind >= 2 && i % 2 == 0) {  // elastic: ceil(g/2)..2g
        j.min_gpus = (j.gpus + 1) / 2;
        j.max_gpus = 2 * j.gpus;
      }
      if (i % 5 == 0) j.allowed_models = {kV100};
      j.job_class = static_cast<JobClass>(i % kJobClassCount);  // eval: 0.25 on the V100
      jobs.push_back(j);
    }
    for (const char* policy : {"fifo", "sjf", "las", "backfill", "frugal"}) {
      SCOPED_TRACE(std::string(policy) + " round " + std::to_string(round));
      const SimResult r = run_sim(jobs, c, policy);
      const Summary s = summarize(r);
      ASSERT_EQ(s.completed, jobs.size());
      EXPECT_LE(s.jct_bound_s, s.jct_s.mean * (1 + 1e-12));
      EXPECT_GE(s.jct_bound_s, s.jct_floor_s * (1 - 1e-12));
      tighter += s.jct_bound_s > s.jct_floor_s * 1.01;
      // The unit-weight machine alone: never above the bound with the weighted ones.
      std::vector<BoundJob> bj;
      BoundMachine unit{static_cast<double>(r.capacity_gpus), {}};
      for (const JobOutcome& o : r.jobs) {
        bj.push_back({o.submit, o.fastest_run_s});
        unit.need.push_back(o.min_gpu_seconds);
      }
      const double unit_only = queue_jct_bound(bj, {unit});
      EXPECT_GE(s.jct_bound_s, unit_only * (1 - 1e-12));
      weighted_tighter += s.jct_bound_s > unit_only * 1.01;
    }
  }
  EXPECT_GT(tighter, 0);           // the queue term matters on these loads
  EXPECT_GT(weighted_tighter, 0);  // and the V100s' speed does
}

}  // namespace
}  // namespace frugal
