// Elastic jobs (+elastic): resizes of running jobs with max_gpus > gpus, on hand-worked
// schedules. One 8-GPU A100 node; durations are A100 seconds at the requested size; the
// defaults alpha = 0.8 and resize_cost_s = 30 apply: on n GPUs a job asking for g runs
// at speed (n/g)^0.8.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../common/test_util.h"
#include "../cost/cost_test_util.h"
#include "sim/summary.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::job;
using testing::kA100;
using testing::node;
using testing::run_sim;

JobSpec elastic(std::string id, Seconds submit, int gpus, int min, int max, Seconds duration) {
  JobSpec j = job(std::move(id), submit, gpus, duration);
  j.min_gpus = min;
  j.max_gpus = max;
  return j;
}

ClusterSpec eight() {
  return cluster_of({node("n0", kA100, 8)});
}

TEST(Elastic, WithoutTheOptionTheJobRunsAtItsRequestedSize) {
  const SimResult r = run_sim({elastic("E", 0, 2, 1, 8, 1000)}, eight(), "fifo");
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 1000);
  EXPECT_EQ(r.resizes, 0);
}

TEST(Elastic, AloneItGrowsToTheWholeNode) {
  // t=0: E starts on 2 GPUs, nothing is queued, 6 are idle: it grows to 8 at once (30 s
  // restart), then runs its 1000 s of 2-GPU work at speed 4^0.8.
  const SimResult r = run_sim({elastic("E", 0, 2, 1, 8, 1000)}, eight(), "fifo+elastic");
  const double s8 = std::pow(4.0, 0.8);
  EXPECT_NEAR(r.jobs[0].finish, 30 + 1000 / s8, 1e-6);
  EXPECT_EQ(r.jobs[0].resizes, 1);
  EXPECT_EQ(r.resizes, 1);
  // It held 8 GPUs from 0 to the finish (the 2-GPU segment lasted no time).
  EXPECT_NEAR(r.jobs[0].gpu_seconds, 8 * (30 + 1000 / s8), 1e-6);
  EXPECT_NEAR(r.jobs[0].rework_gpu_seconds, 8 * 30, 1e-6);
  EXPECT_EQ(summarize(r).resizes, 1);
}

TEST(Elastic, AGrowthThatDoesNotPayIsNotMade) {
  // 20 s of work: at 8 GPUs it would end at 30 + 20 / 4^0.8 > 20. It stays at 2.
  const SimResult r = run_sim({elastic("E", 0, 2, 1, 8, 20)}, eight(), "fifo+elastic");
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 20);
  EXPECT_EQ(r.resizes, 0);
}

TEST(Elastic, ShrinksForAQueuedRigidJobAndGrowsBack) {
  // t=0    E (2 GPUs, min 1, max 8, 1000 s) grows to 8; restart until 30.
  // t=100  R (4 GPUs, 100 s) arrives: no GPU is free. E shrinks GPU by GPU until R fits:
  //        at 4 (its first 4 GPUs); R starts. E kept 70 s at speed s8; restart until 130.
  // t=200  R ends; nothing queued: E grows back to 8 (kept 70 s at s4), restart until 230.
  const std::vector<JobSpec> jobs = {elastic("E", 0, 2, 1, 8, 1000), job("R", 100, 4, 100)};
  const SimResult r = run_sim(jobs, eight(), "fifo+elastic");
  const double s8 = std::pow(4.0, 0.8), s4 = std::pow(2.0, 0.8);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 100);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish, 200);
  EXPECT_NEAR(r.jobs[0].finish, 230 + (1000 - 70 * s8 - 70 * s4) / s8, 1e-6);
  EXPECT_EQ(r.jobs[0].resizes, 3);
  EXPECT_EQ(r.jobs[0].preemptions, 0);
  EXPECT_EQ(r.jobs[0].migrations, 0);
}

TEST(Elastic, GrowsBackWhenPastItsEstimate) {
  // As above, but E's runtime estimate is 150 s (a prediction; it runs 1000 s of work). By
  // t=200 it has done 70 s · s8 + 70 s · s4 > 150: past its estimate, its remaining work is
  // unknown and taken as long as what it has done, so growing back still pays and it grows
  // as with the true duration. (Before, an overrun job never grew: its estimate said no
  // work was left.)
  JobSpec e = elastic("E", 0, 2, 1, 8, 1000);
  e.estimate = 150;
  const SimResult r = run_sim({e, job("R", 100, 4, 100)}, eight(), "fifo+elastic");
  const double s8 = std::pow(4.0, 0.8), s4 = std::pow(2.0, 0.8);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 100);
  EXPECT_NEAR(r.jobs[0].finish, 230 + (1000 - 70 * s8 - 70 * s4) / s8, 1e-6);
  EXPECT_EQ(r.jobs[0].resizes, 3);
}

