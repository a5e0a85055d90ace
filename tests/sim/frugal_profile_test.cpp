// The combined `frugal` profile: composition, the product default, its tier-then-shortest
// queue order, options, and the preemption property (at most one checkpoint interval of
// work lost per victim) under the whole profile, consolidation included.

#include <fmt/format.h>
#include <random>

#include "../common/test_util.h"
#include "policy/frugal_profile.h"
#include "sim/class_assignment.h"

namespace frugal::testing {
namespace {

JobSpec tiered(std::string id, Seconds submit, int gpus, Seconds duration, Tier tier,
               Seconds interval = 0) {
  JobSpec j = job(std::move(id), submit, gpus, duration);
  j.tier = tier;
  j.checkpoint_interval = interval;
  return j;
}

SimResult run_frugal(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
                     SimOptions so = {}, const std::string& policy = "frugal") {
  so.check_invariants = true;
  so.reference_model = kA100;
  SimResult r = simulate(jobs, cluster, test_gpus(), profile(policy), so);
  EXPECT_EQ(r.invariant_violation, "");
  return r;
}

TEST(FrugalProfile, ComposesTheBestPlugins) {
  const Profile p = profile("frugal");
  EXPECT_EQ(p.name, "frugal");
  EXPECT_EQ(p.describe(),
            "sort=tier-shortest admit=time-shift filter=sun(hetero-fast) "
            "place=sun(ordered(bestfit)) postfilter=easy-backfill preempt=tier-preempt "
            "consolidate=consolidate relay=sun elastic packdown soonfree release tou");
  EXPECT_EQ(profile("frugal+elastic").describe(), p.describe());
  FrugalOptions rigid;
  rigid.elastic = rigid.pack_down = rigid.soon_free = rigid.consolidate = false;
  rigid.prompt_release = rigid.sun = false;
  EXPECT_EQ(make_frugal_profile(rigid).describe(),
            "sort=tier-shortest admit=time-shift filter=hetero-fast place=ordered(bestfit) "
            "postfilter=easy-backfill preempt=tier-preempt");
}

TEST(FrugalProfile, IsTheDefault) {
  EXPECT_EQ(default_profile_name(), "frugal");
  EXPECT_TRUE(make_profile(default_profile_name()).ok());
  const auto names = profile_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "frugal"), names.end());
}

