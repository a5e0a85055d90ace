// simulate_checkpoint_storage (src/storage/plan/checkpoint_storage.h): checkpoint series
// through the lifecycle rules, GB-hours per tier and their cost.
#include "storage/plan/checkpoint_storage.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace frugal::storage {
namespace {

constexpr double kHour = 3600.0;

LifecyclePolicy policy(int keep_hot, double warm, double cold, int retain, double age = 0) {
  LifecyclePolicy p;
  p.keep_hot = keep_hot;
  p.warm_after_s = warm;
  p.cold_after_s = cold;
  p.retain_count = retain;
  p.retain_age_s = age;
  return p;
}

CheckpointSeries series(const std::string& job, const std::string& team, double run_h,
                        double interval_h, double gb) {
  CheckpointSeries s;
  s.job = job;
  s.team = team;
  s.run_s = run_h * kHour;
  s.interval_s = interval_h * kHour;
  s.gb = gb;
  return s;
}

TierPrices prices() {
  auto p = tier_prices({});
  EXPECT_TRUE(p.ok());
  return p.value();
}

StorageSimResult sim(const std::vector<CheckpointSeries>& s,
                     const std::map<std::string, LifecyclePolicy>& pol, double until_h,
                     double sweep_s = 600, bool samples = false) {
  StorageSimOptions o;
  o.until = until_h * kHour;
  o.sweep_s = sweep_s;
  o.record_samples = samples;
  auto r = simulate_checkpoint_storage(
      s, [&](const std::string& team) -> const LifecyclePolicy& { return pol.at(team); }, prices(),
      o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : StorageSimResult{};
}

TEST(StorageCheckpointSim, TierPricesFromClusterTiers) {
  TierPrices d = prices();
  EXPECT_DOUBLE_EQ(d.usd_per_gb_month[0], 0.10);
  EXPECT_DOUBLE_EQ(d.usd_per_gb_month[1], 0.02);
  EXPECT_DOUBLE_EQ(d.usd_per_gb_month[2], 0.004);
  auto custom = tier_prices({{"cold", 1}, {"hot", 3}, {"warm", 2}, {"tape", 0.1}});
  ASSERT_TRUE(custom.ok());
  EXPECT_DOUBLE_EQ(custom.value().usd_per_gb_month[1], 2);
  auto missing = tier_prices({{"hot", 3}, {"warm", 2}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "storage tier 'cold' is not among the cluster's tiers");
}

TEST(StorageCheckpointSim, KeepEverythingIsTheSumOfCheckpointLives) {
  // 10 checkpoints of 100 GB at 1 h .. 10 h, counted to 10 h: 100 * (9 + 8 + ... + 0) GB-h.
  auto r = sim({series("j", "t", 10, 1, 100)}, {{"t", keep_everything_policy()}}, 10);
  EXPECT_EQ(r.written, 10);
  EXPECT_NEAR(r.gb_hours[0], 4500, 1e-6);
  EXPECT_EQ(r.gb_hours[1], 0);
  EXPECT_EQ(r.gb_hours[2], 0);
  EXPECT_NEAR(r.usd[0], 4500 * 0.10 / 720, 1e-9);
  EXPECT_NEAR(r.peak_gb, 1000, 1e-9);
  EXPECT_EQ(r.moves + r.deleted, 0);
}

TEST(StorageCheckpointSim, KeepOneHotOthersWarm) {
  // Completions fall on sweeps: at k h checkpoint k completes, k - 1 moves to warm.
  auto r = sim({series("j", "t", 10, 1, 100)}, {{"t", policy(1, 0, -1, 0)}}, 10);
  EXPECT_NEAR(r.gb_hours[0], 900, 1e-6);
  EXPECT_NEAR(r.gb_hours[1], 3600, 1e-6);
  EXPECT_EQ(r.moves, 9);
  EXPECT_NEAR(r.gb_moved_in[1], 900, 1e-9);
  EXPECT_NEAR(r.gb_at_end[0], 100, 1e-9);
  EXPECT_NEAR(r.gb_at_end[1], 900, 1e-9);
}

TEST(StorageCheckpointSim, RetentionAfterTheRunEndsAtSweepGranularity) {
  // retain 2 while running; after the end (10 h) the newest is unprotected and both left go
  // once older than 5 h, at the first 10-min sweep strictly past: 9 at 14:10, 10 at 15:10.
  auto r = sim({series("j", "t", 10, 1, 100)}, {{"t", policy(2, -1, -1, 2, 5 * kHour)}}, 20);
  const double want = 100 * (1 + 8 * 2) + 2 * 100 * (4 + 1.0 / 6) + 100 * 1;
  EXPECT_NEAR(r.gb_hours[0], want, 1e-6);
  EXPECT_EQ(r.deleted, 10);
  EXPECT_NEAR(r.gb_at_end[0], 0, 1e-9);
}

TEST(StorageCheckpointSim, CheckpointsBeingWrittenOccupyHot) {
  auto s = series("j", "t", 2, 1, 100);
  s.write_s = 0.5 * kHour;
  // Being written [0.5, 1) and [1.5, 2): checkpoint 1 held from 0.5 h, 2 from 1.5 h.
  auto r = sim({s}, {{"t", policy(1, 0, -1, 1)}}, 2);
  // Keep 1 (hot), retain 1: checkpoint 1 is deleted when 2 completes at the end (2 h).
  EXPECT_NEAR(r.gb_hours[0], 100 * 1.5 + 100 * 0.5, 1e-6);
  EXPECT_EQ(r.gb_hours[1], 0);
}

TEST(StorageCheckpointSim, PerTeamPolicies) {
  auto r = sim({series("a", "keep", 10, 1, 100), series("b", "lean", 10, 1, 100)},
               {{"keep", keep_everything_policy()}, {"lean", policy(1, 0, -1, 1)}}, 10);
  // a: 4500 GB-h hot; b: one checkpoint at a time, 900 GB-h hot.
  EXPECT_NEAR(r.gb_hours[0], 4500 + 900, 1e-6);
  EXPECT_EQ(r.deleted, 9);
}

TEST(StorageCheckpointSim, SamplesAreOrderedAndMatchTheEnd) {
  auto r = sim({series("j", "t", 10, 1, 100)}, {{"t", policy(1, 0, -1, 0)}}, 10, 600, true);
  ASSERT_FALSE(r.samples.empty());
  for (size_t i = 1; i < r.samples.size(); ++i) EXPECT_LT(r.samples[i - 1].t, r.samples[i].t);
  EXPECT_NEAR(r.samples.back().gb[1], 900, 1e-9);
}

// A reference without sweep skipping: the plan applied at every sweep, to check that the
// simulation's skipping of idle sweeps changes nothing.
std::array<double, 3> brute_force_gb_hours(const CheckpointSeries& s, const LifecyclePolicy& p,
                                           double until, double sweep) {
  std::vector<CheckpointInfo> held;
  std::array<double, 3> gbh{};
  const auto n = static_cast<int64_t>(std::floor(s.run_s / s.interval_s + 1e-9));
  int64_t next = 1;
  for (double t = 0; t < until; t += sweep) {
    for (; next <= n && s.start + static_cast<double>(next) * s.interval_s <= t; ++next) {
      CheckpointInfo c;
      c.job = s.job;
      c.team = s.team;
      c.step = next;
      c.completed_at = s.start + static_cast<double>(next) * s.interval_s;
      held.push_back(c);
    }
    auto plan = plan_lifecycle(
        held, [&](const std::string&) -> const LifecyclePolicy& { return p; }, t,
        [&](const std::string&) { return t < s.start + s.run_s; });
    std::vector<bool> gone(held.size(), false);
    for (const auto& a : plan) {
      if (a.kind == ActionKind::remove) gone[a.index] = true;
      if (a.kind == ActionKind::move) held[a.index].tier = a.to;
    }
    std::vector<CheckpointInfo> kept;
    for (size_t i = 0; i < held.size(); ++i)
      if (!gone[i]) kept.push_back(held[i]);
    held = kept;
    for (const auto& c : held) gbh[static_cast<size_t>(c.tier)] += s.gb * sweep / 3600.0;
  }
  return gbh;
}

TEST(StorageCheckpointSim, SkippingIdleSweepsMatchesSweepingAlways) {
  // Checkpoints every 2 h on sweep multiples, 6 days, accounted to 9 days.
  auto s = series("j", "t", 6 * 24, 2, 10);
  const LifecyclePolicy p = policy(2, kHour, 24 * kHour, 20, 4 * 24 * kHour);
  auto r = sim({s}, {{"t", p}}, 9 * 24);
  auto want = brute_force_gb_hours(s, p, 9 * 24 * kHour, 600);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(r.gb_hours[i], want[i], 1e-6) << "tier " << i;
  EXPECT_GT(r.gb_hours[1], 0);
  EXPECT_GT(r.gb_hours[2], 0);
}

TEST(StorageCheckpointSim, BadInputIsAnError) {
  auto check = [](CheckpointSeries s, const std::string& want, double sweep = 600) {
    StorageSimOptions o;
    o.sweep_s = sweep;
    LifecyclePolicy p = keep_everything_policy();
    auto r = simulate_checkpoint_storage(
        {s}, [&](const std::string&) -> const LifecyclePolicy& { return p; }, TierPrices{}, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, want);
  };
  auto good = series("j", "t", 10, 1, 100);
  auto s = good;
  s.interval_s = 0;
  check(s, "series of job 'j': interval_s <= 0");
  s = good;
  s.gb = 0;
  check(s, "series of job 'j': gb <= 0");
  s = good;
  s.write_s = 2 * kHour;
  check(s, "series of job 'j': write_s outside [0, interval_s]");
  s = good;
  s.run_s = NAN;
  check(s, "series of job 'j': a number is not finite");
  check(good, "sweep_s must be a positive number", 0);
  s = good;
  s.start = 100;
  StorageSimOptions o;
  o.until = 50;
  LifecyclePolicy p = keep_everything_policy();
  auto r = simulate_checkpoint_storage(
      {s}, [&](const std::string&) -> const LifecyclePolicy& { return p; }, TierPrices{}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "until is before the earliest start");
}

}  // namespace
}  // namespace frugal::storage
