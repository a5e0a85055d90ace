// Property tests of the ledger over random workloads: two regions with different hourly
// price series (including negative prices), reserved, owned and on-demand pools, random
// utilization, checkpoints, datasets, deadlines, elastic bounds, node failures, under every
// profile. The ledger must balance, and its rental and energy must agree with figures
// computed independently from the cluster and the job outcomes.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cost_test_util.h"

namespace frugal {
namespace {

using testing::gpu_node;
using testing::kA100;
using testing::kEpoch;
using testing::kHour;
using testing::kV100;
using testing::priced_gpus;

// 48 hourly prices around 60 USD/MWh; with `negative` every 7th hour is below zero.
HourlySeries prices(uint32_t seed, bool negative) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> p(60, 25);
  std::vector<double> v(48);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::max(0.0, p(rng));
    if (negative && i % 7 == 3) v[i] = -std::abs(p(rng)) * 0.5 - 1;
  }
  return HourlySeries(kEpoch, std::move(v));
}

HourlySeries carbon(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> c(50, 600);
  std::vector<double> v(24);
  for (double& x : v) x = c(rng);
  return HourlySeries(kEpoch, std::move(v));
}

Region region(std::string name, uint32_t seed, bool negative, double pue, double discount) {
  Region r;
  r.name = std::move(name);
  r.electricity_usd_per_mwh = prices(seed, negative);
  r.carbon_g_per_kwh = carbon(seed + 1);
  r.pue = pue;
  r.time_of_use.discount = discount;
  if (discount > 0) {
    std::vector<double> off(24, 0);
    for (int h = 0; h < 8; ++h) off[h] = 1;  // 00:00-08:00 UTC
    r.offpeak = HourlySeries(kEpoch, off);
  }
  return r;
}

Pool pool(std::string name, uint32_t region, Capacity cap) {
  Pool p;
  p.name = std::move(name);
  p.region = region;
  p.capacity = cap;
  p.provisioning_delay_s = 240;
  p.idle_timeout_s = 600;
  return p;
}

// west (negative prices, PUE 1.2, 40 % off-peak discount): reserved A100 2×8, owned V100
// 2×4. south (PUE 1.5, 30 %): on-demand A100 2×8, reserved V100 1×4 at an overridden
// rate, owned CPU-only node.
ClusterSpec mixed_cluster(uint32_t seed) {
  ClusterSpec c;
  c.regions = {region("west", seed, true, 1.2, 0.4), region("south", seed + 100, false, 1.5, 0.3)};
  c.pools = {pool("w-a100", 0, Capacity::kReserved), pool("w-v100", 0, Capacity::kOwned),
             pool("s-a100", 1, Capacity::kOnDemand), pool("s-v100", 1, Capacity::kReserved),
             pool("s-cpu", 1, Capacity::kOwned)};
  c.pools[3].rental.push_back(RentalOverride{kV100, -1, 0.4});
  c.nodes = {gpu_node("wa0", kA100, 8, 1600, 0), gpu_node("wa1", kA100, 8, 1600, 0),
             gpu_node("wv0", kV100, 4, 500, 1),  gpu_node("wv1", kV100, 4, 500, 1),
             gpu_node("sa0", kA100, 8, 1800, 2), gpu_node("sa1", kA100, 8, 1800, 2),
             gpu_node("sv0", kV100, 4, 400, 3),  gpu_node("sc0", kNoGpuModel, 0, 300, 4)};
  return c;
}

// The same shape with only owned/reserved pools (every GPU provisioned all the time) and
// non-negative prices.
ClusterSpec reserved_cluster(uint32_t seed) {
  ClusterSpec c = mixed_cluster(seed);
  c.regions[0].electricity_usd_per_mwh = prices(seed, false);
  c.pools[2].capacity = Capacity::kReserved;
  c.pools[2].rental.push_back(RentalOverride{kA100, -1, 1.75});
  return c;
}