TEST(FrugalProfile, Options) {
  auto o = parse_frugal_options("max_delay_s=3600:starvation_s=7200:min_saving=0.2");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_DOUBLE_EQ(o.value().time_shift.max_delay_s, 3600);
  EXPECT_DOUBLE_EQ(o.value().time_shift.min_saving, 0.2);
  EXPECT_DOUBLE_EQ(o.value().tiers.starvation_s, 7200);
  EXPECT_TRUE(o.value().time_shift.overflow);
  auto d = parse_frugal_options("");
  ASSERT_TRUE(d.ok());
  EXPECT_DOUBLE_EQ(d.value().time_shift.max_delay_s, 12 * 3600.0);
  EXPECT_DOUBLE_EQ(d.value().time_shift.min_saving, 2);
  EXPECT_DOUBLE_EQ(d.value().time_shift.wait_usd_gpu_h, 1.0);
  EXPECT_FALSE(d.value().time_shift.valley);
  EXPECT_TRUE(parse_frugal_options("valley=1").value().time_shift.valley);
  EXPECT_TRUE(d.value().prompt_release);
  EXPECT_FALSE(parse_frugal_options("release=0").value().prompt_release);
  EXPECT_FALSE(parse_frugal_options("release=2").ok());
  EXPECT_EQ(parse_frugal_options("release=x").error().message,
            "frugal option 'release=x': must be 0 or 1");
  EXPECT_TRUE(parse_frugal_options("sun=1").value().sun);
  EXPECT_TRUE(d.value().consolidate);
  EXPECT_FALSE(parse_frugal_options("consolidate=0").value().consolidate);
  EXPECT_TRUE(parse_frugal_options("").value().urgent);
  EXPECT_FALSE(parse_frugal_options("urgent=0").value().urgent);
  EXPECT_DOUBLE_EQ(parse_frugal_options("wait_usd_gpu_h=0").value().time_shift.wait_usd_gpu_h, 0);
  EXPECT_FALSE(parse_frugal_options("overflow=0").value().time_shift.overflow);
  EXPECT_TRUE(make_profile("frugal:max_delay_s=3600").ok());
  EXPECT_FALSE(parse_frugal_options("nope=1").ok());
  // Errors name the item and what is wrong with it, nothing else: an unknown key lists every
  // key frugal takes; a bad value of a time-shift key says what the value must be.
  EXPECT_EQ(parse_frugal_options("nope=x").error().message,
            "frugal option 'nope': known keys max_delay_s, min_saving, margin_s, margin_frac, "
            "overflow, wait_usd_gpu_h, valley, energy_only, overflow_model, starvation_s, urgent, "
            "sun, release, autoscale_first, tou, consolidate");
  EXPECT_EQ(parse_frugal_options("wait_usd_gpu_h=-1").error().message,
            "frugal option 'wait_usd_gpu_h=-1': not a non-negative number");
  EXPECT_EQ(parse_frugal_options("overflow=5").error().message,
            "frugal option 'overflow=5': must be 0 or 1");
  EXPECT_EQ(parse_time_shift_options("energy_only=1:valley=2").error().message,
            "time-shift option 'valley=2': must be 0 or 1");
  EXPECT_EQ(parse_time_shift_options("tou=1").error().message,
            "time-shift option 'tou': known keys max_delay_s, min_saving, margin_s, margin_frac, "
            "overflow, wait_usd_gpu_h, valley, energy_only, overflow_model");
  EXPECT_TRUE(parse_time_shift_options("energy_only=1:overflow_model=1").value().energy_only);
  // The admit prices every whole hour of the window: an unbounded one would never end (a
  // deferrable job without a deadline under max_delay_s=1e300 hung the simulator).
  EXPECT_EQ(parse_frugal_options("max_delay_s=1e300").error().message,
            "frugal option 'max_delay_s=1e300': at most 2592000 s (30 days)");
  EXPECT_FALSE(parse_time_shift_options("margin_s=1e10").ok());
  EXPECT_DOUBLE_EQ(parse_time_shift_options("max_delay_s=2592000").value().max_delay_s,
                   kMaxTimeShiftDelayS);
  EXPECT_FALSE(parse_frugal_options("starvation_s=-1").ok());
  EXPECT_FALSE(make_profile("frugal:starvation_s=x").ok());
}

// One GPU, busy until 1000: a long general job, a short general job and a long core job
// queue behind it. Core first (tier), then the short general job (shortest estimate).
TEST(FrugalProfile, TierThenShortest) {
  const auto c = cluster_of({node("n0", kA100, 1)});
  const std::vector<JobSpec> jobs = {
      tiered("busy", 0, 1, 1000, Tier::kCore),
      tiered("long", 10, 1, 5000, Tier::kGeneral),
      tiered("short", 20, 1, 100, Tier::kGeneral),
      tiered("core", 30, 1, 3000, Tier::kCore),
  };
  const SimResult r = run_frugal(jobs, c);
  EXPECT_DOUBLE_EQ(r.jobs[3].first_start, 1000);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 4000);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 4100);
  EXPECT_EQ(r.preemptions, 0);
}

// A general job starved past the guard counts as important and goes before a shorter
// general job that arrived later.
TEST(FrugalProfile, StarvationGuardBeatsShortest) {
  const auto c = cluster_of({node("n0", kA100, 1)});
  std::vector<JobSpec> jobs = {tiered("busy", 0, 1, 90000, Tier::kImportant),
                               tiered("long", 10, 1, 5000, Tier::kGeneral)};
  for (int i = 0; i < 3; ++i)
    jobs.push_back(tiered(fmt::format("s{}", i), 88000 + i, 1, 100, Tier::kGeneral));
  const SimResult r = run_frugal(jobs, c);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 90000);  // starved at 86,410 s
  for (int i = 2; i < 5; ++i) EXPECT_GE(r.jobs[i].first_start, 95000);
}

