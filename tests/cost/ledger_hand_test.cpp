// The ledger on hand-computed cases, end to end through simulate() and directly.
// Fixtures (cost_test_util.h): A100 idle 100 W, peak 400 W, $4 on-demand / $2 reserved per
// GPU-hour; V100 $0.5 reserved at half the A100's speed; region prices 100, −20, 50, 10
// USD/MWh and carbon 200, 100, 300, 400 g/kWh for hours 0..3 (then wrapping), PUE 1.5.
// Storage: default tiers hot $0.10, warm $0.02, cold $0.004 per GB and 30-day month
// (2,592,000 s).

#include "cost/ledger.h"

#include <gtest/gtest.h>

#include "cluster/cluster_state.h"
#include "cost_test_util.h"

namespace frugal {
namespace {

using testing::gpu_node;
using testing::hand_cluster;
using testing::kA100;
using testing::kHour;
using testing::kV100;
using testing::priced_gpus;
using testing::run_priced;

constexpr double kEps = 1e-9;
constexpr double kMonth = 30 * 86400.0;

JobSpec priced_job(std::string id, Seconds submit, int gpus, Seconds duration, double util = 1.0,
                   std::string team = "t") {
  JobSpec j = testing::job(std::move(id), submit, gpus, duration);
  j.utilization = util;
  j.team = std::move(team);
  return j;
}

// The contract: every dollar lands once.
void expect_balanced(const LedgerReport& l) {
  double teams = 0, classes = 0, regions = 0;
  for (const auto& [k, a] : l.by_team) teams += a.total_usd();
  for (const auto& [k, a] : l.by_class) classes += a.total_usd();
  for (const auto& [k, a] : l.by_region) regions += a.total_usd();
  EXPECT_NEAR(l.total.total_usd(), teams + l.unattributed.total_usd(), 1e-9);
  EXPECT_NEAR(classes, teams, 1e-9);
  EXPECT_NEAR(regions, l.total.total_usd(), 1e-9);
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd + l.unattributed.waste.stranded_usd,
              l.unattributed.total_usd(), 1e-9);
  EXPECT_LE(l.unattributed.waste.booting_usd, l.unattributed.waste.idle_unallocated_usd + 1e-9);
}

// --- End to end -------------------------------------------------------------------------

// One job holding a whole reserved 2-GPU node (200 W host overhead) at utilization 0.6 for
// hours 0 and 1: per GPU 100 + 300 × 0.6 + 100 = 380 W; × 2 GPUs × PUE 1.5 = 1.14 kW.
TEST(LedgerHand, OneJobOneNode) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)});
  const SimResult r = run_priced({priced_job("j", 0, 2, 2 * kHour, 0.6)}, c, "fifo");
  ASSERT_EQ(r.jobs[0].finish, 2 * kHour);
  const LedgerReport& l = r.ledger;
  const CostAccount& t = l.by_team.at("t");
  EXPECT_NEAR(t.compute.rental_usd, 8.0, kEps);     // 2 GPUs × $2 × 2 h
  EXPECT_NEAR(t.compute.energy_kwh, 2.28, kEps);    // 1.14 kW × 2 h
  EXPECT_NEAR(t.compute.energy_usd, 0.0912, kEps);  // 0.00114 MW × (100 − 20)
  EXPECT_NEAR(t.compute.co2_kg, 0.342, kEps);       // 1.14 kW × (200 + 100) g/kWh
  EXPECT_NEAR(t.gpu_hours, 4.0, kEps);
  // Idle-allocated: 40 % of the rental = $3.2
  EXPECT_NEAR(t.waste.idle_allocated_usd, 3.2, kEps);
  EXPECT_NEAR(t.waste.total(), 3.2, kEps);
  EXPECT_EQ(t.storage_usd, 0);
  // The job held every GPU all the time: nothing unattributed.
  EXPECT_NEAR(l.unattributed.total_usd(), 0, kEps);
  EXPECT_NEAR(l.total.total_usd(), 8.0912, kEps);
  EXPECT_NEAR(l.by_class.at("pretrain").total_usd(), 8.0912, kEps);
  EXPECT_NEAR(l.by_region.at("r").total_usd(), 8.0912, kEps);
  EXPECT_FALSE(l.series_wrapped);
  expect_balanced(l);
}