std::vector<JobSpec> random_jobs(uint32_t seed, size_t n) {
  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto real = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  std::exponential_distribution<double> gap(1.0 / 240);
  std::lognormal_distribution<double> dur(std::log(1800.0), 1.0);
  const char* teams[] = {"vision", "nlp", "infra"};
  const char* datasets[] = {"imagenet", "c4", "laion"};
  const char* tiers[] = {"hot", "warm", "cold"};
  std::vector<JobSpec> jobs;
  Seconds t = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!chance(0.1)) t += std::round(gap(rng));
    JobSpec j = testing::job("j" + std::to_string(i), t, 1, std::max(1.0, std::round(dur(rng))));
    j.team = teams[uni(0, 2)];
    j.job_class = static_cast<JobClass>(uni(0, kJobClassCount - 1));
    const int kind = uni(0, 99);
    if (kind < 60) {
      const int sizes[] = {1, 1, 2, 4, 8};
      j.gpus = sizes[uni(0, 4)];
    } else if (kind < 70) {
      j.gpus = 16;
    } else if (kind < 90) {
      j.gpu_milli = static_cast<Milli>(uni(1, 9) * 100);
    } else {
      j.gpus = 0;
      j.cpu_milli = 1000;
    }
    if (j.gpus > 0 && chance(0.2)) j.allowed_models = {chance(0.5) ? kA100 : kV100};
    if (j.gpus > 0 && chance(0.2)) j.preferred_model = chance(0.5) ? kA100 : kV100;
    j.utilization = real(0.05, 1.0);
    if (chance(0.4)) j.checkpoint_interval = uni(1, 6) * 300;
    if (chance(0.5)) {
      j.dataset = datasets[uni(0, 2)];
      j.dataset_gb = uni(1, 500);
    }
    if (chance(0.3)) j.checkpoint_gb = uni(1, 50);
    j.storage_tier = tiers[uni(0, 2)];
    if (chance(0.2)) j.deadline = t + j.duration * real(1.0, 6.0);
    if (chance(0.2)) j.deferrable = true;
    if (j.gpus > 0 && !j.fractional() && chance(0.2)) {  // elastic: half to twice its GPUs
      j.min_gpus = (j.gpus + 1) / 2;
      j.max_gpus = 2 * j.gpus;
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

SimResult run(const std::vector<JobSpec>& jobs, const ClusterSpec& c, const std::string& policy,
              uint64_t seed) {
  SimOptions o;
  o.ledger = true;
  o.check_invariants = false;  // the invariants suite does that; keep this one fast
  o.reference_model = kA100;
  o.node_mtbf_hours = 30;
  o.node_repair_hours = 0.5;
  o.seed = seed;
  return simulate(jobs, c, priced_gpus(), testing::profile(policy), o);
}

double rel_tol(double x) {
  return 1e-6 * std::max(1.0, std::abs(x));
}

void expect_waste_non_negative(const Waste& w, const std::string& what) {
  EXPECT_GE(w.idle_allocated_usd, 0) << what;
  EXPECT_GE(w.idle_unallocated_usd, 0) << what;
  EXPECT_GE(w.stranded_usd, 0) << what;
  EXPECT_GE(w.booting_usd, 0) << what;
  EXPECT_GE(w.rework_usd, 0) << what;
  EXPECT_GE(w.peak_premium_usd, 0) << what;
  EXPECT_GE(w.oversized_usd, 0) << what;
  EXPECT_GE(w.storage_tier_usd, 0) << what;
  EXPECT_GE(w.duplicate_storage_usd, 0) << what;
}

void expect_account_sane(const CostAccount& a, const std::string& what) {
  EXPECT_GE(a.compute.rental_usd, 0) << what;
  EXPECT_GE(a.compute.energy_kwh, 0) << what;
  EXPECT_GE(a.compute.co2_kg, 0) << what;
  EXPECT_GE(a.storage_usd, 0) << what;
  EXPECT_GE(a.gpu_hours, 0) << what;
  expect_waste_non_negative(a.waste, what);
}

void expect_balanced(const LedgerReport& l, const std::string& what) {
  const double total = l.total.total_usd();
  CostAccount teams, classes, regions;
  for (const auto& [k, a] : l.by_team) {
    teams += a;
    expect_account_sane(a, what + " team " + k);
  }
  for (const auto& [k, a] : l.by_class) classes += a;
  for (const auto& [k, a] : l.by_region) {
    regions += a;
    expect_account_sane(a, what + " region " + k);
  }
  expect_account_sane(l.total, what + " total");
  expect_account_sane(l.unattributed, what + " unattributed");
  EXPECT_NEAR(total, teams.total_usd() + l.unattributed.total_usd(), rel_tol(total)) << what;
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd + l.unattributed.waste.stranded_usd,
              l.unattributed.total_usd(), rel_tol(total))
      << what;
  EXPECT_LE(l.unattributed.waste.booting_usd,
            l.unattributed.waste.idle_unallocated_usd + rel_tol(total))
      << what;
  EXPECT_NEAR(regions.total_usd(), total, rel_tol(total)) << what;
  CostAccount pools;
  for (const auto& [k, a] : l.unattributed_by_pool) pools += a;
  EXPECT_NEAR(pools.total_usd(), l.unattributed.total_usd(), rel_tol(total)) << what;
  EXPECT_NEAR(pools.gpu_hours, l.unattributed.gpu_hours, rel_tol(l.unattributed.gpu_hours)) << what;
  EXPECT_NEAR(classes.total_usd(), teams.total_usd(), rel_tol(total)) << what;
  // Component-wise too: rental, energy, kWh and CO2 add up the same way.
  EXPECT_NEAR(regions.compute.rental_usd, l.total.compute.rental_usd, rel_tol(total)) << what;
  EXPECT_NEAR(regions.compute.energy_kwh, l.total.compute.energy_kwh,
              rel_tol(l.total.compute.energy_kwh))
      << what;
  EXPECT_NEAR(teams.compute.co2_kg + l.unattributed.compute.co2_kg, l.total.compute.co2_kg,
              rel_tol(l.total.compute.co2_kg))
      << what;
  EXPECT_NEAR(teams.waste.total() + l.unattributed.waste.total(), l.total.waste.total(),
              rel_tol(total))
      << what;
  // Waste is part of the cost.
  EXPECT_LE(l.total.waste.idle_allocated_usd, l.total.compute.rental_usd + 1e-9) << what;
}

