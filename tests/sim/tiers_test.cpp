// The `tiers` profile: tier order, checkpoint-first preemption of lower tiers, starvation
// guard. Hand-computed cases and a property test over random workloads.

#include <fmt/format.h>
#include <cmath>
#include <random>

#include "../common/test_util.h"
#include "policy/tiers.h"

namespace frugal::testing {
namespace {

JobSpec tiered(std::string id, Seconds submit, int gpus, Seconds duration, Tier tier,
               Seconds interval = 0) {
  JobSpec j = job(std::move(id), submit, gpus, duration);
  j.tier = tier;
  j.checkpoint_interval = interval;
  return j;
}

SimResult run_tiers(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
                    const TierOptions& o, SimOptions so = {}) {
  so.check_invariants = true;
  so.reference_model = kA100;
  SimResult r = simulate(jobs, cluster, test_gpus(), make_tiers_profile(o), so);
  EXPECT_EQ(r.invariant_violation, "");
  return r;
}

// Four general jobs fill a 4-GPU node; a core job arrives at t = 1000, when their work
// since the last checkpoint is 400, 100, 300 and 1000 seconds.
std::vector<JobSpec> four_general_then_core() {
  return {
      tiered("g1", 0, 1, 10000, Tier::kGeneral, 600),
      tiered("g2", 0, 1, 10000, Tier::kGeneral, 900),
      tiered("g3", 0, 1, 10000, Tier::kGeneral, 350),
      tiered("g4", 0, 1, 10000, Tier::kGeneral, 2000),
      tiered("core", 1000, 1, 500, Tier::kCore),
  };
}

// A core job arrives on a full node of general jobs: the victim with the least work since
// its last checkpoint is signalled, keeps its GPU through the 60 s grace, then yields; it
// resumes from its checkpoint (no rework) once the core job is done.
TEST(Tiers, CoreJobPreemptsTheGeneralJobWithLeastWorkAtRisk) {
  const auto c = cluster_of({node("n0", kA100, 4)});
  const std::vector<JobSpec> jobs = four_general_then_core();
  const SimResult r = run_tiers(jobs, c, TierOptions{});
  EXPECT_EQ(r.preemptions, 1);
  const JobOutcome& v = r.jobs[1];
  EXPECT_EQ(v.preemptions, 1);
  EXPECT_DOUBLE_EQ(v.rework_gpu_seconds, 0);
  EXPECT_DOUBLE_EQ(v.checkpoint_gpu_seconds, 60);
  EXPECT_DOUBLE_EQ(r.jobs[4].first_start, 1060);
  EXPECT_DOUBLE_EQ(r.jobs[4].finish, 1560);
  // 1000 s of work saved; the remaining 9000 s run from 1560.
  EXPECT_DOUBLE_EQ(v.finish, 10560);
  EXPECT_DOUBLE_EQ(v.run_time, 1060 + 9000);
  EXPECT_DOUBLE_EQ(v.gpu_seconds, 1060 + 9000);
  for (int i : {0, 2, 3}) {
    EXPECT_EQ(r.jobs[i].preemptions, 0);
    EXPECT_DOUBLE_EQ(r.jobs[i].finish, 10000);
  }
  EXPECT_DOUBLE_EQ(r.ledger.total.waste.rework_usd, 0);
  // The grace is the victim's paid GPU time: 3 × 10000 + (1060 + 9000) + 500 GPU-seconds.
  EXPECT_NEAR(r.ledger.by_team.at("default").gpu_hours * 3600, 40560, 1e-6);
}

// With a larger gang the cheapest set on one node is chosen, not the single cheapest job.
TEST(Tiers, PicksTheCheapestSetOnTheBestNode) {
  const auto c = cluster_of({node("n0", kA100, 2), node("n1", kA100, 2)});
  // At t = 1000: n0 holds work at risk 400 + 400 = 800; n1 holds 100 + 1000 = 1100.
  const std::vector<JobSpec> jobs = {
      tiered("a", 0, 1, 10000, Tier::kGeneral, 600), tiered("b", 0, 1, 10000, Tier::kGeneral, 600),
      tiered("c", 0, 1, 10000, Tier::kGeneral, 900), tiered("d", 0, 1, 10000, Tier::kGeneral, 1100),
      tiered("core", 1000, 2, 500, Tier::kCore),
  };
  const SimResult r = run_tiers(jobs, c, TierOptions{});
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(r.jobs[1].preemptions, 1);
  EXPECT_EQ(r.jobs[2].preemptions, 0);
  EXPECT_EQ(r.jobs[3].preemptions, 0);
  EXPECT_DOUBLE_EQ(r.jobs[4].first_start, 1060);
}

TEST(Tiers, SameOrHigherTiersAreNeverVictims) {
  const auto c = cluster_of({node("n0", kA100, 2)});
  const std::vector<JobSpec> jobs = {
      tiered("core0", 0, 1, 5000, Tier::kCore, 600),
      tiered("imp", 0, 1, 5000, Tier::kImportant, 600),
      tiered("core1", 100, 1, 100, Tier::kCore),
      tiered("imp2", 100, 1, 100, Tier::kImportant),
  };
  const SimResult r = run_tiers(jobs, c, TierOptions{});
  EXPECT_EQ(r.jobs[0].preemptions, 0);
  EXPECT_EQ(r.jobs[1].preemptions, 1);  // the important job yields to core1, not to imp2
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 160);
  // imp (submitted first) resumes before imp2 and keeps its 100 s of work.
  EXPECT_DOUBLE_EQ(r.jobs[1].finish, 260 + 4900);
  EXPECT_EQ(r.jobs[3].preemptions, 0);
  EXPECT_DOUBLE_EQ(r.jobs[3].first_start, 5000);
}

// A general job waiting past starvation_s is ordered as important (ahead of important jobs
// submitted after it) and, once started, is not preempted within protect_s.
TEST(Tiers, StarvationGuardPromotesAndProtects) {
  const auto c = cluster_of({node("n0", kA100, 1)});
  TierOptions o;
  o.starvation_s = 1000;
  o.protect_s = 10000;
  const std::vector<JobSpec> jobs = {
      tiered("i1", 0, 1, 2000, Tier::kImportant),
      tiered("g", 10, 1, 500, Tier::kGeneral),
      tiered("i2", 20, 1, 1000, Tier::kImportant),
      tiered("core", 2100, 1, 100, Tier::kCore),
  };
  const SimResult r = run_tiers(jobs, c, o);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 2000);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish, 2500);
  EXPECT_EQ(r.jobs[1].preemptions, 0);
  EXPECT_DOUBLE_EQ(r.jobs[3].first_start, 2500);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 2600);
  // Without the guard the important job goes first and the core job preempts it.
  o.starvation_s = 1e9;
  const SimResult u = run_tiers(jobs, c, o);
  EXPECT_DOUBLE_EQ(u.jobs[2].first_start, 2000);
  EXPECT_EQ(u.jobs[2].preemptions, 1);
  EXPECT_DOUBLE_EQ(u.jobs[3].first_start, 2160);
  EXPECT_GT(u.jobs[1].first_start, 2500);
}