TEST(LedgerHand, NegativePriceIsReportedNotClamped) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)});
  // Runs in hour 1 only (−20 USD/MWh): 0.00114 MW × −20 = −$0.0228
  const SimResult r = run_priced({priced_job("j", kHour, 2, kHour, 0.6)}, c, "fifo");
  const LedgerReport& l = r.ledger;
  EXPECT_NEAR(l.total.compute.energy_usd, -0.0228, kEps);
  EXPECT_NEAR(l.by_team.at("t").compute.energy_usd, -0.0228, kEps);
  EXPECT_NEAR(l.total.compute.energy_kwh, 1.14, kEps);
  EXPECT_NEAR(l.total.compute.co2_kg, 0.114, kEps);
  EXPECT_NEAR(l.total.total_usd(), 4.0 - 0.0228, kEps);
  expect_balanced(l);
}

// A 1-GPU job at full load on the 2-GPU node for hours 0..1; the other GPU sits idle.
TEST(LedgerHand, IdleCapacityIsUnattributed) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)});
  const SimResult r = run_priced({priced_job("j", 0, 1, 2 * kHour)}, c, "fifo");
  const LedgerReport& l = r.ledger;
  // Job: (400 + 100) W × 1.5 = 0.75 kW; $2 × 2 h = $4 rental; 0.00075 × 80 = $0.06
  const CostAccount& t = l.by_team.at("t");
  EXPECT_NEAR(t.compute.rental_usd, 4.0, kEps);
  EXPECT_NEAR(t.compute.energy_usd, 0.06, kEps);
  EXPECT_NEAR(t.waste.idle_allocated_usd, 0, kEps);  // utilization 1
  // Idle GPU: (100 + 100) W × 1.5 = 0.3 kW → 0.6 kWh, 0.0003 × 80 = $0.024; $4 rental
  EXPECT_NEAR(l.unattributed.compute.rental_usd, 4.0, kEps);
  EXPECT_NEAR(l.unattributed.compute.energy_kwh, 0.6, kEps);
  EXPECT_NEAR(l.unattributed.compute.energy_usd, 0.024, kEps);
  EXPECT_NEAR(l.unattributed.compute.co2_kg, 0.3 * 300 / 1000, kEps);
  EXPECT_NEAR(l.unattributed.gpu_hours, 2.0, kEps);
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd, 4.024, kEps);
  EXPECT_NEAR(l.unattributed.waste.stranded_usd, 0, kEps);
  EXPECT_NEAR(l.total.total_usd(), 8.084, kEps);
  expect_balanced(l);
}

