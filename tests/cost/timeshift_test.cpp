// Time-shifting: the time-shift Admit on a hand-made 6-hour price series, deadline-miss
// counting, the deferrable-cost report and the offline LP bound on a tiny case.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cluster/cluster_state.h"
#include "cost/offline_bound.h"
#include "cost/pricing.h"
#include "cost_test_util.h"
#include "policy/time_shift.h"

namespace frugal::testing {
namespace {

// One reserved A100 (peak 400 W, $2/h reserved) in a region whose six hourly prices are
// 100, 80, 20, 50, 10, 90 USD/MWh, PUE 1, no time-of-use: only energy varies with time.
ClusterSpec six_hour_cluster(int gpus = 1) {
  ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, gpus)});
  c.regions[0].electricity_usd_per_mwh = HourlySeries(kEpoch, {100, 80, 20, 50, 10, 90});
  c.regions[0].offpeak = HourlySeries();
  c.regions[0].pue = 1.0;
  return c;
}

// six_hour_cluster() with its pool on demand, nodes provisioned `delay` s after a request.
ClusterSpec six_hour_on_demand(double delay = 0) {
  ClusterSpec c = six_hour_cluster();
  c.pools[0].capacity = Capacity::kOnDemand;
  c.pools[0].provisioning_delay_s = delay;
  return c;
}

JobSpec deferrable(std::string id, Seconds submit, Seconds duration, Seconds deadline) {
  JobSpec j = job(std::move(id), submit, 1, duration);
  j.deferrable = true;
  j.deadline = deadline;
  return j;
}

TEST(TimeShift, DefersToCheapestFeasibleHour) {
  // 30 min run, deadline 6 h: margin max(1 h, 25 % × 0.5 h) = 1 h, so the latest start is
  // 6 h − 0.5 h − 1 h = 4.5 h; starts 0, 1, 2, 3, 4 h cost 100, 80, 20, 50, 10 → hour 4.
  const SimResult r =
      run_priced({deferrable("a", 0, 1800, 6 * kHour)}, six_hour_cluster(), "timeshift");
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start, 4 * kHour);
  EXPECT_EQ(r.deadline_misses, 0);
  // Energy: 0.4 kW × 0.5 h × $10/MWh.
  EXPECT_NEAR(r.ledger.deferrable.energy_usd, 0.4 * 0.5 * 10 / 1000, 1e-12);
  EXPECT_EQ(r.ledger.deferrable.jobs, 1u);
  EXPECT_NEAR(r.ledger.deferrable.cost_usd, 2 * 0.5 + 0.4 * 0.5 * 10 / 1000, 1e-12);
}

TEST(TimeShift, NeverPastTheDeadline) {
  // Deadline 4 h: latest start 4 − 0.5 − 1 = 2.5 h; hours 0, 1, 2 → hour 2 (20), not hour 4.
  const SimResult r =
      run_priced({deferrable("a", 0, 1800, 4 * kHour)}, six_hour_cluster(), "timeshift");
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start, 2 * kHour);
  EXPECT_LE(r.jobs[0].finish, 4 * kHour);
  // Too tight to move at all: runs at once.
  const SimResult t =
      run_priced({deferrable("b", 0, 1800, 1 * kHour)}, six_hour_cluster(), "timeshift");
  EXPECT_DOUBLE_EQ(t.jobs[0].first_start, 0);
  EXPECT_EQ(t.deadline_misses, 0);
}

