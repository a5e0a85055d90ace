// Property tests: random mixed workloads on a heterogeneous cluster with node failures,
// under every profile, with the engine's and cluster's invariant checks after every cycle.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../common/test_util.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::kA100;
using testing::kT4;
using testing::kV100;
using testing::node;
using testing::test_gpus;

// 28 A100 (3×8 with tracked host CPU/memory, 1×4), 16 V100 (4×4), two CPU-only nodes.
ClusterSpec hetero() {
  return cluster_of({node("a0", kA100, 8, 64000, 524288), node("a1", kA100, 8, 64000, 524288),
                     node("a2", kA100, 8, 64000, 524288), node("a3", kA100, 4),
                     node("v0", kV100, 4, 32000, 131072), node("v1", kV100, 4, 32000, 131072),
                     node("v2", kV100, 4, 32000, 131072), node("v3", kV100, 4, 32000, 131072),
                     node("c0", kNoGpuModel, 0, 32000, 65536),
                     node("c1", kNoGpuModel, 0, 32000, 65536)});
}

std::vector<JobSpec> random_jobs(uint32_t seed, size_t n) {
  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  std::exponential_distribution<double> gap(1.0 / 90);
  std::lognormal_distribution<double> dur(std::log(600.0), 1.2);
  std::vector<JobSpec> jobs;
  Seconds t = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!chance(0.1)) t += std::round(gap(rng));  // some arrive together
    JobSpec j = testing::job("j" + std::to_string(i), t, 1, std::round(dur(rng)));
    if (chance(0.03)) j.duration = 0;
    j.job_class = static_cast<JobClass>(uni(0, kJobClassCount - 1));
    const int kind = uni(0, 99);
    if (kind < 40) {
      const int sizes[] = {1, 1, 2, 4, 8};
      j.gpus = sizes[uni(0, 4)];
    } else if (kind < 50) {
      const int sizes[] = {12, 16, 20};
      j.gpus = sizes[uni(0, 2)];
    } else if (kind < 75) {
      j.gpu_milli = static_cast<Milli>(uni(1, 9) * 100 + uni(0, 1) * 50);
      if (chance(0.5)) j.gpu_memory_mib = uni(1, 24) * 1024;
    } else if (kind < 87) {
      j.gpus = 0;
      j.cpu_milli = uni(1, 16) * 1000;
      if (chance(0.3)) j.memory_mib = uni(1, 64) * 1024;
    } else if (kind < 92) {
      // Never runnable: too big, a missing model, or more card memory than any card.
      const int how = uni(0, 2);
      if (how == 0) j.gpus = 64;
      if (how == 1) j.allowed_models = {kT4};
      if (how == 2) {
        j.gpu_milli = 500;
        j.gpu_memory_mib = 100000;
      }
    } else {
      j.gpus = uni(1, 4);
      j.cpu_milli = uni(1, 40) * 1000;
    }
    if (j.gpus > 0 && j.allowed_models.empty() && chance(0.2))
      j.allowed_models = {chance(0.5) ? kA100 : kV100};
    if (j.gpus > 0 && chance(0.1)) j.preferred_model = chance(0.5) ? kA100 : kV100;
    if (chance(0.3)) j.checkpoint_interval = 300;
    if (chance(0.3)) j.estimate = std::round(j.duration * (0.5 + uni(0, 10) / 5.0));
    jobs.push_back(std::move(j));
  }
  return jobs;
}

double speed_on(const JobSpec& j, GpuModelId m) {
  return test_gpus().relative_speed(m, kA100, j.job_class);
}

bool near(double a, double b, double rel = 1e-6) {
  return std::abs(a - b) <= rel * std::max({1.0, std::abs(a), std::abs(b)});
}

void expect_same(const SimResult& a, const SimResult& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const JobOutcome& x = a.jobs[i];
    const JobOutcome& y = b.jobs[i];
    EXPECT_EQ(x.first_start, y.first_start) << i;
    EXPECT_EQ(x.finish, y.finish) << i;
    EXPECT_EQ(x.run_time, y.run_time) << i;
    EXPECT_EQ(x.gpu_seconds, y.gpu_seconds) << i;
    EXPECT_EQ(x.rework_gpu_seconds, y.rework_gpu_seconds) << i;
    EXPECT_EQ(x.preemptions, y.preemptions) << i;
    EXPECT_EQ(x.migrations, y.migrations) << i;
    EXPECT_EQ(x.unschedulable, y.unschedulable) << i;
    EXPECT_EQ(x.reason, y.reason) << i;
    EXPECT_EQ(x.last_model, y.last_model) << i;
  }
  EXPECT_EQ(a.allocated_gpu_seconds, b.allocated_gpu_seconds);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.preemptions, b.preemptions);
  EXPECT_EQ(a.node_failures, b.node_failures);
  EXPECT_EQ(a.last_completion, b.last_completion);
}

