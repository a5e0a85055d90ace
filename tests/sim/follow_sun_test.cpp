// Follow-the-sun (+sun, src/policy/follow_sun.h): region choice by expected cost, data
// transfer that makes a move not pay, relay at a price flip and not for a small gap, and
// random-workload invariants (ledger balances, no job lost).

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../cost/cost_test_util.h"
#include "cost/transfer.h"
#include "policy/frugal_profile.h"
#include "sim/class_assignment.h"

namespace frugal::testing {
namespace {

// Two regions, each a reserved pool with one 8-GPU A100 node (peak 400 W, no host
// overhead): "west" (node 0) and "south" (node 1). PUE 1, no time-of-use: a job's marginal
// cost is its energy, 8 × 0.4 kW = 3.2 kW at the region's hourly price; reserved rental is
// paid either way. Hourly prices (USD/MWh) from the epoch.
ClusterSpec two_regions(std::vector<double> west, std::vector<double> south) {
  ClusterSpec c;
  for (auto [name, prices] : {std::pair{"west", west}, std::pair{"south", south}}) {
    Region r;
    r.name = name;
    r.electricity_usd_per_mwh = HourlySeries(kEpoch, prices);
    r.pue = 1.0;
    c.regions.push_back(r);
  }
  Pool w;
  w.name = "w";
  w.region = 0;
  w.capacity = Capacity::kReserved;
  Pool s = w;
  s.name = "s";
  s.region = 1;
  c.pools = {w, s};
  c.nodes = {gpu_node("w0", kA100, 8, 0, 0), gpu_node("s0", kA100, 8, 0, 1)};
  return c;
}

JobSpec movable(std::string id, Seconds duration) {
  JobSpec j = job(std::move(id), 0, 8, duration);
  j.movable = true;
  return j;
}

// Compute, transfer and rework attributed to jobs (the only team, "default").
const CostAccount& jobs_account(const SimResult& r) {
  return r.ledger.by_team.at("default");
}

TEST(FollowSun, PlacesAMovableJobInTheCheaperRegion) {
  // 2 h at 3.2 kW: west $100/MWh → $0.64, south $20/MWh → $0.128.
  const ClusterSpec c = two_regions(std::vector<double>(12, 100), std::vector<double>(12, 20));
  const SimResult sun = run_priced({movable("a", 2 * kHour)}, c, "bestfit+sun");
  EXPECT_NEAR(jobs_account(sun).compute.energy_usd, 3.2 * 2 * 20 / 1000, 1e-9);
  EXPECT_EQ(sun.region_moves, 0);  // no data region declared: nothing to move
  // Without +sun bestfit takes the lowest node (west); so does +sun for a job not movable.
  const SimResult plain = run_priced({movable("a", 2 * kHour)}, c, "bestfit");
  EXPECT_NEAR(jobs_account(plain).compute.energy_usd, 3.2 * 2 * 100 / 1000, 1e-9);
  const SimResult fixed = run_priced({job("a", 0, 8, 2 * kHour)}, c, "bestfit+sun");
  EXPECT_NEAR(jobs_account(fixed).compute.energy_usd, 3.2 * 2 * 100 / 1000, 1e-9);
  // When the cheap region is full the job takes the other one instead of waiting.
  const SimResult full = run_priced({[] {
                                       JobSpec j = job("x", 0, 8, 2 * kHour);
                                       j.allowed_models = {kA100};
                                       j.movable = true;
                                       return j;
                                     }(),
                                     movable("a", 2 * kHour)},
                                    c, "bestfit+sun");
  EXPECT_DOUBLE_EQ(full.jobs[1].first_start, 0);
  EXPECT_NEAR(jobs_account(full).compute.energy_usd, 3.2 * 2 * (100 + 20) / 1000, 1e-9);
}

TEST(FollowSun, TakesACheaperRegionOnlyWithoutLosingPacking) {
  // West ($100/MWh) holds a 7-GPU job; south ($20/MWh) is empty. A 1-GPU movable job fits
  // tightly on west's last free GPU; south would break up a wholly free node, so it stays
  // in west: 0.4 kW × 2 h × $0.1/kWh. (The $0.064 a relay would save is below $1.)
  const ClusterSpec c = two_regions(std::vector<double>(12, 100), std::vector<double>(12, 20));
  JobSpec small = movable("a", 2 * kHour);
  small.gpus = 1;
  const SimResult r = run_priced({job("x", 0, 7, 2 * kHour), small}, c, "bestfit+sun");
  EXPECT_NEAR(jobs_account(r).compute.energy_usd, (7 + 1) * 0.4 * 2 * 100 / 1000, 1e-9);
  EXPECT_EQ(r.migrations, 0);
  // Alone on the empty cluster both regions pack it equally: it goes south.
  const SimResult alone = run_priced({small}, c, "bestfit+sun");
  EXPECT_NEAR(jobs_account(alone).compute.energy_usd, 0.4 * 2 * 20 / 1000, 1e-9);
}

TEST(FollowSun, AutoscalerProvisionsInTheRegionCheapestNow) {
  // Both pools on-demand ($4/GPU-h list, no time-of-use): a queued 8-GPU job makes the
  // autoscaler boot one node. By node order that is west ($100/MWh); with +sun the node
  // whose GPU-hour costs least now, south ($20/MWh), for any job, movable or not.
  ClusterSpec c = two_regions(std::vector<double>(12, 100), std::vector<double>(12, 20));
  for (Pool& p : c.pools) {
    p.capacity = Capacity::kOnDemand;
    p.provisioning_delay_s = 60;
  }
  const SimResult plain = run_priced({job("a", 0, 8, 2 * kHour)}, c, "bestfit");
  EXPECT_NEAR(jobs_account(plain).compute.energy_usd, 0.64, 1e-9);
  const SimResult sun = run_priced({job("a", 0, 8, 2 * kHour)}, c, "bestfit+sun");
  EXPECT_NEAR(jobs_account(sun).compute.energy_usd, 0.128, 1e-9);
  EXPECT_EQ(sun.nodes_provisioned, 1);
}

TEST(FollowSun, DatasetTransferCanMakeMovingNotPay) {
  const ClusterSpec c = two_regions(std::vector<double>(12, 100), std::vector<double>(12, 20));
  // Data in west. South saves $0.64 − $0.128 = $0.512 of energy; 30 GB at west's egress
  // $0.02/GB is $0.60: the job stays in west and nothing is transferred.
  JobSpec heavy = movable("a", 2 * kHour);
  heavy.data_region = "west";
  heavy.dataset_gb = 30;
  const SimResult stay = run_priced({heavy}, c, "bestfit+sun");
  EXPECT_NEAR(jobs_account(stay).compute.energy_usd, 0.64, 1e-9);
  EXPECT_EQ(stay.region_moves, 0);
  EXPECT_DOUBLE_EQ(stay.ledger.total.transfer_usd, 0);
  // 10 GB ($0.20) pays: it runs in south and the ledger charges the transfer.
  JobSpec light = heavy;
  light.dataset_gb = 10;
  const SimResult move = run_priced({light}, c, "bestfit+sun");
  EXPECT_NEAR(jobs_account(move).compute.energy_usd, 0.128, 1e-9);
  EXPECT_EQ(move.region_moves, 1);
  EXPECT_NEAR(move.transfer_usd, 0.20, 1e-12);
  EXPECT_NEAR(jobs_account(move).transfer_usd, 0.20, 1e-12);
  EXPECT_NEAR(move.ledger.total.transfer_usd, 0.20, 1e-12);
  // The transfer is part of the job's (and the cluster's) total.
  EXPECT_NEAR(jobs_account(move).total_usd(),
              jobs_account(move).compute.total_usd() + jobs_account(move).storage_usd + 0.20, 1e-9);
}

// West is free for 3 hours, then $1000/MWh; south $600/MWh (or `south` as given).
ClusterSpec flip(double south) {
  std::vector<double> west(12, 1000);
  west[0] = west[1] = west[2] = 0;
  return two_regions(west, std::vector<double>(12, south));
}

TEST(FollowSun, RelaysALongJobOnceWhenTheGapFlips) {
  // 6 h job. At t = 0: west costs 3.2 kW × 3 h × $1/kWh = $9.60, south 3.2 × 6 × 0.6 =
  // $11.52 → west. Hourly relay checks (restart 60 s, no work lost without checkpoint
  // interval): at 1 h staying costs $9.60, moving 3.2 × (5 h + 60 s) × 0.6 = $9.632; at
  // 2 h staying $9.60, moving 3.2 × (4 h + 60 s) × 0.6 = $7.712, a gain of $1.888 > max($1,
  // 5 % × $9.60) → relayed to south at 2 h; from there west never pays again.
  const SimResult r = run_priced({movable("a", 6 * kHour)}, flip(600), "bestfit+sun");
  EXPECT_EQ(r.migrations, 1);
  EXPECT_EQ(r.region_moves, 1);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 6 * kHour + 60);
  EXPECT_NEAR(jobs_account(r).compute.energy_usd, 3.2 * (4 + 60 / kHour) * 0.6, 1e-9);
  EXPECT_DOUBLE_EQ(r.jobs[0].rework_gpu_seconds, 8 * 60.0);  // the restart
  EXPECT_GT(jobs_account(r).waste.rework_usd, 0);
  EXPECT_DOUBLE_EQ(r.transfer_usd, 0);  // no data declared
  // Without +sun it stays in west: $9.60.
  const SimResult plain = run_priced({movable("a", 6 * kHour)}, flip(600), "bestfit");
  EXPECT_EQ(plain.migrations, 0);
  EXPECT_NEAR(jobs_account(plain).compute.energy_usd, 9.6, 1e-9);
}

TEST(FollowSun, NoRelayWhenTheGapIsTooSmall) {
  // South at $950/MWh: the best gain, at 3 h, is 3.2 × 3 × 1 − 3.2 × (3 h + 60 s) × 0.95 =
  // $0.43 < $1: the job stays in west.
  const SimResult r = run_priced({movable("a", 6 * kHour)}, flip(950), "bestfit+sun");
  EXPECT_EQ(r.migrations, 0);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 6 * kHour);
  EXPECT_NEAR(jobs_account(r).compute.energy_usd, 9.6, 1e-9);
  // A job shorter than min_remaining_s (1 h) at every check is never relayed either.
  const SimResult s = run_priced({movable("b", 0.9 * kHour)}, flip(600), "bestfit+sun");
  EXPECT_EQ(s.migrations, 0);
}