// Preemption churn (cluster04 on hetero-4pool: 6,185 preemptions, 4,600 of 4,830 plans
// repeated for a job whose earlier victims had already stopped). `big` heads the queue and
// no preemption can place it (the core job holds the GPUs it needs), so easy-backfill
// reserves for it from t = 20000. GPUs freed for `p` behind it would not go to `p` (it runs
// past the reservation) but to a short general job, which `p` then preempted at the next
// arrival, and so on. Now no plan is made for a job behind one that gets none.
TEST(Tiers, NoPreemptionForAJobBehindAnUnplaceableOne) {
  const auto c = cluster_of({node("n0", kA100, 4), node("n1", kA100, 1)});
  std::vector<JobSpec> jobs = {
      tiered("core", 0, 3, 20000, Tier::kCore),     tiered("g1", 0, 1, 50000, Tier::kGeneral),
      tiered("g2", 0, 1, 50000, Tier::kGeneral),    tiered("big", 100, 4, 1000, Tier::kImportant),
      tiered("p", 200, 1, 30000, Tier::kImportant),
  };
  for (int i = 0; i < 20; ++i)
    jobs.push_back(tiered(fmt::format("s{}", i), 300 + 100 * i, 1, 5000, Tier::kGeneral));
  const SimResult r = run_tiers(jobs, c, TierOptions{});
  // Only once the core job ends: `big` preempts the general job beside it, `p` the other.
  EXPECT_EQ(r.preemptions, 2);
  EXPECT_DOUBLE_EQ(r.jobs[3].first_start, 20060);
  EXPECT_GE(r.jobs[4].first_start, 20060);
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_LE(r.jobs[i].preemptions, i < 3 ? 1 : 0) << jobs[i].id;
    EXPECT_GE(r.jobs[i].finish, 0) << jobs[i].id;
  }
}

