// The policy guard's rule (service/policy_guard.h): worse by more than a threshold, at every
// check, for a whole window, then once (hysteresis) until a person rearms it.

#include "service/policy_guard.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

ShadowFigures core_p95(double wait_s) {
  ShadowFigures f;
  f.wait_by_tier_s[static_cast<size_t>(Tier::kCore)].p95 = wait_s;
  return f;
}

PolicyGuardConfig config() {
  PolicyGuardConfig c;
  c.enabled = true;
  c.fallback = "frugal";
  c.window_s = 600;
  c.check_every_s = 60;
  c.core_p95_wait = 0.5;
  c.min_wait_s = 60;
  return c;
}

TEST(PolicyGuard, FallsBackOnlyAfterAWholeWindowWorse) {
  PolicyGuard g(config());
  const ShadowFigures bad = core_p95(1000), good = core_p95(100);
  EXPECT_FALSE(g.check(bad, good, 0));
  EXPECT_DOUBLE_EQ(g.worse_since(), 0);
  EXPECT_FALSE(g.check(bad, good, 300));
  // Better for one check: the clock starts again.
  EXPECT_FALSE(g.check(good, good, 360));
  EXPECT_LT(g.worse_since(), 0);
  EXPECT_FALSE(g.check(bad, good, 420));
  EXPECT_FALSE(g.check(bad, good, 1000));
  const auto why = g.check(bad, good, 1020);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("core p95 wait 1000 s vs 100 s"), std::string::npos) << *why;
  EXPECT_NE(why->find("frugal"), std::string::npos);
  // Hysteresis: silent until a person chooses again.
  EXPECT_FALSE(g.armed());
  EXPECT_FALSE(g.check(bad, good, 5000));
  g.rearm();
  EXPECT_TRUE(g.armed());
  EXPECT_TRUE(g.due(5000));
  EXPECT_FALSE(g.check(bad, good, 5000));
}

TEST(PolicyGuard, ThresholdsAreRelativeWithAFloorAndAbsoluteForMisses) {
  PolicyGuardConfig c = config();
  c.deadline_misses = 2;
  c.usd_per_useful_gpu_hour = 0.2;
  PolicyGuard g(c);
  // 50 % worse is not more than 50 %; 40 s worse is under the 60 s floor.
  EXPECT_EQ(g.worse(core_p95(150), core_p95(100)), "");
  EXPECT_EQ(g.worse(core_p95(50), core_p95(10)), "");
  EXPECT_NE(g.worse(core_p95(161), core_p95(100)), "");
  ShadowFigures a, f;
  a.deadline_misses = 3;
  f.deadline_misses = 1;
  EXPECT_EQ(g.worse(a, f), "");  // 2 more is not more than 2
  a.deadline_misses = 4;
  EXPECT_NE(g.worse(a, f).find("4 deadline misses vs 1"), std::string::npos);
  ShadowFigures x, y;
  x.usd_per_useful_gpu_hour = 3.0;
  y.usd_per_useful_gpu_hour = 2.0;
  // Idle capacity with nothing waiting is the workload's, not the policy's choice.
  EXPECT_EQ(g.worse(x, y), "");
  x.queued = 1;
  EXPECT_NE(g.worse(x, y).find("$3.00 vs $2.00"), std::string::npos);
  y.usd_per_useful_gpu_hour = 0;  // no work done by the fallback: nothing to compare
  EXPECT_EQ(g.worse(x, y), "");
}

TEST(PolicyGuard, ChecksAreSpacedByCheckEvery) {
  PolicyGuard g(config());
  EXPECT_TRUE(g.due(0));
  (void)g.check(core_p95(0), core_p95(0), 0);
  EXPECT_FALSE(g.due(59));
  EXPECT_TRUE(g.due(60));
}

}  // namespace
}  // namespace frugal