TEST(Elastic, StartsSmallerWhenItsRequestDoesNotFit) {
  // R holds 7 GPUs until 500; E asks for 2 (min 1): it starts at once on the free one, at
  // speed 0.5^0.8. At 500 it grows to 8 (kept 500 s).
  const std::vector<JobSpec> jobs = {job("R", 0, 7, 500), elastic("E", 0, 2, 1, 8, 1000)};
  const SimResult r = run_sim(jobs, eight(), "fifo+elastic");
  const double s1 = std::pow(0.5, 0.8), s8 = std::pow(4.0, 0.8);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 0);
  EXPECT_NEAR(r.jobs[1].finish, 530 + (1000 - 500 * s1) / s8, 1e-6);
  EXPECT_EQ(r.jobs[1].resizes, 1);
}

TEST(Elastic, MovesToAnIdleOwnedNodeToGrow) {
  // Two owned 8-GPU nodes. R (6 GPUs, 1000 s) and E (2, max 8) fill n0; n1 is idle and paid
  // for anyway: E restarts there on 8 GPUs at once (30 s) and runs its 3000 s at 4^0.8.
  const std::vector<JobSpec> jobs = {job("R", 0, 6, 1000), elastic("E", 0, 2, 1, 8, 3000)};
  const SimResult r =
      run_sim(jobs, cluster_of({node("n0", kA100, 8), node("n1", kA100, 8)}), "fifo+elastic");
  EXPECT_NEAR(r.jobs[1].finish, 30 + 3000 / std::pow(4.0, 0.8), 1e-6);
  EXPECT_EQ(r.jobs[1].resizes, 1);
}

TEST(Elastic, StartedBelowItsRequestItMovesToGrow) {
  // n0: R holds 6 GPUs until 5000; n1: Q holds all 8 until 100. E asks for 4 (min 2, max 8)
  // and starts at once on n0's 2 free GPUs at speed 0.5^0.8. At 100 n0 has no room, but n1
  // is free: E restarts there on all 8 (kept 100 s; 30 s restart).
  const std::vector<JobSpec> jobs = {job("R", 0, 6, 5000), job("Q", 0, 8, 100),
                                     elastic("E", 0, 4, 2, 8, 1000)};
  const SimResult r =
      run_sim(jobs, cluster_of({node("n0", kA100, 8), node("n1", kA100, 8)}), "fifo+elastic");
  const double s2 = std::pow(0.5, 0.8), s8 = std::pow(2.0, 0.8);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 0);
  EXPECT_EQ(r.jobs[2].resizes, 1);
  EXPECT_NEAR(r.jobs[2].finish, 130 + (1000 - 100 * s2) / s8, 1e-6);
}

TEST(Elastic, RandomWorkloadKeepsInvariantsAndBalancedBooks) {
  std::mt19937_64 rng(7);
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 120; ++i) {
    const Seconds submit = std::uniform_real_distribution<double>(0, 20000)(rng);
    const int gpus = 1 << std::uniform_int_distribution<int>(0, 2)(rng);
    const Seconds d = std::uniform_real_distribution<double>(10, 3000)(rng);
    JobSpec j = job("j" + std::to_string(i), submit, gpus, d);
    if (i % 3 == 0) {
      j.min_gpus = std::uniform_int_distribution<int>(0, gpus)(rng);
      j.max_gpus = gpus + std::uniform_int_distribution<int>(1, 8)(rng);
    }
    if (i % 5 == 0) j.checkpoint_interval = 300;
    jobs.push_back(std::move(j));
  }
  const ClusterSpec c = cluster_of({node("n0", kA100, 8), node("n1", kA100, 4)});
  for (const char* policy : {"fifo+elastic", "backfill+elastic", "las+elastic"}) {
    const SimResult r = run_sim(jobs, c, policy);
    EXPECT_GT(r.resizes, 0) << policy;
    for (const JobOutcome& o : r.jobs) EXPECT_GE(o.finish, 0) << policy;
    double gpu_s = 0;
    for (const JobOutcome& o : r.jobs) gpu_s += o.gpu_seconds;
    EXPECT_NEAR(r.allocated_gpu_seconds, gpu_s, 1e-6 * gpu_s) << policy;
    SimOptions o;
    o.reference_model = kA100;
    o.check_invariants = true;
    const SimResult priced = simulate(jobs, c, testing::priced_gpus(), testing::profile(policy), o);
    ASSERT_EQ(priced.invariant_violation, "") << policy;
    const LedgerReport& l = priced.ledger;
    double teams = 0;
    for (const auto& [k, a] : l.by_team) teams += a.total_usd();
    EXPECT_NEAR(l.total.total_usd(), teams + l.unattributed.total_usd(), 1e-9 * l.total.total_usd())
        << policy;
  }
}

}  // namespace
}  // namespace frugal