// GPUs a draining victim frees are held for the job it yields to: a general job arriving
// during the grace does not take the free GPU beside the victim (easy-backfill alone let
// it, as another node's free GPU made the reservation look spare), so `p` starts when the
// victim stops instead of preempting the newcomer next (before: 1,667 preemptions, g and s
// taking turns, p starting at t = 90990).
TEST(Tiers, DrainingVictimsNodeIsHeldForThePreemptor) {
  const auto c = cluster_of({node("n0", kA100, 2), node("n1", kA100, 1)});
  // `x` holds n1 until g has started on n0; from t = 500 one GPU is free on each node.
  const std::vector<JobSpec> jobs = {
      tiered("g", 1, 1, 50000, Tier::kGeneral),     tiered("x", 0, 1, 500, Tier::kGeneral),
      tiered("p", 1000, 2, 5000, Tier::kImportant), tiered("s", 1010, 1, 20000, Tier::kGeneral),
      tiered("s2", 1020, 1, 20000, Tier::kGeneral),
  };
  const SimResult r = run_tiers(jobs, c, TierOptions{});
  EXPECT_EQ(r.preemptions, 1);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 1060);
  EXPECT_EQ(r.jobs[3].preemptions, 0);
  EXPECT_EQ(r.jobs[4].preemptions, 0);
}

// On-demand only: `n` 4-GPU A100 nodes, 300 s to boot, 900 s idle timeout.
ClusterSpec on_demand_nodes(int n) {
  ClusterSpec c = cluster_of({});
  Pool od;
  od.name = "od";
  od.capacity = Capacity::kOnDemand;
  od.provisioning_delay_s = 300;
  od.idle_timeout_s = 900;
  c.pools = {od};
  for (int i = 0; i < n; ++i) c.nodes.push_back(node("od" + std::to_string(i), kA100, 4));
  return c;
}

// g (general, 4 GPUs) runs on the only booted node when a core job arrives at 1000. With a
// second node left to boot, the core job waits the 300 s boot and g is not disturbed;
// with the pool exhausted, g is preempted and the core job starts after the 60 s grace.
TEST(Tiers, NoPreemptionWhileTheAutoscalerCanAddANode) {
  const std::vector<JobSpec> jobs = {tiered("g", 0, 4, 10000, Tier::kGeneral),
                                     tiered("c", 1000, 4, 1000, Tier::kCore)};
  const SimResult two = run_tiers(jobs, on_demand_nodes(2), {});
  EXPECT_EQ(two.preemptions, 0);
  EXPECT_DOUBLE_EQ(two.jobs[1].first_start, 1300);
  EXPECT_DOUBLE_EQ(two.jobs[0].finish, 300 + 10000);
  const SimResult one = run_tiers(jobs, on_demand_nodes(1), {});
  EXPECT_EQ(one.preemptions, 1);
  EXPECT_DOUBLE_EQ(one.jobs[1].first_start, 1060);
}

TEST(Tiers, ProfileByName) {
  const Profile p = profile("tiers");
  EXPECT_EQ(p.describe(),
            "sort=tier admit=capacity filter=model-constraint place=bestfit "
            "postfilter=easy-backfill preempt=tier-preempt");
}

