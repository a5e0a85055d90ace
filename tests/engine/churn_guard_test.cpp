// ChurnGuard (src/engine/churn_guard.h): trips on more decisions than its bound within one
// window with no job started or ended, names time, kinds and jobs; starts, ends and the
// window's end reset it.

#include "engine/churn_guard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace frugal {
namespace {

Decision d(Decision::Kind k, JobIdx j) {
  Decision x;
  x.kind = k;
  x.job = j;
  return x;
}

std::string name(JobIdx j) {
  return "job" + std::to_string(j);
}

// Two jobs resized back and forth: 2 decisions a cycle, 1 ms apart.
TEST(ChurnGuard, TripsOnResizesWithoutProgressAndNamesThem) {
  ChurnGuard g;
  const std::vector<Decision> cycle = {d(Decision::Kind::kResize, 3),
                                       d(Decision::Kind::kResize, 7)};
  double t = 100;
  int cycles = 0;
  while (!g.record(t, cycle, 50, name)) {
    t += 0.001;
    ASSERT_LT(++cycles, 100);
  }
  EXPECT_EQ(cycles, 25);  // the 26th cycle brings 52 > 50
  ASSERT_TRUE(g.tripped());
  const std::string& m = *g.tripped();
  EXPECT_NE(m.find("t=100.000"), std::string::npos) << m;
  EXPECT_NE(m.find("52 resize"), std::string::npos) << m;
  EXPECT_NE(m.find("job3 (26x)"), std::string::npos) << m;
  EXPECT_NE(m.find("job7 (26x)"), std::string::npos) << m;
  // Tripped stays tripped.
  EXPECT_FALSE(g.record(t + 1000, {d(Decision::Kind::kStart, 1)}, 50, name));
  EXPECT_TRUE(g.tripped());
}

TEST(ChurnGuard, StartsEndsAndTheWindowsEndReset) {
  const std::vector<Decision> cycle = {d(Decision::Kind::kMigrate, 1),
                                       d(Decision::Kind::kPreempt, 2)};
  ChurnGuard g;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_FALSE(g.record(10, cycle, 50, name));
    if (i % 10 == 9) g.progress();  // a job ended
  }
  for (int i = 0; i < 1000; ++i) {
    ASSERT_FALSE(g.record(20, cycle, 50, name));
    if (i % 10 == 9) {
      ASSERT_FALSE(g.record(20, {d(Decision::Kind::kStart, 9)}, 50, name));
    }
  }
  // 20 decisions per simulated minute: each window holds fewer than the bound.
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(g.record(100 + 6.0 * i, cycle, 50, name));
  EXPECT_FALSE(g.tripped());
  // Cycles with no decision count nothing.
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(g.record(1e6, {}, 50, name));
}

TEST(ChurnGuard, BoundGrowsWithTheJobs) {
  EXPECT_LT(ChurnGuard::bound_for(10), ChurnGuard::bound_for(1000000));
  EXPECT_GE(ChurnGuard::bound_for(0), 10000u);
}

}  // namespace
}  // namespace frugal