// A job queued for an hour behind another, its 100 GB dataset + 20 GB checkpoints on the
// hot tier from submission (0) to finish (3 h).
TEST(LedgerHand, StorageAndHotTierWhileQueued) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2)});
  JobSpec blocker = priced_job("b", 0, 2, kHour, 1.0, "other");
  JobSpec data = priced_job("d", 0, 2, 2 * kHour);
  data.dataset = "corpus";
  data.dataset_gb = 100;
  data.checkpoint_gb = 20;
  JobSpec warm = priced_job("w", 0, 2, 3 * kHour, 1.0, "warm");
  warm.dataset_gb = 100;
  warm.checkpoint_gb = 20;
  warm.storage_tier = "warm";
  const SimResult r = run_priced({blocker, data, warm}, c, "fifo");
  ASSERT_EQ(r.jobs[1].first_start, kHour);
  ASSERT_EQ(r.jobs[1].finish, 3 * kHour);
  ASSERT_EQ(r.jobs[2].first_start, 3 * kHour);
  ASSERT_EQ(r.jobs[2].finish, 6 * kHour);
  const LedgerReport& l = r.ledger;
  // Hot: 120 GB × $0.10 × 3 h / 720 h = $0.05
  EXPECT_NEAR(l.by_team.at("t").storage_usd, 120 * 0.10 * 3 * kHour / kMonth, kEps);
  EXPECT_NEAR(l.by_team.at("t").storage_usd, 0.05, kEps);
  // Queued 1 h on hot instead of warm: 120 GB × ($0.10 − $0.02) × 1 h / 720 h = $0.01333…
  EXPECT_NEAR(l.by_team.at("t").waste.storage_tier_usd, 120 * 0.08 * kHour / kMonth, kEps);
  // Warm: 120 GB × $0.02 × 6 h / 720 h = $0.02; queued 3 h but not on the priciest tier
  EXPECT_NEAR(l.by_team.at("warm").storage_usd, 0.02, kEps);
  EXPECT_EQ(l.by_team.at("warm").waste.storage_tier_usd, 0);
  EXPECT_EQ(l.by_team.at("other").storage_usd, 0);
  EXPECT_NEAR(l.total.storage_usd, 0.07, kEps);
  expect_balanced(l);
}

// Two teams keep the same 100 GB hot dataset: x over [0, 10 h), y over [5 h, 15 h).
// Paid: 20 h of one copy; one copy over the union needs 15 h; 5 h is duplicate, charged
// to y (the later holder): 100 × $0.10 × 5 h / 720 h = $0.069444…
TEST(LedgerHand, DuplicateStorageAcrossTeams) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 4)});
  JobSpec x = priced_job("x", 0, 1, 10 * kHour, 1.0, "x");
  JobSpec y = priced_job("y", 5 * kHour, 1, 10 * kHour, 1.0, "y");
  JobSpec z = priced_job("z", 0, 1, 10 * kHour, 1.0, "z");
  x.dataset = y.dataset = "shared";
  z.dataset = "own";
  x.dataset_gb = y.dataset_gb = z.dataset_gb = 100;
  const SimResult r = run_priced({x, y, z}, c, "fifo");
  ASSERT_EQ(r.jobs[1].finish, 15 * kHour);
  const LedgerReport& l = r.ledger;
  const double ten_hours = 100 * 0.10 * 10 * kHour / kMonth;  // $0.138889 each
  EXPECT_NEAR(l.by_team.at("x").storage_usd, ten_hours, kEps);
  EXPECT_NEAR(l.by_team.at("y").storage_usd, ten_hours, kEps);
  EXPECT_EQ(l.by_team.at("x").waste.duplicate_storage_usd, 0);
  EXPECT_NEAR(l.by_team.at("y").waste.duplicate_storage_usd, 100 * 0.10 * 5 * kHour / kMonth, kEps);
  EXPECT_EQ(l.by_team.at("z").waste.duplicate_storage_usd, 0);
  EXPECT_NEAR(l.total.waste.duplicate_storage_usd, 0.0694444444444, 1e-9);
  expect_balanced(l);
}

TEST(LedgerHand, DisjointDatasetUsesAreNotDuplicates) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 4)});
  JobSpec x = priced_job("x", 0, 1, kHour, 1.0, "x");
  JobSpec y = priced_job("y", 2 * kHour, 1, kHour, 1.0, "y");
  x.dataset = y.dataset = "shared";
  x.dataset_gb = y.dataset_gb = 100;
  const SimResult r = run_priced({x, y}, c, "fifo");
  EXPECT_EQ(r.ledger.total.waste.duplicate_storage_usd, 0);
}