TEST(FollowSun, CheckpointTransferDelaysTheRelay) {
  // A 100 GB checkpoint at west's $0.02/GB adds $2 to a move: at 2 h the move costs
  // $7.712 + $2 > $9.60; at 3 h staying costs $9.60, moving 3.2 × (3 h + 60 s) × 0.6 + 2 =
  // $7.792 → relayed at 3 h, the transfer charged.
  JobSpec j = movable("a", 6 * kHour);
  j.checkpoint_gb = 100;
  const SimResult r = run_priced({j}, flip(600), "bestfit+sun");
  EXPECT_EQ(r.migrations, 1);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 6 * kHour + 60);
  EXPECT_NEAR(jobs_account(r).compute.energy_usd, 3.2 * (3 + 60 / kHour) * 0.6, 1e-9);
  EXPECT_NEAR(r.ledger.total.transfer_usd, 2.0, 1e-12);
  EXPECT_NEAR(transfer_usd(flip(600), j, 0, 1, true), 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(transfer_usd(flip(600), j, 1, 1, true), 0);
  EXPECT_DOUBLE_EQ(transfer_usd(flip(600), j, 0, 1, false), 0);  // no dataset
}

TEST(FollowSun, ProfileOptions) {
  const Profile p = profile("bestfit+sun");
  EXPECT_NE(p.describe().find("relay=sun"), std::string::npos) << p.describe();
  EXPECT_NE(p.describe().find("filter=sun(model-constraint)"), std::string::npos);
  EXPECT_NE(p.describe().find("place=sun(bestfit)"), std::string::npos);
  EXPECT_NE(profile("frugal").relay, nullptr);  // on by default
  EXPECT_EQ(profile("frugal:sun=0").relay, nullptr);
  EXPECT_NE(profile("frugal:sun=1").relay, nullptr);
  EXPECT_NE(profile("frugal:sun=0+sun").relay, nullptr);
  EXPECT_FALSE(make_profile("frugal:sun=2").ok());
  EXPECT_TRUE(FrugalOptions{}.sun);
  // The frugal option and the suffix compose to one relay (no double wrapping).
  EXPECT_EQ(profile("frugal:sun=1+sun").describe().find("sun(sun("), std::string::npos);
}

