// A shadow policy (sim/shadow.h) on a live event stream: simulated execution with run times
// learned when the real runs end. One 8-GPU A100 node unless said; durations A100 seconds.

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "sim/shadow.h"
#include "sim/simulator.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;
using testing::profile;
using testing::test_gpus;

EngineOptions options() {
  EngineOptions o;
  o.reference_model = kA100;
  return o;
}

TEST(Shadow, JobRunsUntilItsRealWorkIsKnown) {
  const ClusterSpec c = make_homogeneous_cluster(8, kA100, 8);
  ShadowRun s(c, test_gpus(), profile("fifo"), options());
  s.submit(1, job("a", 0, 8, 0), 0);
  s.submit(2, job("b", 0, 8, 0), 0);
  s.advance(0);
  EXPECT_EQ(s.figures(3600).running, 1u);
  EXPECT_EQ(s.figures(3600).queued, 1u);
  // Nothing ends a job whose work is unknown.
  s.advance(500);
  EXPECT_EQ(s.figures(3600).running, 1u);
  // a did 100 s of work in reality: the shadow learns it at 600, after it had done it, so
  // a ends now (late by 500 s) and b starts.
  EXPECT_TRUE(s.work_known(1, 100, 600));
  s.advance(600);
  EXPECT_EQ(s.late_ends(), 1u);
  EXPECT_DOUBLE_EQ(s.late_end_s(), 500);
  const ShadowFigures f = s.figures(3600);
  EXPECT_EQ(f.completed, 1u);
  EXPECT_EQ(f.started, 2u);
  EXPECT_DOUBLE_EQ(f.wait_s.p99, 600 - (600 - 0) * 0.01);  // waits 0 and 600
  // b's work known before it is done: it ends exactly then.
  EXPECT_TRUE(s.work_known(2, 50, 610));
  s.advance(700);
  EXPECT_EQ(s.figures(3600).completed, 2u);
  EXPECT_EQ(s.figures(3600).running, 0u);
  EXPECT_EQ(s.late_ends(), 1u);
  EXPECT_EQ(s.events(), 4u);
}

TEST(Shadow, MatchesTheSimulatorWhenWorkIsKnownAtArrival) {
  // Every duration known as the job arrives: the shadow is the simulator, fed live.
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 40; ++i)
    jobs.push_back(job("j" + std::to_string(i), i * 37.0, 1 + (i * 5) % 8, 100 + (i * 71) % 900));
  const ClusterSpec c = make_homogeneous_cluster(16, kA100, 8);
  for (const char* policy : {"fifo", "backfill", "sjf", "frugal"}) {
    SCOPED_TRACE(policy);
    SimOptions so;
    so.reference_model = kA100;
    const SimResult sim = simulate(jobs, c, test_gpus(), profile(policy), so);
    ShadowRun s(c, test_gpus(), profile(policy), options());
    for (size_t i = 0; i < jobs.size(); ++i) {
      s.submit(static_cast<int64_t>(i), jobs[i], jobs[i].submit);
      s.work_known(static_cast<int64_t>(i), jobs[i].duration, jobs[i].submit);
      s.advance(jobs[i].submit);
    }
    s.advance(1e6);
    const ShadowFigures f = s.figures(1e7);
    const Summary sum = summarize(sim);
    EXPECT_EQ(f.completed, sum.completed);
    EXPECT_NEAR(f.jct_s.mean, sum.jct_s.mean, 1e-6);
    EXPECT_NEAR(f.cost_usd, sim.ledger.total.total_usd(), 1e-6);
    EXPECT_EQ(s.late_ends(), 0u);
  }
}

TEST(Shadow, WithdrawnJobsLeaveAndNodeChangesReachTheEngine) {
  const ClusterSpec c = make_homogeneous_cluster(16, kA100, 8);  // two nodes
  ShadowRun s(c, test_gpus(), profile("fifo"), options());
  s.submit(1, job("a", 0, 8, 0), 0);
  s.submit(2, job("b", 0, 8, 0), 0);
  s.submit(3, job("c", 0, 8, 0), 0);
  s.advance(0);
  EXPECT_EQ(s.figures(60).running, 2u);
  // c, queued, is cancelled; b's node fails and b goes back to the queue.
  EXPECT_TRUE(s.withdraw(3, 10));
  const NodeId b_node = s.engine().job(1).placement.slots.front().node;
  s.node_down(b_node, 20);
  s.advance(20);
  EXPECT_EQ(s.figures(60).running, 1u);
  EXPECT_EQ(s.figures(60).queued, 1u);
  s.node_up(b_node, 30);
  s.advance(30);
  EXPECT_EQ(s.figures(60).running, 2u);
  // a started in the shadow but its real run never did: it ends now, having done no work.
  EXPECT_TRUE(s.withdraw(1, 40));
  s.advance(40);
  EXPECT_EQ(s.figures(60).running, 1u);
  EXPECT_FALSE(s.withdraw(99, 50));
  EXPECT_FALSE(s.work_known(99, 1, 50));
}

TEST(Shadow, WindowsCountOnlyTheirSpan) {
  const ClusterSpec c = make_homogeneous_cluster(8, kA100, 8);
  ShadowRun s(c, test_gpus(), profile("fifo"), options());
  s.submit(1, job("a", 0, 8, 0), 0);
  s.work_known(1, 3600, 0);
  s.advance(0);
  s.advance(10 * 3600.0);
  s.submit(2, job("b", 0, 4, 0), 10 * 3600.0);
  s.work_known(2, 1800, 10 * 3600.0);
  s.advance(11 * 3600.0);
  const ShadowFigures hour = s.figures(3600);
  EXPECT_EQ(hour.completed, 1u);
  EXPECT_EQ(hour.started, 1u);
  // The last hour: 4 of 8 GPUs for half of it.
  EXPECT_NEAR(hour.gpu_utilization, 0.25, 1e-9);
  const ShadowFigures day = s.figures(24 * 3600.0);
  EXPECT_EQ(day.completed, 2u);
  EXPECT_NEAR(day.gpu_utilization, (8 * 3600.0 + 4 * 1800.0) / (8 * 11 * 3600.0), 1e-9);
}

}  // namespace
}  // namespace frugal