// A 1-hour deadline job started at hour 0 (100 USD/MWh) while hour 1 (−20) was allowed.
// Rental is flat (reserved), so the premium is the energy difference:
// 1.14 kW → 0.00114 MW × (100 − (−20)) × 1 h = $0.1368.
TEST(LedgerHand, PeakPremium) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)});
  JobSpec d = priced_job("d", 0, 2, kHour, 0.6, "deadline");
  d.deadline = 4 * kHour;
  JobSpec f = priced_job("f", kHour, 2, kHour, 0.6, "deferrable");
  f.deferrable = true;  // no deadline: 24 h allowed; started at −20, nothing cheaper
  JobSpec g = priced_job("g", 2 * kHour, 2, kHour, 0.6, "fixed");  // neither: no premium
  JobSpec e = priced_job("e", 4 * kHour, 2, kHour, 0.6, "deferrable2");
  e.deferrable = true;  // started in hour 4 = hour 0 (100); hour 5 (−20) within 24 h
  const SimResult r = run_priced({d, f, g, e}, c, "fifo");
  ASSERT_EQ(r.jobs[0].first_start, 0);
  ASSERT_EQ(r.jobs[3].first_start, 4 * kHour);
  const LedgerReport& l = r.ledger;
  EXPECT_NEAR(l.by_team.at("deadline").waste.peak_premium_usd, 0.1368, kEps);
  EXPECT_NEAR(l.by_team.at("deferrable").waste.peak_premium_usd, 0, kEps);
  EXPECT_EQ(l.by_team.at("fixed").waste.peak_premium_usd, 0);
  EXPECT_NEAR(l.by_team.at("deferrable2").waste.peak_premium_usd, 0.1368, kEps);
  EXPECT_NEAR(l.total.waste.peak_premium_usd, 0.2736, kEps);
  EXPECT_TRUE(l.series_wrapped);  // ran to hour 5 of a 4-hour series
  expect_balanced(l);
}

// A deadline that leaves no room (latest start = submit) has no premium.
TEST(LedgerHand, TightDeadlineHasNoPeakPremium) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2, 200)});
  JobSpec d = priced_job("d", 0, 2, kHour, 0.6);
  d.deadline = kHour;
  const SimResult r = run_priced({d}, c, "fifo");
  EXPECT_EQ(r.ledger.total.waste.peak_premium_usd, 0);
}

// An eval job preferring the A100 ($2/h reserved) when a V100 ($0.5/h at half the speed,
// i.e. $1 per A100-hour of work) is free: 1 GPU × 1 h on A100 = $2 rental; the same work
// on V100 costs 1 × 2 h × $0.5 = $1 → $1 oversized. A pretrain job is never oversized.
TEST(LedgerHand, Oversized) {
  ClusterSpec c =
      hand_cluster(Capacity::kReserved, {gpu_node("a", kA100, 1), gpu_node("v", kV100, 2)});
  JobSpec e = priced_job("e", 0, 1, kHour, 1.0, "eval");
  e.job_class = JobClass::kEval;
  e.preferred_model = kA100;
  JobSpec p = priced_job("p", 2 * kHour, 1, kHour, 1.0, "pretrain");
  p.preferred_model = kA100;
  JobSpec pinned = priced_job("q", 4 * kHour, 1, kHour, 1.0, "pinned");
  pinned.job_class = JobClass::kEval;
  pinned.allowed_models = {kA100};  // may not use the V100: nothing cheaper allowed
  const SimResult r = run_priced({e, p, pinned}, c, "fifo");
  ASSERT_EQ(r.jobs[0].last_model, kA100);
  ASSERT_EQ(r.jobs[1].last_model, kA100);
  const LedgerReport& l = r.ledger;
  EXPECT_NEAR(l.by_team.at("eval").compute.rental_usd, 2.0, kEps);
  EXPECT_NEAR(l.by_team.at("eval").waste.oversized_usd, 1.0, kEps);
  EXPECT_EQ(l.by_team.at("pretrain").waste.oversized_usd, 0);
  EXPECT_EQ(l.by_team.at("pinned").waste.oversized_usd, 0);
  expect_balanced(l);
}

