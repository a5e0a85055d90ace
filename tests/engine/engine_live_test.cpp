// The engine's live-service additions: withdraw() and adopt().

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "engine/engine.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;
using testing::test_gpus;

bool started(const std::vector<Decision>& ds, JobIdx j) {
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kStart && d.job == j) return true;
  return false;
}

TEST(EngineLive, WithdrawTakesAQueuedJobOffTheQueue) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("fifo"),
           EngineOptions{kA100});
  const JobSpec big = job("big", 0, 8, 100), next = job("next", 0, 8, 100),
                last = job("last", 0, 8, 100);
  e.submit(0, &big, 0);
  e.submit(1, &next, 0);
  e.submit(2, &last, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  EXPECT_EQ(e.pending_count(), 2u);
  EXPECT_TRUE(e.withdraw(1, 10));
  EXPECT_FALSE(e.withdraw(1, 10));  // already gone
  EXPECT_FALSE(e.withdraw(0, 10));  // running: not withdrawable
  EXPECT_EQ(e.pending_count(), 1u);
  EXPECT_EQ(e.check_invariants(), "");
  e.finish(0, 100);
  const auto& ds = e.schedule(100);
  EXPECT_TRUE(started(ds, 2));
  EXPECT_FALSE(started(ds, 1));
  EXPECT_EQ(e.check_invariants(), "");
}

TEST(EngineLive, WithdrawADeferredJob) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(),
           testing::profile("timeshift:max_delay_s=86400:min_saving=0"), EngineOptions{kA100});
  JobSpec d = job("d", 0, 1, 3600);
  d.deferrable = true;
  d.deadline = 86400;
  e.submit(0, &d, 0);
  const auto& ds = e.schedule(0);
  bool deferred = false;
  for (const Decision& x : ds) deferred |= x.kind == Decision::Kind::kDefer;
  if (!deferred) GTEST_SKIP() << "prices made starting now the cheapest";
  EXPECT_EQ(e.pending_count(), 1u);
  EXPECT_TRUE(e.withdraw(0, 1));
  EXPECT_EQ(e.pending_count(), 0u);
  EXPECT_EQ(e.next_wakeup(), kNever);
  EXPECT_EQ(e.check_invariants(), "");
}

TEST(EngineLive, AdoptHoldsThePlacementAndFinishFreesIt) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("fifo"),
           EngineOptions{kA100});
  const JobSpec a = job("a", 0, 4, 100), b = job("b", 0, 8, 100);
  Placement p;
  p.model = kA100;
  for (int16_t g = 0; g < 4; ++g) p.slots.push_back(Slot{0, g, kMilliPerGpu});
  ASSERT_TRUE(e.adopt(0, &a, p, 5, 10).ok());
  EXPECT_EQ(e.running_count(), 1u);
  EXPECT_EQ(e.cluster().allocated_milli(), 4000);
  EXPECT_FALSE(e.adopt(0, &a, p, 5, 10).ok());  // index in use
  EXPECT_FALSE(e.adopt(5, &a, p, 5, 10).ok());  // GPUs already held
  EXPECT_EQ(e.check_invariants(), "");
  e.submit(1, &b, 10);
  EXPECT_FALSE(started(e.schedule(10), 1));  // needs all 8
  e.finish(0, 20);
  EXPECT_TRUE(started(e.schedule(20), 1));
  EXPECT_EQ(e.check_invariants(), "");
}

}  // namespace
}  // namespace frugal