TEST(TimeShift, MaxDelayWithoutDeadlineAndOtherJobs) {
  // No deadline: max_delay_s = 3 h allows hours 1..3 → hour 2 (20).
  const SimResult r = run_priced({deferrable("a", 0, 1800, kNever)}, six_hour_cluster(),
                                 "timeshift:max_delay_s=10800");
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start, 2 * kHour);
  // A job that is not deferrable starts at once; so does everything under backfill.
  const SimResult n = run_priced({job("b", 0, 1, 1800)}, six_hour_cluster(), "timeshift");
  EXPECT_DOUBLE_EQ(n.jobs[0].first_start, 0);
  const SimResult b =
      run_priced({deferrable("c", 0, 1800, 6 * kHour)}, six_hour_cluster(), "backfill");
  EXPECT_DOUBLE_EQ(b.jobs[0].first_start, 0);
  // Arriving mid-hour: candidates are now and whole hours after it.
  const SimResult m =
      run_priced({deferrable("d", 1000, 1800, 6 * kHour)}, six_hour_cluster(), "timeshift");
  EXPECT_DOUBLE_EQ(m.jobs[0].first_start, 4 * kHour);
  // Saving below min_saving: no deferral (hour 4 saves 90 % of the energy cost at once).
  const SimResult s = run_priced({deferrable("e", 0, 1800, 6 * kHour)}, six_hour_cluster(),
                                 "timeshift:min_saving=0.95");
  EXPECT_DOUBLE_EQ(s.jobs[0].first_start, 0);
}

TEST(TimeShift, WaitPriceTradesSavingAgainstDelay) {
  // Energy of the 30-min run starting at hours 0..4: $0.020, 0.016, 0.004, 0.010, 0.002.
  // Charging w per GPU-hour of deferral: w = 0.0005 still picks hour 4 (0.004 < 0.005);
  // w = 0.002 picks hour 2 (0.008 < 0.010 at hour 4); w = 0.01 makes every deferral
  // dearer than starting at once (hour 2: 0.024 > 0.020).
  const std::vector<std::pair<const char*, Seconds>> cases = {
      {"timeshift:wait_usd_gpu_h=0.0005", 4 * kHour},
      {"timeshift:wait_usd_gpu_h=0.002", 2 * kHour},
      {"timeshift:wait_usd_gpu_h=0.01", 0}};
  for (const auto& [policy, start] : cases) {
    const SimResult r =
        run_priced({deferrable("a", 0, 1800, 6 * kHour)}, six_hour_cluster(), policy);
    EXPECT_DOUBLE_EQ(r.jobs[0].first_start, start) << policy;
  }
}

TEST(TimeShift, EnergyOnlyIgnoresTheRentalDiscount) {
  // On-demand A100 ($4/GPU-h, 50 % off in hour 1 only; no boot delay) under the six prices
  // 100, 80, 20, 50, 10, 90 $/MWh; a 30-min run with latest start 4.5 h. By cost (rental +
  // energy) hour 1 is cheapest: $1 + 0.4 × 0.5 × 80 / 1000 = $1.016 against $2.002 at hour 4;
  // by energy alone hour 4: $0.002 against $0.016 at hour 1 (and $0.020 at once).
  ClusterSpec spec = six_hour_on_demand();
  spec.regions[0].time_of_use.discount = 0.5;
  spec.regions[0].offpeak = HourlySeries(kEpoch, {0, 1, 0, 0, 0, 0});
  const JobSpec a = deferrable("a", 0, 1800, 6 * kHour);
  const SimResult cost = run_priced({a}, spec, "timeshift");
  EXPECT_DOUBLE_EQ(cost.jobs[0].first_start, 1 * kHour);
  EXPECT_NEAR(cost.ledger.deferrable.energy_usd, 0.4 * 0.5 * 80 / 1000, 1e-12);
  const SimResult energy = run_priced({a}, spec, "timeshift:energy_only=1");
  EXPECT_DOUBLE_EQ(energy.jobs[0].first_start, 4 * kHour);
  EXPECT_NEAR(energy.ledger.deferrable.energy_usd, 0.4 * 0.5 * 10 / 1000, 1e-12);
  EXPECT_GT(energy.ledger.deferrable.cost_usd, cost.ledger.deferrable.cost_usd);
  EXPECT_EQ(energy.deadline_misses, 0);
}

