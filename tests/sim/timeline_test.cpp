// The bounded timeline (sim/timeline.h): capped memory, exact time-weighted means, and the
// simulator's recording of it.

#include "sim/timeline.h"

#include <gtest/gtest.h>

#include "../common/test_util.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::job;
using testing::kA100;
using testing::node;
using testing::run_sim;

TimelineSample value(double v) {
  TimelineSample s;
  for (double& x : s.v) x = v;
  return s;
}

TEST(Timeline, StaysUnderItsCapAfterAMillionSamples) {
  Timeline t(1, 1024);
  double now = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    t.add(now, now + 7, value(i % 10));
    now += 7;
  }
  EXPECT_LE(t.size(), 1024u);
  EXPECT_GE(t.size(), 512u);  // widening halves the count, never more
  double covered = 0;
  for (size_t i = 0; i < t.size(); ++i) covered += t.covered_s(i);
  EXPECT_DOUBLE_EQ(covered, 7'000'000.0);
  EXPECT_DOUBLE_EQ(t.bucket_s() * 1024 >= 7'000'000 ? 1.0 : 0.0, 1.0);
}

TEST(Timeline, MeansAreExactOnAStepFunction) {
  // 0..30: 4, 30..90: 10, 90..100: 1; buckets of 50 s.
  Timeline t(50, 8);
  t.add(0, 30, value(4));
  t.add(30, 90, value(10));
  t.add(90, 100, value(1));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_DOUBLE_EQ(t.mean(0, TimelineMetric::kAllocatedGpus), (30 * 4 + 20 * 10) / 50.0);
  EXPECT_DOUBLE_EQ(t.mean(1, TimelineMetric::kQueueJobs), (40 * 10 + 10 * 1) / 50.0);
  EXPECT_DOUBLE_EQ(t.covered_s(1), 50);
}

TEST(Timeline, WideningKeepsTheMeansExact) {
  Timeline t(10, 4);  // 40 s fit; 100 s needs two doublings (width 40, 3 buckets)
  t.add(0, 25, value(2));
  t.add(25, 100, value(6));
  EXPECT_DOUBLE_EQ(t.bucket_s(), 40);
  ASSERT_LE(t.size(), 4u);
  EXPECT_DOUBLE_EQ(t.mean(0, TimelineMetric::kProvisionedGpus), (25 * 2 + 15 * 6) / 40.0);
  EXPECT_DOUBLE_EQ(t.mean(1, TimelineMetric::kProvisionedGpus), 6);
  double integral = 0;
  for (size_t i = 0; i < t.size(); ++i)
    integral += t.mean(i, TimelineMetric::kProvisionedGpus) * t.covered_s(i);
  EXPECT_NEAR(integral, 25 * 2 + 75 * 6, 1e-9);
}

TEST(Timeline, GapsAndEmptySpans) {
  Timeline t(10, 16);
  t.add(0, 10, value(3));
  t.add(10, 10, value(100));  // empty: ignored
  t.add(30, 40, value(5));    // 10..30 uncovered
  ASSERT_EQ(t.size(), 4u);
  EXPECT_DOUBLE_EQ(t.covered_s(1), 0);
  EXPECT_DOUBLE_EQ(t.mean(1, TimelineMetric::kQueueJobs), 0);
  EXPECT_DOUBLE_EQ(t.mean(3, TimelineMetric::kQueueJobs), 5);
}

TEST(Timeline, SimulatorRecordsItOnlyWhenAsked) {
  const auto cluster = cluster_of({node("n0", kA100, 4)});
  const std::vector<JobSpec> jobs = {job("a", 0, 4, 600), job("b", 0, 2, 300),
                                     job("c", 100, 2, 300)};
  SimOptions o;
  const SimResult off = run_sim(jobs, cluster, "fifo", o);
  EXPECT_FALSE(off.has_timeline);
  EXPECT_TRUE(off.timeline.empty());
  o.timeline = true;
  const SimResult on = run_sim(jobs, cluster, "fifo", o);
  ASSERT_TRUE(on.has_timeline);
  ASSERT_FALSE(on.timeline.empty());
  // The allocated series integrates to the simulator's allocated GPU-seconds.
  double alloc = 0, queue_max = 0;
  for (size_t i = 0; i < on.timeline.size(); ++i) {
    alloc += on.timeline.mean(i, TimelineMetric::kAllocatedGpus) * on.timeline.covered_s(i);
    queue_max = std::max(queue_max, on.timeline.mean(i, TimelineMetric::kQueueJobs));
    EXPECT_DOUBLE_EQ(on.timeline.mean(i, TimelineMetric::kBusyGpus),
                     on.timeline.mean(i, TimelineMetric::kAllocatedGpus));
  }
  EXPECT_NEAR(alloc, on.allocated_gpu_seconds, 1e-6);
  EXPECT_GT(queue_max, 0);  // b and c wait for a
  EXPECT_EQ(on.allocated_gpu_seconds, off.allocated_gpu_seconds);
  EXPECT_EQ(on.last_completion, off.last_completion);
  EXPECT_GE(on.jobs[0].pool, 0);
}

}  // namespace
}  // namespace frugal