// Fragmentation (firstfit): two 8-GPU nodes, no host overhead. At t = 0 a 1-hour 4-GPU job
// and a 10-hour 4-GPU job fill node 0, another 10-hour 4-GPU job takes half of node 1, and
// an 8-GPU job queues. From 1 h to 10 h each node has 4 free: 8 GPUs free in total, the
// 8-GPU job does not fit on either node → those 8 GPUs are stranded.
TEST(LedgerHand, StrandedByFragmentation) {
  const ClusterSpec c =
      hand_cluster(Capacity::kReserved, {gpu_node("n0", kA100, 8), gpu_node("n1", kA100, 8)});
  const std::vector<JobSpec> jobs = {
      priced_job("z", 0, 4, kHour), priced_job("y1", 0, 4, 10 * kHour),
      priced_job("y2", 0, 4, 10 * kHour), priced_job("q", 0, 8, kHour)};
  const SimResult r = run_priced(jobs, c, "firstfit");
  ASSERT_EQ(r.jobs[3].first_start, 10 * kHour);
  ASSERT_EQ(r.jobs[3].finish, 11 * kHour);
  const LedgerReport& l = r.ledger;
  // Idle GPU power: 100 W × 1.5 = 0.15 kW per GPU.
  // [0, 1 h): 4 GPUs free on node 1, the 8-GPU job could not fit anyway (not stranded):
  //   rental 4 × $2 = $8; energy 0.6 kW × 100 USD/MWh × 1 h = $0.06
  // [1 h, 10 h): 8 GPUs stranded: rental 8 × $2 × 9 = $144; energy 1.2 kW × Σ prices of
  //   hours 1..9 (−20 + 50 + 10 + 100 − 20 + 50 + 10 + 100 − 20 = 260) = $0.312
  // [10 h, 11 h): one node idle (8 GPUs), nothing queued: $16 + 1.2 kW × 50 = $16.06
  EXPECT_NEAR(l.unattributed.waste.stranded_usd, 144.312, 1e-9);
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd, 8.06 + 16.06, 1e-9);
  EXPECT_NEAR(l.unattributed.gpu_hours, 4 + 72 + 8, 1e-9);
  // Every GPU-hour of the 11-hour span is paid: 16 GPUs × 11 h × $2 = $352.
  EXPECT_NEAR(l.total.compute.rental_usd, 352, 1e-9);
  expect_balanced(l);
}

// --- The Ledger class directly -----------------------------------------------------------

struct Direct {
  explicit Direct(ClusterSpec s)
      : spec(std::move(s)),
        state(spec, priced_gpus()),
        ledger(state.spec(), priced_gpus(), state, kA100) {}
  Placement on(NodeId n, int gpus) const {
    Placement p;
    p.model = spec.nodes[n].model;
    for (int g = 0; g < gpus; ++g)
      p.slots.push_back(Slot{n, static_cast<int16_t>(g), kMilliPerGpu});
    return p;
  }
  ClusterSpec spec;
  ClusterState state;
  Ledger ledger;
};

// A 2-GPU job at full load, no overhead, checkpointing every 30 min, stopped after 1.5 h:
// the last 30 min are lost. Segment cost: rental 2 × $2 × 1.5 h = $6; power 2 × 400 W ×
// 1.5 = 1.2 kW → 0.0012 MW × (100 × 1 h + (−20) × 0.5 h) = $0.108; total $6.108, a third
// of it rework: $2.036. The rerun segment (1 h, all kept) adds none.
TEST(LedgerDirect, Rework) {
  Direct d(hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2)}));
  JobSpec j = priced_job("j", 0, 2, 2 * kHour);
  j.checkpoint_interval = 1800;
  const Placement p = d.on(0, 2);
  d.ledger.segment(0, j, p, 0, 1.5 * kHour, 1 * kHour);
  EXPECT_NEAR(d.ledger.job_total_usd(0), 6.108, kEps);
  d.ledger.segment(0, j, p, 1.5 * kHour, 2.5 * kHour, 1 * kHour);
  d.ledger.job_ended(0, j, 0, 2.5 * kHour, 2.5 * kHour);
  const LedgerReport l = d.ledger.report();
  EXPECT_NEAR(l.by_team.at("t").waste.rework_usd, 2.036, kEps);
  // Second segment: hours 1.5..2.5 → 0.0012 × (−20 × 0.5 + 50 × 0.5) = $0.018, + $4
  EXPECT_NEAR(l.by_team.at("t").total_usd(), 6.108 + 4.018, kEps);
  EXPECT_NEAR(l.by_team.at("t").gpu_hours, 5.0, kEps);
}