// Prompt release (+release) keeps an idle on-demand node for deferred work due within the
// pool's idle timeout, and only then. One on-demand A100 (300 s boot, 900 s timeout); `a` is
// deferred by energy to hour 4 (14,400 s). If `b` holds the node until 13,800 (600 s before
// `a` is due) the node is kept and `a` starts at once at 14,400; if `b` ends at 2,100 the node
// goes back then and `a` waits for a new boot (14,700).
TEST(TimeShift, PromptReleaseKeepsTheNodeForDeferredWorkDueSoon) {
  ClusterSpec spec = six_hour_on_demand(300);
  spec.pools[0].idle_timeout_s = 900;
  const JobSpec a = deferrable("a", 0, 1800, 6 * kHour);
  const std::string policy = "timeshift:energy_only=1+release";
  const SimResult soon = run_priced({job("b", 0, 1, 13500), a}, spec, policy);
  EXPECT_DOUBLE_EQ(soon.jobs[0].finish, 300 + 13500);
  EXPECT_DOUBLE_EQ(soon.jobs[1].first_start, 4 * kHour);
  EXPECT_EQ(soon.nodes_provisioned, 1);
  const SimResult early = run_priced({job("b", 0, 1, 1800), a}, spec, policy);
  EXPECT_DOUBLE_EQ(early.jobs[0].finish, 300 + 1800);
  EXPECT_DOUBLE_EQ(early.jobs[1].first_start, 4 * kHour + 300);
  EXPECT_EQ(early.nodes_provisioned, 2);
}

TEST(TimeShift, OverflowModelPricesWhereTheAutoscalerAddsCapacity) {
  // All on demand, no boot delay: one A100 in region "r" (prices 100, 80, 20, 50, 10, 90)
  // and 32 T4s in region "s" (0 in hours 2-4, 100 otherwise). The autoscaler adds A100s for
  // a 1-GPU job (the first candidate model with on-demand capacity), so it runs there. A
  // 30-min run (2.5 h on a T4), latest start 4.5 h.
  //   GPU-weighted mix (default): hour 2, where the 32 T4s' energy is 0 over [2, 4.5) h
  //             (hour 4: their run reaches hours 5-6 at 100) — the A100 run then pays 20.
  //   overflow_model: the A100 alone: hour 4 (10).
  ClusterSpec spec = six_hour_on_demand();
  Region s = hand_region("s");
  s.electricity_usd_per_mwh = HourlySeries(kEpoch, {100, 100, 0, 0, 0, 100});
  s.offpeak = HourlySeries();
  s.pue = 1.0;
  spec.regions.push_back(s);
  Pool t4;
  t4.name = "t4";
  t4.region = 1;
  t4.capacity = Capacity::kOnDemand;
  t4.provisioning_delay_s = 0;
  spec.pools.push_back(t4);
  for (int i = 0; i < 8; ++i) spec.nodes.push_back(gpu_node("t" + std::to_string(i), kT4, 4, 0, 1));
  const JobSpec a = deferrable("a", 0, 1800, 6 * kHour);
  const SimResult mix = run_priced({a}, spec, "timeshift:energy_only=1");
  EXPECT_DOUBLE_EQ(mix.jobs[0].first_start, 2 * kHour);
  const SimResult om = run_priced({a}, spec, "timeshift:energy_only=1:overflow_model=1");
  EXPECT_DOUBLE_EQ(om.jobs[0].first_start, 4 * kHour);
  // It ran on the A100 both times: energy 0.4 kW × 0.5 h × 20 (or 10) $/MWh.
  EXPECT_NEAR(mix.ledger.deferrable.energy_usd, 0.4 * 0.5 * 20 / 1000, 1e-12);
  EXPECT_NEAR(om.ledger.deferrable.energy_usd, 0.4 * 0.5 * 10 / 1000, 1e-12);
  EXPECT_EQ(om.deadline_misses, 0);
}