constexpr uint32_t kSeeds[] = {1, 2, 3};

TEST(LedgerProperty, MixedClusterBalancesUnderEveryProfile) {
  int64_t frugal_resizes = 0;
  for (uint32_t seed : kSeeds) {
    const ClusterSpec c = mixed_cluster(seed);
    const std::vector<JobSpec> jobs = random_jobs(seed, 150);
    for (const std::string& policy : profile_names()) {
      const std::string what = policy + " seed " + std::to_string(seed);
      const SimResult r = run(jobs, c, policy, seed);
      ASSERT_EQ(r.invariant_violation, "") << what;
      if (policy == "frugal") frugal_resizes += r.resizes;
      const LedgerReport& l = r.ledger;
      expect_balanced(l, what);
      EXPECT_GT(l.total.compute.rental_usd, 0) << what;
      // The simulation runs on until the autoscaler has handed every node back.
      EXPECT_GT(r.nodes_provisioned, 0) << what;
      EXPECT_EQ(r.nodes_released, r.nodes_provisioned) << what;
      EXPECT_EQ(l.by_region.count("west"), 1u) << what;
      EXPECT_EQ(l.by_region.count("south"), 1u) << what;
      // Owned and reserved GPUs are paid all the time, on-demand ones only while
      // provisioned: rental lies between the always-paid part and every GPU at list price.
      const double span_h =
          (std::max(r.last_completion, jobs.back().submit) - r.first_arrival) / kHour;
      const double always = (16 * 2.0 + 8 * 0.5 + 4 * 0.4) * span_h;
      EXPECT_GE(l.total.compute.rental_usd, always - rel_tol(always)) << what;
    }
  }
  EXPECT_GT(frugal_resizes, 0);  // the elastic jobs were resized (frugal has +elastic)
}