// A general deadline job counts as starved once its slack runs out (deadline − estimate −
// max(margin_s, margin_frac × estimate), the time-shift margins: 26,000 − 5,000 − 3,600 =
// 17,400 s) and goes before a shorter general job; with urgent=0 the shorter one goes first.
TEST(FrugalProfile, UrgentDeadlineJobBeatsShortest) {
  const auto c = cluster_of({node("n0", kA100, 1)});
  std::vector<JobSpec> jobs = {tiered("busy", 0, 1, 20000, Tier::kImportant),
                               tiered("due", 10, 1, 5000, Tier::kGeneral),
                               tiered("short", 100, 1, 100, Tier::kGeneral)};
  jobs[1].deadline = 26000;
  SimResult r = run_frugal(jobs, c);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 20000);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 25000);
  r = run_frugal(jobs, c, {}, "frugal:urgent=0");
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 20000);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 20100);
  // A deadline the job can still make later does not promote it yet.
  jobs[1].deadline = 40000;
  r = run_frugal(jobs, c);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 20000);
}

// Once urgent (slack out at 17,400 s, as above), a deadline job of the general or the
// important tier goes after core work and before other important work, even shorter work;
// with urgent=0 the important job goes first. Among urgent jobs the tier still orders.
TEST(FrugalProfile, UrgentDeadlineJobGoesBeforeImportantWork) {
  const auto c = cluster_of({node("n0", kA100, 1)});
  for (const Tier tier : {Tier::kGeneral, Tier::kImportant}) {
    std::vector<JobSpec> jobs = {tiered("busy", 0, 1, 20000, Tier::kCore),
                                 tiered("due", 10, 1, 5000, tier),
                                 tiered("important", 100, 1, 100, Tier::kImportant),
                                 tiered("core", 200, 1, 100, Tier::kCore)};
    jobs[1].deadline = 26000;
    SimResult r = run_frugal(jobs, c);
    EXPECT_DOUBLE_EQ(r.jobs[3].first_start, 20000);
    EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 20100);
    EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 25100);
    r = run_frugal(jobs, c, {}, "frugal:urgent=0");
    EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 20100);
    EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 20200);
  }
  // Two urgent jobs (slack out at 17,400 s and 18,400 s): the important one first, though
  // the general one is shorter.
  const std::vector<JobSpec> both = [] {
    std::vector<JobSpec> v = {tiered("busy", 0, 1, 20000, Tier::kCore),
                              tiered("due-general", 10, 1, 4000, Tier::kGeneral),
                              tiered("due-important", 20, 1, 5000, Tier::kImportant)};
    v[1].deadline = v[2].deadline = 26000;
    return v;
  }();
  const SimResult r = run_frugal(both, c);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 20000);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 25000);
}

// Random workloads under the whole profile: every victim loses at most one checkpoint
// interval of work per preemption (and a consolidation move at most one interval plus the
// restart); core jobs are never preempted; every job ends; the ledger balances.
TEST(FrugalProfile, PropertyPreemptionLosesAtMostOneInterval) {
  const auto c = cluster_of(
      {node("a0", kA100, 8), node("a1", kA100, 8), node("a2", kA100, 4), node("v0", kV100, 4)});
  const Seconds intervals[] = {0, 300, 1800, 3600};
  const int sizes[] = {1, 1, 2, 4, 8, 12};
  int64_t preemptions = 0;
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
    const SimResult r = run_frugal(jobs, c, so);
    double teams = 0;
    for (const auto& [k, a] : r.ledger.by_team) teams += a.total_usd();
    EXPECT_NEAR(r.ledger.total.total_usd(), teams + r.ledger.unattributed.total_usd(),
                1e-6 * std::max(1.0, r.ledger.total.total_usd()));
    for (size_t i = 0; i < jobs.size(); ++i) {
      const JobOutcome& o = r.jobs[i];
      EXPECT_GE(o.finish, 0) << jobs[i].id;
      const double g = jobs[i].gpus;
      EXPECT_LE(o.rework_gpu_seconds,
                (o.preemptions * jobs[i].checkpoint_interval +
                 o.migrations * (jobs[i].checkpoint_interval + so.migration_cost_s)) *
                        g +
                    1e-6)
          << "seed " << seed << " " << jobs[i].id;
      if (o.migrations == 0) {
        EXPECT_DOUBLE_EQ(o.rework_gpu_seconds, 0) << jobs[i].id;
      }
      if (jobs[i].tier == Tier::kCore) {
        EXPECT_EQ(o.preemptions, 0) << jobs[i].id;
      }
    }
    preemptions += r.preemptions;
  }
  EXPECT_GT(preemptions, 10);  // the workloads do exercise preemption
}