TEST(TimeShift, DeadlineRoomFromTheRunWhereItIsPriced) {
  // The reference model is the T4 (speed 0.2): a job of 2 h there runs 1,440 s on the
  // A100 it is priced on. Deadline 6 h, margin max(1 h, 25 % of the run) = 1 h. Counting
  // the reference run (7,200 s) the latest start would be 6 − 2 − 1 = 3 h, hence hour 2
  // (20 $/MWh); counting the A100 run it is 6 h − 1,440 s − 1 h = 4.6 h, hence hour 4 (10),
  // ending at 4.4 h, well before the deadline.
  SimOptions o;
  o.reference_model = kT4;
  const SimResult r =
      run_priced({deferrable("a", 0, 7200, 6 * kHour)}, six_hour_cluster(), "timeshift", o);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start, 4 * kHour);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 4 * kHour + 1440);
  EXPECT_EQ(r.deadline_misses, 0);
}

TEST(TimeShift, DeferredJobsShareACappedPool) {
  // One on-demand A100 (the pool can never hold more), no boot delay; two 1-h jobs arrive
  // together with deadline 6 h: latest start 6 − 1 − 1 = 4 h, hours 1..4 cost 80, 20, 50,
  // 10 $/MWh. The first takes hour 4; hour 4 is then promised, so the second takes the
  // cheapest hour with room, hour 2 — not hour 4 too, which would have left it queued to
  // [5 h, 6 h) at 90 $/MWh, finishing on its deadline.
  ClusterSpec spec = six_hour_on_demand();
  const SimResult r =
      run_priced({deferrable("a", 0, 3600, 6 * kHour), deferrable("b", 0, 3600, 6 * kHour)}, spec,
                 "timeshift:energy_only=1");
  std::vector<Seconds> starts{r.jobs[0].first_start, r.jobs[1].first_start};
  std::sort(starts.begin(), starts.end());
  EXPECT_EQ(starts, (std::vector<Seconds>{2 * kHour, 4 * kHour}));
  EXPECT_NEAR(r.ledger.deferrable.energy_usd, 0.4 * (20 + 10) / 1000, 1e-12);
  EXPECT_EQ(r.deadline_misses, 0);
}

TEST(TimeShift, ParsesOptions) {
  EXPECT_EQ(split_option_items("a=1::b=2:"), (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_TRUE(split_option_items("").empty());
  EXPECT_FALSE(make_profile("timeshift:bogus=1").ok());
  EXPECT_FALSE(make_profile("timeshift:max_delay_s=x").ok());
  EXPECT_FALSE(make_profile("backfill:max_delay_s=1").ok());
  auto o = parse_time_shift_options("max_delay_s=60:min_saving=0.1:margin_s=5:margin_frac=0");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o.value().max_delay_s, 60);
  EXPECT_EQ(o.value().min_saving, 0.1);
  EXPECT_EQ(o.value().margin_s, 5);
  EXPECT_EQ(o.value().margin_frac, 0);
  EXPECT_EQ(o.value().wait_usd_gpu_h, 0);
  auto w = parse_time_shift_options("wait_usd_gpu_h=1.5");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.value().wait_usd_gpu_h, 1.5);
  EXPECT_FALSE(w.value().energy_only);
  auto e = parse_time_shift_options("energy_only=1");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e.value().energy_only);
  EXPECT_FALSE(e.value().overflow_model);
  auto m = parse_time_shift_options("overflow_model=1");
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m.value().overflow_model);
}

TEST(DeadlineMisses, CountsLateAndUnschedulable) {
  JobSpec late = job("late", 0, 1, 2 * kHour);
  late.deadline = kHour;  // finishes at 2 h
  JobSpec never = job("never", 0, 4, kHour);
  never.deadline = 10 * kHour;  // 4 GPUs on a 1-GPU cluster: rejected
  JobSpec ok = job("ok", 0, 1, kHour);
  ok.deadline = 3 * kHour + 1;              // waits for "late", finishes at 3 h
  JobSpec none = job("none", 0, 1, kHour);  // no deadline: never a miss
  const SimResult r = run_priced({late, never, ok, none}, six_hour_cluster(), "backfill");
  EXPECT_TRUE(r.jobs[1].unschedulable);
  EXPECT_DOUBLE_EQ(r.jobs[2].finish, 3 * kHour);
  EXPECT_EQ(r.deadline_misses, 2);
  EXPECT_EQ(r.ledger.deferrable.jobs, 0u);
}