// Only owned/reserved pools: every GPU is provisioned for the whole simulated span, so
// rental = Σ GPUs × span × reserved rate exactly; energy is at least every GPU's idle
// power plus host overhead (and the CPU node's) over the span, times PUE, and at most
// that plus the jobs' allocated GPU-seconds at the largest (peak − idle) and PUE.
TEST(LedgerProperty, ReservedClusterRentalAndEnergyIndependently) {
  for (uint32_t seed : kSeeds) {
    const ClusterSpec c = reserved_cluster(seed);
    const std::vector<JobSpec> jobs = random_jobs(seed + 10, 150);
    for (const std::string& policy : {std::string("backfill"), std::string("las")}) {
      const std::string what = policy + " seed " + std::to_string(seed);
      const SimResult r = run(jobs, c, policy, seed);
      ASSERT_EQ(r.invariant_violation, "") << what;
      EXPECT_EQ(r.nodes_provisioned, 0) << what;
      const LedgerReport& l = r.ledger;
      expect_balanced(l, what);
      EXPECT_GE(l.total.compute.energy_usd, 0) << what;  // no negative price here
      double last = r.last_completion;
      for (const JobSpec& j : jobs) last = std::max(last, j.submit);
      const double span_h = (last - r.first_arrival) / kHour;
      // west A100 16 × $2, west V100 8 × $0.5, south A100 16 × $1.75, south V100 4 × $0.4
      const double rental = (16 * 2.0 + 8 * 0.5 + 16 * 1.75 + 4 * 0.4) * span_h;
      EXPECT_NEAR(l.total.compute.rental_usd, rental, rel_tol(rental)) << what;
      // Idle floor in kW: west (16 × 100 + 2 × 1600 + 8 × 50 + 2 × 500) W × 1.2;
      // south (16 × 100 + 2 × 1800 + 4 × 50 + 400 + 300) W × 1.5.
      const double floor_kw =
          ((16 * 100.0 + 3200 + 400 + 1000) * 1.2 + (16 * 100.0 + 3600 + 200 + 400 + 300) * 1.5) /
          1000;
      const double floor_kwh = floor_kw * span_h;
      double busy_gpu_s = 0;
      for (const JobOutcome& o : r.jobs) busy_gpu_s += o.gpu_seconds;
      const double ceiling_kwh = floor_kwh + busy_gpu_s * 300 * 1.5 / 3.6e6;
      EXPECT_GE(l.total.compute.energy_kwh, floor_kwh - rel_tol(floor_kwh)) << what;
      EXPECT_LE(l.total.compute.energy_kwh, ceiling_kwh + rel_tol(ceiling_kwh)) << what;
      EXPECT_NEAR(l.total.gpu_hours, 44 * span_h, rel_tol(44 * span_h)) << what;
    }
  }
}

// Migrations (+consolidate) end and start run segments; the books still balance, and the
// migrations' restarts show up as rework.
TEST(LedgerProperty, BalancesWithMigrations) {
  int64_t migrations = 0;
  for (uint32_t seed : kSeeds) {
    const ClusterSpec c = mixed_cluster(seed);
    std::vector<JobSpec> jobs = random_jobs(seed + 20, 200);
    for (JobSpec& j : jobs) j.submit /= 4;  // a loaded cluster: gangs meet fragments
    for (const std::string policy : {"bestfit+consolidate", "backfill+consolidate"}) {
      const std::string what = policy + " seed " + std::to_string(seed);
      const SimResult r = run(jobs, c, policy, seed);
      ASSERT_EQ(r.invariant_violation, "") << what;
      expect_balanced(r.ledger, what);
      migrations += r.migrations;
      double teams = 0;
      for (const auto& [k, a] : r.ledger.by_team) teams += a.gpu_hours;
      EXPECT_NEAR(teams * kHour, r.allocated_gpu_seconds, 1e-6 * r.allocated_gpu_seconds + 1e-6)
          << what;
      if (r.migrations > 0) {
        EXPECT_GT(r.ledger.total.waste.rework_usd, 0) << what;
      }
    }
  }
  EXPECT_GT(migrations, 0);
}

// Every GPU-hour is either a job's or unattributed: allocated GPU-hours in the ledger
// match the simulator's allocated GPU-seconds.
TEST(LedgerProperty, GpuHoursMatchTheSimulator) {
  const ClusterSpec c = mixed_cluster(5);
  const std::vector<JobSpec> jobs = random_jobs(5, 150);
  for (const std::string& policy : profile_names()) {
    const SimResult r = run(jobs, c, policy, 5);
    double teams = 0;
    for (const auto& [k, a] : r.ledger.by_team) teams += a.gpu_hours;
    EXPECT_NEAR(teams * kHour, r.allocated_gpu_seconds, 1e-6 * r.allocated_gpu_seconds + 1e-6)
        << policy;
  }
}

}  // namespace
}  // namespace frugal