// A guest on measured idle (Ledger::guest_segment): host "h" holds one reserved A100 ($2/h)
// for 2 h at 30 % busy; guest "g" runs beside it for hour 1 with a 0.7 share, busy half of
// it (35 % of the card). Rental: the card once, $4 — the guest $1.4 (0.7 × $2), the host
// $2.6. Idle-allocated: host 70 % × $4 = $2.8 less the guest's $1.4 = $1.4; guest half of
// its $1.4 = $0.7; together $2.1 = the card's $4 × (1 − the 47.5 % it was busy on average).
TEST(LedgerDirect, AGuestIsChargedItsShareAndTheHostsIdleFallsByAsMuch) {
  Direct d(hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 1)}));
  JobSpec h = priced_job("h", 0, 1, 2 * kHour, 0.3, "host-team");
  JobSpec g = priced_job("g", 0, 1, kHour, 0.5, "guest-team");
  d.ledger.segment(0, h, d.on(0, 1), 0, 2 * kHour, 2 * kHour);
  Placement share = d.on(0, 1);
  share.slots[0].milli = 700;
  d.ledger.guest_segment(1, g, 0, h, share, kHour, 2 * kHour, kHour);
  const LedgerReport l = d.ledger.report();
  const CostAccount& host = l.by_team.at("host-team");
  const CostAccount& guest = l.by_team.at("guest-team");
  EXPECT_NEAR(host.compute.rental_usd + guest.compute.rental_usd, 4.0, kEps);
  EXPECT_NEAR(guest.compute.rental_usd, 1.4, kEps);
  EXPECT_NEAR(host.gpu_hours + guest.gpu_hours, 2.0, kEps);
  EXPECT_NEAR(guest.gpu_hours, 0.7, kEps);
  EXPECT_NEAR(host.waste.idle_allocated_usd, 1.4, kEps);
  EXPECT_NEAR(guest.waste.idle_allocated_usd, 0.7, kEps);
  EXPECT_NEAR(host.compute.energy_usd + guest.compute.energy_usd,
              l.total.compute.energy_usd - l.unattributed.compute.energy_usd, kEps);
  EXPECT_GE(host.compute.energy_usd, 0);
  expect_balanced(l);
}

// Direct oversized check with the same prices as the end-to-end one.
TEST(LedgerDirect, Oversized) {
  Direct d(hand_cluster(Capacity::kReserved, {gpu_node("a", kA100, 2), gpu_node("v", kV100, 2)}));
  JobSpec e = priced_job("e", 0, 2, kHour);
  e.job_class = JobClass::kFinetune;
  d.ledger.segment(0, e, d.on(0, 2), 0, kHour, kHour);
  d.ledger.job_ended(0, e, 0, kHour, kHour);
  // Rental on A100: 2 × $2 × 1 h = $4; on V100: 2 × 2 h × $0.5 = $2 → $2 oversized
  EXPECT_NEAR(d.ledger.report().total.waste.oversized_usd, 2.0, kEps);
}