TEST(OfflineBound, TinyCaseKnownOptimum) {
  // Two 1-hour 1-GPU jobs that may start at 0, 1 or 2 h (prices 100, 80, 20). With one GPU
  // the best is hours 2 and 1: 0.4 kW × (20 + 80) / 1000 = $0.04 energy; with two GPUs both
  // take hour 2: $0.016. Rental is $2 per GPU-hour either way ($4).
  for (int gpus : {1, 2}) {
    const ClusterSpec spec = six_hour_cluster(gpus);
    const ClusterState st(spec, priced_gpus());
    const Pricing pricing(spec, priced_gpus(), st);
    OfflineJob j;
    j.centre = 0;
    j.runtime = kHour;
    j.earliest = 0;
    j.latest = 2 * kHour;
    const OfflineBound b =
        solve_offline_bound(pricing, {j, j}, {static_cast<double>(gpus)}, kEpoch);
    ASSERT_TRUE(b.ok) << b.error;
    const double energy = gpus == 1 ? 0.04 : 0.016;
    EXPECT_NEAR(b.energy_usd, energy, 1e-9) << gpus;
    EXPECT_NEAR(b.cost_usd, 4 + energy, 1e-9) << gpus;
  }
}

TEST(OfflineBound, EnergyObjectiveDiffersFromCostWhenOffPeakRentalIsNotCheapEnergy) {
  // On-demand A100s ($4/GPU-h list, 50 % off in the off-peak hour 1 only) under the six
  // prices 100, 80, 20, 50, 10, 90 $/MWh: the rental discount and the cheap energy fall in
  // different hours. 1-hour 1-GPU jobs (0.4 kW) may start at 0 … 4 h.
  //   one job:  cost-optimal hour 1: $2 + 0.4 × 80 / 1000 = $2.032 (energy $0.032);
  //             energy-optimal hour 4: 0.4 × 10 / 1000 = $0.004 (cost $4.004).
  //   two jobs on one GPU: cost-optimal hours 1 and 4: $2.032 + $4.004 = $6.036 (energy
  //             $0.036); energy-optimal hours 4 and 2: 0.4 × (10 + 20) / 1000 = $0.012
  //             (cost $8.012).
  ClusterSpec spec = six_hour_cluster(1);
  spec.pools[0].capacity = Capacity::kOnDemand;
  spec.regions[0].time_of_use.discount = 0.5;
  spec.regions[0].offpeak = HourlySeries(kEpoch, {0, 1, 0, 0, 0, 0});
  const ClusterState st(spec, priced_gpus());
  const Pricing pricing(spec, priced_gpus(), st);
  OfflineJob j;
  j.centre = 0;
  j.runtime = kHour;
  j.earliest = 0;
  j.latest = 4 * kHour;
  struct Case {
    std::vector<OfflineJob> jobs;
    double cost_energy, cost_total, energy_energy, energy_total;
  };
  for (const Case& c :
       {Case{{j}, 0.032, 2.032, 0.004, 4.004}, Case{{j, j}, 0.036, 6.036, 0.012, 8.012}}) {
    const OfflineBound b = solve_offline_bound(pricing, c.jobs, {1.0}, kEpoch);
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_EQ(b.objective, OfflineObjective::kCost);
    EXPECT_NEAR(b.cost_usd, c.cost_total, 1e-9) << c.jobs.size();
    EXPECT_NEAR(b.energy_usd, c.cost_energy, 1e-9) << c.jobs.size();
    const OfflineBound e =
        solve_offline_bound(pricing, c.jobs, {1.0}, kEpoch, OfflineObjective::kEnergy);
    ASSERT_TRUE(e.ok) << e.error;
    EXPECT_EQ(e.objective, OfflineObjective::kEnergy);
    EXPECT_EQ(e.columns, b.columns);  // the same candidates
    EXPECT_NEAR(e.energy_usd, c.energy_energy, 1e-9) << c.jobs.size();
    EXPECT_NEAR(e.cost_usd, c.energy_total, 1e-9) << c.jobs.size();
    // Each is the least of its own objective.
    EXPECT_LT(e.energy_usd, b.energy_usd);
    EXPECT_GT(e.cost_usd, b.cost_usd);
  }
}