// Random workloads on a mixed two-region cluster (reserved, owned and on-demand pools,
// different price series, node failures), half the GPU jobs movable with data: every job
// completes or is rejected, the engine's invariants hold every cycle, and the ledger
// balances with transfers included.
ClusterSpec mixed(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> p(60, 30);
  std::vector<double> w(72), s(72);
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = std::max(-5.0, p(rng)) + (i % 24 < 8 ? 0 : 40);
    s[i] = std::max(-5.0, p(rng)) + (i % 24 < 8 ? 40 : 0);
  }
  ClusterSpec c = two_regions(w, s);
  c.regions[1].egress_usd_per_gb = 0.05;
  Pool od;
  od.name = "s-od";
  od.region = 1;
  od.capacity = Capacity::kOnDemand;
  od.provisioning_delay_s = 240;
  od.idle_timeout_s = 600;
  Pool v;
  v.name = "w-v100";
  v.region = 0;
  v.capacity = Capacity::kOwned;
  c.pools.push_back(od);
  c.pools.push_back(v);
  c.nodes.push_back(gpu_node("s1", kA100, 8, 1800, 2));
  c.nodes.push_back(gpu_node("s2", kA100, 8, 1800, 2));
  c.nodes.push_back(gpu_node("w1", kA100, 8, 1600, 0));
  c.nodes.push_back(gpu_node("wv", kV100, 4, 500, 3));
  return c;
}