// Random workloads: every victim loses at most one checkpoint interval of work per stop,
// core jobs are never victims, invariants hold, every job ends, the ledger balances.
TEST(Tiers, PropertyRandomWorkloads) {
  const auto c = cluster_of(
      {node("a0", kA100, 8), node("a1", kA100, 8), node("a2", kA100, 4), node("v0", kV100, 4)});
  const Seconds intervals[] = {0, 300, 1800, 3600};
  const int sizes[] = {1, 1, 2, 4, 8, 12};
  int64_t tier_preemptions = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<JobSpec> jobs;
    for (int i = 0; i < 80; ++i) {
      JobSpec j =
          tiered(fmt::format("j{}", i), std::uniform_real_distribution<double>(0, 40000)(rng),
                 sizes[rng() % 6], std::uniform_real_distribution<double>(60, 20000)(rng),
                 static_cast<Tier>(rng() % 3), intervals[rng() % 4]);
      j.team = fmt::format("t{}", rng() % 3);
      jobs.push_back(j);
    }
    SimOptions so;
    so.seed = seed;
    if (seed % 2 == 0) so.node_mtbf_hours = 20;  // node failures during grace too
    const SimResult r = run_tiers(jobs, c, TierOptions{}, so);
    double teams = 0;
    for (const auto& [k, a] : r.ledger.by_team) teams += a.total_usd();
    EXPECT_NEAR(r.ledger.total.total_usd(), teams + r.ledger.unattributed.total_usd(),
                1e-6 * std::max(1.0, r.ledger.total.total_usd()));
    for (size_t i = 0; i < jobs.size(); ++i) {
      const JobOutcome& o = r.jobs[i];
      EXPECT_TRUE(o.finish >= 0 || o.unschedulable) << jobs[i].id;
      const double g = jobs[i].gpus;
      EXPECT_LE(o.rework_gpu_seconds, o.preemptions * jobs[i].checkpoint_interval * g + 1e-6)
          << "seed " << seed << " " << jobs[i].id;
      if (so.node_mtbf_hours == 0) {
        if (jobs[i].tier == Tier::kCore) {
          EXPECT_EQ(o.preemptions, 0) << jobs[i].id;
        }
        EXPECT_DOUBLE_EQ(o.rework_gpu_seconds, 0) << jobs[i].id;
        EXPECT_NEAR(o.checkpoint_gpu_seconds, o.preemptions * 60 * g, 1e-6) << jobs[i].id;
      }
    }
    if (so.node_mtbf_hours == 0) {
      EXPECT_NEAR(r.ledger.total.waste.rework_usd, 0, 1e-9);
      tier_preemptions += r.preemptions;
    }
  }
  EXPECT_GT(tier_preemptions, 10);  // the workloads do exercise preemption
}

// max_candidates: victims only among that many lowest-ranked running jobs. The case above
// with a bound of 2: g3 and g4 (the back of the running order) are weighed, and g3, the
// cheaper of the two, goes although g2 had less work at risk.
TEST(Tiers, MaxCandidatesWeighsOnlyTheLowestRankedRunningJobs) {
  const auto c = cluster_of({node("n0", kA100, 4)});
  const std::vector<JobSpec> jobs = four_general_then_core();
  for (const size_t bound : {size_t{0}, size_t{2}, size_t{4}}) {
    SCOPED_TRACE(bound);
    TierOptions o;
    o.max_candidates = bound;
    const SimResult r = run_tiers(jobs, c, o);
    EXPECT_EQ(r.preemptions, 1);
    EXPECT_EQ(r.jobs[1].preemptions, bound == 2 ? 0 : 1);
    EXPECT_EQ(r.jobs[2].preemptions, bound == 2 ? 1 : 0);
    EXPECT_DOUBLE_EQ(r.jobs[4].first_start, 1060);
  }
}

// Without core work, important jobs are never victims (only a strictly higher tier may
// displace a job), while general ones are.
TEST(Tiers, PropertyOnlyHigherTiersPreempt) {
  const auto c = cluster_of({node("a0", kA100, 8), node("a1", kA100, 8)});
  int64_t general_preempted = 0;
  for (uint64_t seed = 11; seed <= 14; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<JobSpec> jobs;
    for (int i = 0; i < 60; ++i)
      jobs.push_back(tiered(fmt::format("j{}", i),
                            std::uniform_real_distribution<double>(0, 30000)(rng), 1 << (rng() % 4),
                            std::uniform_real_distribution<double>(60, 15000)(rng),
                            rng() % 2 ? Tier::kImportant : Tier::kGeneral, 1800));
    const SimResult r = run_tiers(jobs, c, TierOptions{});
    for (size_t i = 0; i < jobs.size(); ++i) {
      EXPECT_GE(r.jobs[i].finish, 0) << jobs[i].id;
      if (jobs[i].tier == Tier::kImportant) {
        EXPECT_EQ(r.jobs[i].preemptions, 0) << jobs[i].id;
      } else {
        general_preempted += r.jobs[i].preemptions;
      }
    }
  }
  EXPECT_GT(general_preempted, 0);
}

}  // namespace
}  // namespace frugal::testing