TEST(OfflineBound, EnergyObjectiveFractionalHourAndCapacity) {
  // Two 30-min jobs released at 0.5 h, latest start 3.5 h, one GPU (reserved, no time of
  // use: the objectives agree on rental). Energy-optimal: both in hour 2 (20 $/MWh), one
  // after the other (the hour holds two half-hour runs, starting at 2 h — a whole hour — and
  // 2.5 h — a start that ends on one): 0.4 × 0.5 × 2 × 20 / 1000 = $0.008. Hour 4 (10 $/MWh)
  // is out of reach.
  const ClusterSpec spec = six_hour_cluster(1);
  const ClusterState st(spec, priced_gpus());
  const Pricing pricing(spec, priced_gpus(), st);
  OfflineJob j;
  j.centre = 0;
  j.runtime = kHour / 2;
  j.earliest = kHour / 2;
  j.latest = 3.5 * kHour;
  const OfflineBound e =
      solve_offline_bound(pricing, {j, j}, {1.0}, kEpoch, OfflineObjective::kEnergy);
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_NEAR(e.energy_usd, 0.008, 1e-9);
  const OfflineBound b = solve_offline_bound(pricing, {j, j}, {1.0}, kEpoch);
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_NEAR(b.energy_usd, 0.008, 1e-9);  // reserved rental is fixed: the same schedule
  EXPECT_NEAR(b.cost_usd, e.cost_usd, 1e-9);
}

TEST(OfflineBound, FromSimulationIsBelowActual) {
  // Three deferrable 30-min jobs at t = 0 with a 6 h deadline on one GPU.
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 3; ++i)
    jobs.push_back(deferrable("j" + std::to_string(i), 0, 1800, 6 * kHour));
  SimOptions o;
  o.offline_bound = true;
  for (const char* policy : {"backfill", "timeshift"}) {
    const SimResult r = run_priced(jobs, six_hour_cluster(), policy, o);
    ASSERT_TRUE(r.has_offline_bound);
    ASSERT_TRUE(r.offline_bound.ok) << r.offline_bound.error;
    EXPECT_EQ(r.offline_bound.jobs, 3u);
    EXPECT_LE(r.offline_bound.energy_usd, r.ledger.deferrable.energy_usd + 1e-12) << policy;
    // Optimum: two half-hours in hour 4 (10) and one in hour 2 (20):
    // 0.4 kW × 0.5 h × (10 + 10 + 20) / 1000.
    EXPECT_NEAR(r.offline_bound.energy_usd, 0.4 * 0.5 * 40 / 1000, 1e-9) << policy;
    // Reserved rental does not move with time: the energy objective finds the same optimum.
    ASSERT_TRUE(r.offline_energy_bound.ok) << r.offline_energy_bound.error;
    EXPECT_EQ(r.offline_energy_bound.objective, OfflineObjective::kEnergy);
    EXPECT_NEAR(r.offline_energy_bound.energy_usd, 0.4 * 0.5 * 40 / 1000, 1e-9) << policy;
    EXPECT_EQ(r.deadline_misses, 0) << policy;
  }
}

}  // namespace
}  // namespace frugal::testing
