// --predict-runtimes in the simulator: predictions replace only the engine-visible
// estimate; true durations and completions are unchanged, and fifo (which ignores
// estimates) schedules exactly as without them.

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "sim/synthetic.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;
using testing::run_sim;

SimOptions predicting() {
  SimOptions o;
  o.predict_runtimes = true;
  return o;
}

TEST(PredictSim, FifoIsUnchangedByPredictions) {
  const auto jobs = make_synthetic_jobs(SyntheticOptions{300, 64, 0.9, 3});
  const ClusterSpec c = make_homogeneous_cluster(64, kA100, 8);
  const SimResult a = run_sim(jobs, c, "fifo");
  const SimResult b = run_sim(jobs, c, "fifo", predicting());
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].first_start, b.jobs[i].first_start) << i;
    EXPECT_EQ(a.jobs[i].finish, b.jobs[i].finish) << i;
  }
  EXPECT_FALSE(a.predicted);
  EXPECT_TRUE(b.predicted);
  EXPECT_EQ(b.prediction.jobs, jobs.size());
}

TEST(PredictSim, BackfillKeepsTrueDurations) {
  const auto jobs = make_synthetic_jobs(SyntheticOptions{300, 64, 0.9, 5});
  const ClusterSpec c = make_homogeneous_cluster(64, kA100, 8);
  const SimResult b = run_sim(jobs, c, "backfill", predicting());
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].duration <= 0 || b.jobs[i].preemptions > 0) continue;
    ASSERT_GE(b.jobs[i].finish, 0) << i;
    // Run exactly the true duration (A100 = reference): the estimate never shortens it.
    EXPECT_NEAR(b.jobs[i].finish - b.jobs[i].first_start, jobs[i].duration, 1e-6) << i;
  }
}

// One 8-GPU node. j0 holds 6 GPUs until 100; j1 needs all 8; j2 (2 GPUs, 10 s) fits now.
std::vector<JobSpec> head_blocked() {
  return {job("j0", 0, 6, 100), job("j1", 1, 8, 100), job("j2", 2, 2, 10)};
}

TEST(PredictSim, BackfillDecisionsChangeOnlyThroughEstimates) {
  const ClusterSpec c = make_homogeneous_cluster(8, kA100, 8);
  // Oracle: j2 ends at 12, before j0's end (the shadow time 100): backfilled at t=2.
  const SimResult oracle = run_sim(head_blocked(), c, "backfill");
  EXPECT_DOUBLE_EQ(oracle.jobs[2].first_start, 2);
  // Predicted: nothing has completed yet, so every estimate is the 1 h default; j2 would
  // seem to run past the shadow time on GPUs j1 needs: no backfill, j2 runs after j1.
  const SimResult pred = run_sim(head_blocked(), c, "backfill", predicting());
  EXPECT_DOUBLE_EQ(pred.jobs[1].first_start, 100);
  EXPECT_DOUBLE_EQ(pred.jobs[2].first_start, 200);
  EXPECT_DOUBLE_EQ(pred.jobs[2].finish, 210);  // its true duration
  EXPECT_EQ(pred.prediction.jobs, 3u);
  EXPECT_EQ(pred.prediction.by_level[static_cast<size_t>(PredictionLevel::kDefault)], 3u);
  // A trace estimate is kept as is: j2 says 10 s, so it is backfilled again.
  auto jobs = head_blocked();
  jobs[2].estimate = 10;
  const SimResult kept = run_sim(jobs, c, "backfill", predicting());
  EXPECT_DOUBLE_EQ(kept.jobs[2].first_start, 2);
  EXPECT_EQ(kept.prediction.jobs, 2u);
}

TEST(PredictSim, LearnsFromCompletions) {
  // Three 6-GPU jobs of 100 s and three 2-GPU jobs of 10 s complete by t=400; the
  // head-blocked scenario then gets learned estimates (100 s and 10 s) and backfills j2.
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(job("l" + std::to_string(i), 100 * i, 6, 100));
  for (int i = 0; i < 3; ++i) jobs.push_back(job("s" + std::to_string(i), i, 2, 10));
  jobs.push_back(job("j0", 400, 6, 100));
  jobs.push_back(job("j1", 401, 8, 100));
  jobs.push_back(job("j2", 402, 2, 10));
  const SimResult r =
      run_sim(jobs, make_homogeneous_cluster(8, kA100, 8), "backfill", predicting());
  EXPECT_DOUBLE_EQ(r.jobs[8].first_start, 402);  // predicted 10 s: backfilled
  EXPECT_DOUBLE_EQ(r.jobs[7].first_start, 500);
}

}  // namespace
}  // namespace frugal
