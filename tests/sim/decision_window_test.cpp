// SimOptions::decision_window_s: events within the window are handled together, at the
// latest one's time; without it each is handled at its own time. A service that saw two ends
// at one poll decided with both GPUs free; its history has them a millisecond apart.

#include "../common/test_util.h"

namespace frugal::testing {
namespace {

// X frees the V100 node at 10 s, Y the A100 node at 10.001 s; Q (any model) waits from 1 s.
// Handled one at a time, Q takes the V100s, the only free ones at 10 s; handled together it
// gets the faster A100s.
std::vector<JobSpec> two_ends_a_millisecond_apart() {
  JobSpec x = job("X", 0, 4, 5);  // 5 s on A100 = 10 s on V100 (speed 0.5)
  x.allowed_models = {kV100};
  JobSpec y = job("Y", 0, 4, 10.001);
  y.allowed_models = {kA100};
  return {x, y, job("Q", 1, 4, 100)};
}

const ClusterSpec& two_nodes() {
  static const ClusterSpec c = cluster_of({node("a0", kA100, 4), node("v0", kV100, 4)});
  return c;
}

TEST(DecisionWindow, EndsWithinTheWindowFreeTheirGpusTogether) {
  const auto jobs = two_ends_a_millisecond_apart();
  for (const char* policy : {"fifo", "backfill"}) {
    SCOPED_TRACE(policy);
    const SimResult apart = run_sim(jobs, two_nodes(), policy);
    EXPECT_EQ(apart.jobs[2].last_model, kV100);
    EXPECT_DOUBLE_EQ(apart.jobs[2].first_start, 10);
    SimOptions o;
    o.decision_window_s = 0.25;
    const SimResult together = run_sim(jobs, two_nodes(), policy, o);
    EXPECT_EQ(together.jobs[2].last_model, kA100);
    EXPECT_DOUBLE_EQ(together.jobs[2].first_start, 10.001);  // the window's latest event
    EXPECT_DOUBLE_EQ(together.jobs[0].finish, 10.001);       // X's end is seen then
  }
}

TEST(DecisionWindow, EventsFartherApartThanTheWindowStaySeparate) {
  const auto jobs = two_ends_a_millisecond_apart();
  SimOptions o;
  o.decision_window_s = 0.0005;  // shorter than the millisecond between the ends
  const SimResult r = run_sim(jobs, two_nodes(), "backfill", o);
  EXPECT_EQ(r.jobs[2].last_model, kV100);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 10);
}

// Arrivals are events too: two submissions 0.1 s apart on a cluster with room for one are
// decided together, and the first in queue order (by submission) takes the room.
TEST(DecisionWindow, ArrivalsWithinTheWindowAreDecidedAtTheLatest) {
  const auto c = cluster_of({node("a0", kA100, 4)});
  const std::vector<JobSpec> jobs = {job("A", 0, 4, 50), job("B", 0.1, 4, 50)};
  SimOptions o;
  o.decision_window_s = 0.25;
  const SimResult r = run_sim(jobs, c, "fifo", o);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start, 0.1);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 50.1);
  // Without the window A starts at its arrival.
  EXPECT_DOUBLE_EQ(run_sim(jobs, c, "fifo").jobs[0].first_start, 0);
}

}  // namespace
}  // namespace frugal::testing