// The seeded tier rule: deterministic per seed, by class (after assign_classes).
TEST(AssignTiers, ByClassAndSeed) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 600; ++i) jobs.push_back(job(fmt::format("j{}", i), i, 1 + i % 16, 600));
  jobs.push_back(job("cpu", 0, 0, 600));
  assign_classes(jobs, 1);
  auto a = jobs, b = jobs, c = jobs;
  assign_tiers(a, 1);
  assign_tiers(b, 1);
  assign_tiers(c, 2);
  bool differs = false;
  int by_tier[3] = {0, 0, 0};
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(a[i].tier, b[i].tier);
    differs |= a[i].tier != c[i].tier;
    if (a[i].job_class == JobClass::kEval || a[i].job_class == JobClass::kPreprocess ||
        a[i].gpus == 0) {
      EXPECT_EQ(a[i].tier, Tier::kGeneral) << i;
    }
    if (a[i].job_class == JobClass::kFinetune) {
      EXPECT_NE(a[i].tier, Tier::kCore) << i;
    }
    ++by_tier[static_cast<int>(a[i].tier)];
  }
  EXPECT_TRUE(differs);
  for (int t = 0; t < 3; ++t) EXPECT_GT(by_tier[t], 0) << t;
}

// The seeded elastic rule: training jobs only, bounds ceil(g/2)..2g, declared bounds kept.
TEST(AssignElastic, TrainingJobsBySeed) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 600; ++i) jobs.push_back(job(fmt::format("j{}", i), i, 1 + i % 16, 600));
  jobs.push_back(job("cpu", 0, 0, 600));
  JobSpec declared = job("declared", 0, 4, 600);
  declared.job_class = JobClass::kPretrain;
  declared.min_gpus = 4;
  declared.max_gpus = 6;
  jobs.push_back(declared);
  assign_classes(jobs, 1);
  jobs.back().job_class = JobClass::kPretrain;
  auto a = jobs, b = jobs, all = jobs;
  assign_elastic(a, 0.5, 1);
  assign_elastic(b, 0.5, 1);
  assign_elastic(all, 1.0, 1);
  size_t training = 0, chosen = 0;
  for (size_t i = 0; i + 1 < jobs.size(); ++i) {
    EXPECT_EQ(a[i].max_gpus, b[i].max_gpus) << i;
    const bool train =
        jobs[i].job_class == JobClass::kPretrain || jobs[i].job_class == JobClass::kFinetune;
    if (!train || jobs[i].gpus == 0) {
      EXPECT_EQ(all[i].max_gpus, 0) << i;
      continue;
    }
    ++training;
    EXPECT_EQ(all[i].min_gpus, (jobs[i].gpus + 1) / 2) << i;
    EXPECT_EQ(all[i].max_gpus, 2 * jobs[i].gpus) << i;
    if (a[i].max_gpus > 0) ++chosen;
  }
  EXPECT_GT(chosen, training / 3);
  EXPECT_LT(chosen, 2 * training / 3);
  EXPECT_EQ(all.back().min_gpus, 4);  // declared bounds are kept
  EXPECT_EQ(all.back().max_gpus, 6);
}

}  // namespace
}  // namespace frugal::testing