// Two 8-GPU nodes with 4 GPUs free each and a queued 8-GPU job blocked by fragmentation:
// all 8 free GPUs are stranded. Cost of 8 idle GPUs for hour 0: rental 8 × $2 = $16;
// 8 × 100 W × 1.5 = 1.2 kW × 100 USD/MWh = $0.12.
TEST(LedgerDirect, Stranded) {
  Direct d(hand_cluster(Capacity::kReserved, {gpu_node("n0", kA100, 8), gpu_node("n1", kA100, 8)}));
  const JobSpec four = priced_job("f", 0, 4, kHour);
  ASSERT_TRUE(d.state.allocate(d.on(0, 4), four).ok());
  ASSERT_TRUE(d.state.allocate(d.on(1, 4), four).ok());
  const std::vector<int64_t> provisioned = {16};
  ASSERT_EQ(d.state.centre_count(), 1u);
  d.ledger.capacity(0, kHour, 8, provisioned);
  LedgerReport l = d.ledger.report();
  EXPECT_NEAR(l.unattributed.waste.stranded_usd, 16.12, kEps);
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd, 0, kEps);
  EXPECT_NEAR(l.unattributed.gpu_hours, 8, kEps);
  // No block: the same GPUs over hour 1 (−20 USD/MWh) are idle, not stranded: $16 − $0.024
  d.ledger.capacity(kHour, 2 * kHour, 0, provisioned);
  // A block a 4-free node could take (a 4-GPU job): nothing is stranded either.
  d.ledger.capacity(2 * kHour, 3 * kHour, 4, provisioned);
  l = d.ledger.report();
  EXPECT_NEAR(l.unattributed.waste.stranded_usd, 16.12, kEps);
  // Hour 2: $16 + 1.2 kW × 50 = $16.06
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd, 15.976 + 16.06, kEps);
  expect_balanced(l);
}

// Capacity that is provisioned but not up (booting) is charged like idle capacity
// (idle_unallocated), and the part on booting nodes is named (booting_usd, within it).
TEST(LedgerDirect, ProvisionedBeyondUpIsIdle) {
  Direct d(hand_cluster(Capacity::kOnDemand, {gpu_node("n", kA100, 8)}));
  d.state.set_up(0, false);  // still booting
  d.ledger.capacity(0, kHour, 0, {8}, {8});
  LedgerReport l = d.ledger.report();
  // 8 GPUs × $4 (hour 0 is peak) = $32; 1.2 kW × 100 USD/MWh = $0.12
  EXPECT_NEAR(l.unattributed.waste.booting_usd, 32.12, kEps);
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd, 32.12, kEps);
  // Up but idle over hour 1 (off-peak: half the rental): $16 − $0.024 (1.2 kW × −20
  // USD/MWh), idle_unallocated and not booting.
  d.state.set_up(0, true);
  d.ledger.capacity(kHour, 2 * kHour, 0, {8}, {0});
  d.ledger.capacity(2 * kHour, 3 * kHour, 0, {0}, {0});  // released: nothing more
  l = d.ledger.report();
  EXPECT_NEAR(l.unattributed.waste.booting_usd, 32.12, kEps);
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd, 32.12 + 15.976, kEps);
  EXPECT_NEAR(l.unattributed.total_usd(), 32.12 + 15.976, kEps);
  // GPU-time alike: 16 idle GPU-hours, the first 8 of them booting.
  EXPECT_NEAR(l.unattributed.gpu_hours, 16, kEps);
  EXPECT_NEAR(l.unattributed.booting_gpu_hours, 8, kEps);
  expect_balanced(l);
  // Without the booting counts (a driver that does not track boots) none is named booting.
  Direct e(hand_cluster(Capacity::kOnDemand, {gpu_node("n", kA100, 8)}));
  e.state.set_up(0, false);
  e.ledger.capacity(0, kHour, 0, {8});
  EXPECT_NEAR(e.ledger.report().unattributed.waste.idle_unallocated_usd, 32.12, kEps);
  EXPECT_NEAR(e.ledger.report().unattributed.waste.booting_usd, 0, kEps);
  EXPECT_NEAR(e.ledger.report().unattributed.booting_gpu_hours, 0, kEps);
}

}  // namespace
}  // namespace frugal