void check_outcomes(const std::vector<JobSpec>& jobs, const SimResult& r) {
  ASSERT_EQ(r.invariant_violation, "");
  ASSERT_EQ(r.jobs.size(), jobs.size());
  double gpu_s = 0;
  int64_t preemptions = 0;
  Seconds last = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    SCOPED_TRACE("job " + jobs[i].id);
    const JobSpec& j = jobs[i];
    const JobOutcome& o = r.jobs[i];
    const bool done = o.finish >= 0;
    ASSERT_NE(done, o.unschedulable) << "every job ends completed xor unschedulable";
    EXPECT_EQ(o.submit, j.submit);
    gpu_s += o.gpu_seconds;
    preemptions += o.preemptions;
    if (o.unschedulable) {
      EXPECT_FALSE(o.reason.empty());
      EXPECT_EQ(o.first_start, -1);  // rejected at arrival: never ran
      EXPECT_EQ(o.run_time, 0);
      continue;
    }
    last = std::max(last, o.finish);
    EXPECT_GE(o.first_start, j.submit);
    EXPECT_LE(o.first_start, o.finish);
    EXPECT_GE(o.run_time, 0);
    EXPECT_LE(o.run_time, o.finish - o.first_start + 1e-6 * std::max(1.0, o.finish));
    const double share = static_cast<double>(j.total_milli()) / kMilliPerGpu;
    EXPECT_TRUE(near(o.gpu_seconds, o.run_time * share)) << o.gpu_seconds << " " << o.run_time;
    if (j.gpus > 0) {
      EXPECT_NE(o.last_model, kNoGpuModel);
    }
    if (!j.allowed_models.empty()) {
      EXPECT_EQ(o.last_model, j.allowed_models.front());
    }
    const double speed = j.gpus == 0 ? 1.0 : speed_on(j, o.last_model);
    if (o.preemptions == 0 && o.migrations == 0) {
      // One uninterrupted run: exactly the job's duration at the model's speed.
      EXPECT_TRUE(near(o.run_time, o.finish - o.first_start)) << o.run_time;
      EXPECT_TRUE(near(o.run_time, j.duration / speed)) << o.run_time << " vs " << j.duration;
      EXPECT_EQ(o.rework_gpu_seconds, 0);
    } else if (j.gpus > 0 && !j.allowed_models.empty()) {
      // Always the same model: run time = the work + the work redone after stops.
      EXPECT_TRUE(near(o.run_time, j.duration / speed + o.rework_gpu_seconds / share))
          << o.run_time << " vs " << j.duration / speed << " + " << o.rework_gpu_seconds;
    }
    if (j.checkpoint_interval == 0) {
      // Without checkpoints only a migration's restart (60 s each by default) is redone.
      EXPECT_LE(o.rework_gpu_seconds, o.migrations * 60 * share * (1 + 1e-9));
    }
  }
  EXPECT_TRUE(near(gpu_s, r.allocated_gpu_seconds)) << gpu_s << " vs " << r.allocated_gpu_seconds;
  EXPECT_EQ(preemptions, r.preemptions);
  EXPECT_EQ(last, r.last_completion);
  int64_t migrations = 0;
  for (const JobOutcome& o : r.jobs) migrations += o.migrations;
  EXPECT_EQ(migrations, r.migrations);
}

struct Case {
  uint32_t seed;
  double mtbf_hours;
};

class RandomWorkloads : public ::testing::TestWithParam<Case> {};