std::vector<JobSpec> random_jobs(uint32_t seed, size_t n) {
  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::exponential_distribution<double> gap(1.0 / 600);
  std::lognormal_distribution<double> dur(std::log(3 * 3600.0), 1.0);
  std::vector<JobSpec> jobs;
  Seconds t = 0;
  for (size_t i = 0; i < n; ++i) {
    t += std::round(gap(rng));
    JobSpec j = job("j" + std::to_string(i), t, 1, std::max(60.0, std::round(dur(rng))));
    const int sizes[] = {1, 2, 4, 8, 8, 16};
    j.gpus = sizes[uni(0, 5)];
    if (uni(0, 9) == 0) j.gpu_milli = 500, j.gpus = 1;
    j.job_class = static_cast<JobClass>(uni(0, kJobClassCount - 1));
    j.team = uni(0, 1) ? "a" : "b";
    if (uni(0, 2) == 0) j.checkpoint_interval = uni(1, 4) * 900;
    j.utilization = uni(30, 100) / 100.0;
    if (uni(0, 1)) j.data_region = uni(0, 1) ? "west" : "south";
    jobs.push_back(std::move(j));
  }
  assign_movable(jobs, 0.5, seed, 20, 40);
  return jobs;
}

TEST(FollowSun, RandomWorkloadsKeepInvariantsAndBalance) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const ClusterSpec c = mixed(seed);
    const std::vector<JobSpec> jobs = random_jobs(seed, 120);
    for (const std::string policy :
         {"bestfit+sun", "backfill/hetero+sun", "las+sun", "frugal:sun=1", "frugal"}) {
      const std::string what = policy + " seed " + std::to_string(seed);
      SimOptions o;
      o.node_mtbf_hours = 40;
      o.node_repair_hours = 0.5;
      o.seed = seed;
      const SimResult r = run_priced(jobs, c, policy, o);
      ASSERT_EQ(r.invariant_violation, "") << what;
      size_t done = 0;
      for (const JobOutcome& out : r.jobs) done += (out.finish >= 0 || out.unschedulable) ? 1 : 0;
      EXPECT_EQ(done, jobs.size()) << what;
      const LedgerReport& l = r.ledger;
      CostAccount teams, regions;
      for (const auto& [k, a] : l.by_team) teams += a;
      for (const auto& [k, a] : l.by_region) regions += a;
      const double total = l.total.total_usd();
      EXPECT_NEAR(total, teams.total_usd() + l.unattributed.total_usd(), 1e-6 * total) << what;
      EXPECT_NEAR(regions.total_usd(), total, 1e-6 * total) << what;
      EXPECT_NEAR(teams.transfer_usd, l.total.transfer_usd, 1e-9 * (1 + total)) << what;
      EXPECT_NEAR(r.transfer_usd, l.total.transfer_usd, 1e-9 * (1 + total)) << what;
      EXPECT_GE(l.total.transfer_usd, 0) << what;
      int64_t moves = 0;
      for (const JobOutcome& out : r.jobs) moves += out.region_moves;
      EXPECT_EQ(moves, r.region_moves) << what;
      if (policy.find("sun") != std::string::npos) {
        EXPECT_GT(r.region_moves, 0) << what;  // the workload does exercise transfers
      }
    }
  }
}

}  // namespace
}  // namespace frugal::testing
