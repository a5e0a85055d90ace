// queue_jct_bound (sim/jct_bound.h): exact on cases worked out by hand, never above the mean
// JCT of any simulated schedule (every profile, elastic and fractional jobs, heterogeneous
// nodes), never below the floor; and the floor of an elastic job at its largest size.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

TEST(JctBound, NoQueueIsTheFloor) {
  EXPECT_DOUBLE_EQ(queue_jct_bound({}, 8), 0);
  EXPECT_DOUBLE_EQ(queue_jct_bound({{0, 100, 400}}, 8), 100);
  // Far apart: each alone.
  EXPECT_DOUBLE_EQ(queue_jct_bound({{0, 100, 100}, {1000, 50, 50}}, 1), 75);
}

TEST(JctBound, CountsTheQueueTheFloorIgnores) {
  // Two 100-second one-GPU jobs at 0 on one GPU: any schedule ends them at 100 and 200.
  EXPECT_DOUBLE_EQ(queue_jct_bound({{0, 100, 100}, {0, 100, 100}}, 1), 150);
  // Three: 100, 200, 300 → 200 (the floor says 100).
  EXPECT_DOUBLE_EQ(queue_jct_bound({{0, 100, 100}, {0, 100, 100}, {0, 100, 100}}, 1), 200);
  // Without a capacity only the floor counts.
  EXPECT_DOUBLE_EQ(queue_jct_bound({{0, 100, 100}, {0, 100, 100}}, 0), 100);
  // A job needing no GPU leaves the machine at once but stays its floor.
  EXPECT_DOUBLE_EQ(queue_jct_bound({{0, 100, 100}, {0, 30, 0}}, 1), 65);
  // SRPT serves the short job first when it arrives (a 4-GPU-second job at 10 behind a
  // 100-GPU-second one on 1 GPU): N = 2 on [10, 14), floors (100 and 4) end at 100 and 14:
  // max(N_floor, N_srpt) = 1 on [0, 10), 2 on [10, 14), 1 on [14, 104): (10 + 8 + 90) / 2.
  EXPECT_DOUBLE_EQ(queue_jct_bound({{0, 100, 100}, {10, 4, 4}}, 1), 54);
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
  int tighter = 0;
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
      jobs.push_back(j);
    }
    for (const char* policy : {"fifo", "sjf", "las", "backfill", "frugal"}) {
      SCOPED_TRACE(std::string(policy) + " round " + std::to_string(round));
      const Summary s = summarize(run_sim(jobs, c, policy));
      ASSERT_EQ(s.completed, jobs.size());
      EXPECT_LE(s.jct_bound_s, s.jct_s.mean * (1 + 1e-12));
      EXPECT_GE(s.jct_bound_s, s.jct_floor_s * (1 - 1e-12));
      tighter += s.jct_bound_s > s.jct_floor_s * 1.01;
    }
  }
  EXPECT_GT(tighter, 0);  // the queue term matters on these loads
}

}  // namespace
}  // namespace frugal