TEST_P(RandomWorkloads, EveryProfileKeepsItsInvariants) {
  const Case c = GetParam();
  const std::vector<JobSpec> jobs = random_jobs(c.seed, 160);
  const ClusterSpec cluster = hetero();
  std::vector<std::string> policies = profile_names();
  policies.push_back("backfill/firstfit");
  policies.push_back("las/firstfit");
  policies.push_back("bestfit+consolidate");
  policies.push_back("backfill+consolidate");
  policies.push_back("las+consolidate");
  size_t rejected = 0, runnable = 0;
  for (const std::string& policy : policies) {
    SCOPED_TRACE(policy);
    SimOptions o;
    o.reference_model = kA100;
    o.check_invariants = true;
    o.node_mtbf_hours = c.mtbf_hours;
    o.node_repair_hours = 0.25;
    o.seed = c.seed;
    const SimResult a = simulate(jobs, cluster, test_gpus(), testing::profile(policy), o);
    check_outcomes(jobs, a);
    if (c.mtbf_hours > 0) {
      EXPECT_GT(a.node_failures, 0);
    }
    const SimResult b = simulate(jobs, cluster, test_gpus(), testing::profile(policy), o);
    expect_same(a, b);
    if (policy.find("+consolidate") == std::string::npos && policy != "frugal") {
      EXPECT_EQ(a.migrations, 0);
    }
    size_t rej = 0;
    for (const auto& x : a.jobs) rej += x.unschedulable;
    if (rejected == 0) rejected = rej;
    EXPECT_EQ(rej, rejected) << "admission does not depend on the policy";
    runnable = jobs.size() - rej;
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(runnable, jobs.size() / 2);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomWorkloads,
                         ::testing::Values(Case{1, 0}, Case{2, 0}, Case{3, 0}, Case{4, 6},
                                           Case{5, 6}, Case{6, 2}, Case{7, 2}),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return "seed" + std::to_string(p.param.seed) +
                                  (p.param.mtbf_hours > 0 ? "_failures" : "");
                         });

// A heavily loaded homogeneous cluster: lots of queueing, so backfill and las really act.
TEST(RandomWorkloads, LoadedHomogeneousCluster) {
  std::vector<JobSpec> jobs = random_jobs(99, 200);
  for (JobSpec& j : jobs) {
    j.submit /= 10;  // ten times the arrival rate
    j.allowed_models.clear();
    j.preferred_model = kNoGpuModel;
  }
  const ClusterSpec cluster = make_homogeneous_cluster(32, kA100, 8);
  for (const std::string& policy : profile_names()) {
    SCOPED_TRACE(policy);
    SimOptions o;
    o.reference_model = kA100;
    o.check_invariants = true;
    const SimResult r = simulate(jobs, cluster, test_gpus(), testing::profile(policy), o);
    check_outcomes(jobs, r);
    if (policy == "las") {
      EXPECT_GT(r.preemptions, 0);
    }
    if (policy != "las") {
      EXPECT_EQ(r.preemptions, 0);
    }
  }
}

// Fractional jobs and multi-GPU gangs on a loaded homogeneous cluster of small nodes, so
// gangs meet fragmentation: consolidation migrates, and every invariant holds throughout.
TEST(RandomWorkloads, ConsolidationKeepsTheInvariants) {
  int64_t migrations = 0;
  for (uint32_t seed : {11u, 12u, 13u}) {
    std::mt19937 rng(seed);
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<JobSpec> jobs;
    Seconds t = 0;
    for (int i = 0; i < 300; ++i) {
      t += uni(0, 40);
      JobSpec j = testing::job("j" + std::to_string(i), t, 1, uni(60, 3000));
      const int kind = uni(0, 9);
      if (kind < 6) {
        j.gpu_milli = static_cast<Milli>(uni(1, 9) * 100);
      } else if (kind < 8) {
        j.gpus = uni(1, 2);
      } else {
        j.gpus = uni(3, 4);
      }
      if (uni(0, 2) == 0) j.checkpoint_interval = 300;
      if (uni(0, 3) == 0) j.estimate = j.duration * uni(1, 3) / 2;
      jobs.push_back(std::move(j));
    }
    const ClusterSpec cluster = make_homogeneous_cluster(24, kA100, 4);
    for (const std::string policy :
         {"bestfit+consolidate", "backfill+consolidate", "firstfit+consolidate"}) {
      SCOPED_TRACE(policy + " seed " + std::to_string(seed));
      SimOptions o;
      o.reference_model = kA100;
      o.check_invariants = true;
      o.node_mtbf_hours = seed == 13 ? 4 : 0;
      o.node_repair_hours = 0.25;
      o.seed = seed;
      const SimResult r = simulate(jobs, cluster, test_gpus(), testing::profile(policy), o);
      check_outcomes(jobs, r);
      for (const JobOutcome& x : r.jobs) EXPECT_FALSE(x.unschedulable) << x.reason;
      migrations += r.migrations;
      expect_same(r, simulate(jobs, cluster, test_gpus(), testing::profile(policy), o));
    }
  }
  EXPECT_GT(migrations, 0);
}

}  // namespace
}  // namespace frugal
