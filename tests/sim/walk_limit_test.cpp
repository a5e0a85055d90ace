// EngineOptions::walk_limit (SimOptions::walk_limit): a bounded walk, on random workloads
// under every kind of queue discipline and preemption, loses no job and keeps the engine's
// state consistent; a queue shorter than the bound is walked as without it.

#include <fmt/format.h>
#include <random>

#include "../common/test_util.h"

namespace frugal::testing {
namespace {

std::vector<JobSpec> random_jobs(uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  const int sizes[] = {1, 1, 1, 2, 4, 8};
  std::vector<JobSpec> jobs;
  for (int i = 0; i < n; ++i) {
    // Arrivals bunched in the first hour: the queue gets much longer than the bound.
    JobSpec j = job(fmt::format("j{}", i), std::uniform_real_distribution<double>(0, 3600)(rng),
                    sizes[rng() % 6], std::uniform_real_distribution<double>(60, 7200)(rng));
    j.tier = static_cast<Tier>(rng() % 3);
    if (rng() % 5 == 0) {
      j.gpus = 1;
      j.gpu_milli = 250 * static_cast<Milli>(1 + rng() % 3);
    }
    jobs.push_back(j);
  }
  return jobs;
}

TEST(WalkLimit, ABoundedWalkFinishesEveryJobUnderEveryPolicy) {
  const auto c = cluster_of({node("a0", kA100, 8), node("a1", kA100, 8), node("v0", kV100, 4)});
  for (const char* policy : {"fifo", "backfill", "sjf", "las", "tiers", "frugal"}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(fmt::format("{} seed {}", policy, seed));
      const std::vector<JobSpec> jobs = random_jobs(seed, 120);
      SimOptions o;
      o.walk_limit = 4;
      const SimResult r = run_sim(jobs, c, policy, o);  // state checked after every cycle
      for (size_t i = 0; i < jobs.size(); ++i)
        EXPECT_TRUE(r.jobs[i].finish >= 0 || r.jobs[i].unschedulable) << jobs[i].id;
    }
  }
}

// Under las, R1 and R2 (long-running, demoted) are tentative victims for three fresh
// V100-only jobs. P1 takes R2's V100s; P2 and P3 find none. A walk bounded at 2 stops
// before R1, whose A100s nobody took: it resumes there instead of being preempted.
TEST(WalkLimit, AVictimTheWalkDidNotReachResumesOnItsFreeGpus) {
  const auto c = cluster_of({node("a0", kA100, 2), node("v0", kV100, 2)});
  std::vector<JobSpec> jobs = {job("R1", 0, 2, 200000), job("R2", 0, 2, 200000)};
  jobs[0].allowed_models = {kA100};
  jobs[1].allowed_models = {kV100};
  for (int i = 1; i <= 3; ++i) {
    JobSpec p = job(fmt::format("P{}", i), 50000, 2, 1000);
    p.allowed_models = {kV100};
    jobs.push_back(p);
  }
  for (const size_t limit : {size_t{0}, size_t{2}}) {
    SCOPED_TRACE(limit);
    SimOptions o;
    o.walk_limit = limit;
    const SimResult r = run_sim(jobs, c, "las", o);
    EXPECT_EQ(r.jobs[0].preemptions, 0) << "R1";
    EXPECT_GE(r.jobs[1].preemptions, 1) << "R2";
    EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 50000) << "P1";
  }
}

TEST(WalkLimit, AQueueShorterThanTheBoundIsWalkedAsWithout) {
  const auto c = cluster_of({node("a0", kA100, 8), node("a1", kA100, 8)});
  for (const char* policy : {"backfill", "las", "tiers"}) {
    SCOPED_TRACE(policy);
    const std::vector<JobSpec> jobs = random_jobs(7, 40);
    SimOptions bounded;
    bounded.walk_limit = 1000;  // never reached: 40 jobs
    const SimResult a = run_sim(jobs, c, policy, bounded);
    const SimResult b = run_sim(jobs, c, policy);
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
      EXPECT_DOUBLE_EQ(a.jobs[i].first_start, b.jobs[i].first_start) << jobs[i].id;
      EXPECT_DOUBLE_EQ(a.jobs[i].finish, b.jobs[i].finish) << jobs[i].id;
    }
  }
}

}  // namespace
}  // namespace frugal::testing
