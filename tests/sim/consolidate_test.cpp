// Consolidation (+consolidate): migrations that free whole cards for a gang blocked by
// fragmentation, on hand-built cases whose schedules are worked out by hand. Every cluster
// is A100 and durations are A100 seconds; the migration cost is the default 60 s.

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "../cost/cost_test_util.h"
#include "policy/consolidate.h"
#include "sim/summary.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::fraction;
using testing::job;
using testing::kA100;
using testing::node;
using testing::run_sim;

ClusterSpec two_by_four() {
  return cluster_of({node("n0", kA100, 4), node("n1", kA100, 4)});
}

// Builds the fragmented state at t=300 under bestfit, then a 4-GPU job W arrives:
//   t=0    A (4 GPUs, 100 s) → n0 g0-3. L (0.3 GPU, `l_duration`) → n1 g0.
//          X (0.6, 150 s) shares n1 g0. B (3 GPUs, 300 s) → n1 g1-3.
//   t=100  A ends. H0, H1 (0.6 each, 1000 s) find no room on n1 (g0 has 0.1 free) and take
//          n0 g0 and n0 g1 (0.6 + 0.6 > 1 card, so one card each).
//   t=150  X ends: n1 g0 holds only L (0.7 free).
//   t=300  B ends; W (4 GPUs, 500 s) arrives. Free whole cards: n0 2, n1 3 — 5 in total,
//          yet no node has 4: fragmentation.
std::vector<JobSpec> fragmented(Seconds l_duration, Seconds l_checkpoint = 0) {
  std::vector<JobSpec> jobs = {
      job("A", 0, 4, 100),  fraction("L", 0, 300, l_duration), fraction("X", 0, 600, 150),
      job("B", 0, 3, 300),  fraction("H0", 100, 600, 1000),    fraction("H1", 100, 600, 1000),
      job("W", 300, 4, 500)};
  jobs[1].checkpoint_interval = l_checkpoint;
  return jobs;
}
enum { kA, kL, kX, kB, kH0, kH1, kW };

void expect_consolidated(const JobOutcome& o, Seconds first_start, Seconds finish,
                         int migrations = 0) {
  EXPECT_DOUBLE_EQ(o.first_start, first_start);
  EXPECT_DOUBLE_EQ(o.finish, finish);
  EXPECT_EQ(o.migrations, migrations);
  EXPECT_EQ(o.preemptions, 0);
  EXPECT_FALSE(o.unschedulable) << o.reason;
}

TEST(Consolidate, WithoutItTheGangWaitsForTheFragmentsToEnd) {
  // bestfit: W waits until L ends at 1000 (n1 then has 4 whole cards): 1000 → 1500.
  const SimResult r = run_sim(fragmented(1000), two_by_four(), "bestfit");
  expect_consolidated(r.jobs[kL], 0, 1000);
  expect_consolidated(r.jobs[kW], 1000, 1500);
  EXPECT_EQ(r.migrations, 0);
}

TEST(Consolidate, MovesTheFractionalJobAndStartsTheGang) {
  // t=300, candidate nodes (most free cards first): n1 needs 1 card, g0, held by L alone:
  // cost 0.3 GPU × 60 s = 18 GPU-s. n0 needs 2 cards (H0, H1): 1.2 × 60 = 72 GPU-s.
  // Wait avoided: L's expected end at 1000 is the first release that lets W fit, so the
  // gain is 4 GPUs × 700 s = 2800 GPU-s > 18. L moves n1 g0 → n0 g0 (best fit: the
  // partly used card with the least room, 0.4, tie to g0); W starts on n1 at 300 → 800.
  // L had 300 s done (no checkpoints: all kept); it restarts for 60 s, then runs its last
  // 700 s: 300 → 1060. Rework: 0.3 GPU × 60 s = 18 GPU-s.
  const SimResult r = run_sim(fragmented(1000), two_by_four(), "bestfit+consolidate");
  expect_consolidated(r.jobs[kW], 300, 800);
  expect_consolidated(r.jobs[kL], 0, 1060, 1);
  EXPECT_DOUBLE_EQ(r.jobs[kL].run_time, 1060);
  EXPECT_DOUBLE_EQ(r.jobs[kL].rework_gpu_seconds, 0.3 * 60);
  EXPECT_EQ(r.jobs[kL].last_model, kA100);
  expect_consolidated(r.jobs[kH0], 100, 1100);
  expect_consolidated(r.jobs[kH1], 100, 1100);
  EXPECT_EQ(r.migrations, 1);
  EXPECT_EQ(r.preemptions, 0);
  // GPU-seconds: every job's share × its run time (L's includes the restart).
  double gpu_s = 0;
  for (const JobOutcome& o : r.jobs) gpu_s += o.gpu_seconds;
  EXPECT_DOUBLE_EQ(r.allocated_gpu_seconds, gpu_s);
  // The ledger (the priced test catalog): L's rework is the restart, priced on its new
  // card; the books balance.
  SimOptions o;
  o.reference_model = kA100;
  o.check_invariants = true;
  const SimResult priced = simulate(fragmented(1000), two_by_four(), testing::priced_gpus(),
                                    testing::profile("bestfit+consolidate"), o);
  ASSERT_EQ(priced.invariant_violation, "");
  EXPECT_EQ(priced.migrations, 1);
  const LedgerReport& l = priced.ledger;
  EXPECT_GT(l.total.waste.rework_usd, 0);
  double teams = 0;
  for (const auto& [k, a] : l.by_team) teams += a.total_usd();
  EXPECT_NEAR(l.total.total_usd(), teams + l.unattributed.total_usd(), 1e-9);
  // One centre at flat rates, every job at utilisation 1: a GPU-second costs the same for
  // every job, so rework is 18 of the jobs' GPU-seconds' worth of their compute.
  const double jobs_compute = l.total.compute.total_usd() - l.unattributed.compute.total_usd();
  EXPECT_NEAR(l.total.waste.rework_usd, jobs_compute * 18 / gpu_s, 1e-9 * jobs_compute);
  EXPECT_EQ(summarize(r).migrations, 1);
}

TEST(Consolidate, ChargesTheWorkSinceTheLastCheckpoint) {
  // As above, but L checkpoints every 200 s: at 300 its last checkpoint is at 200, so the
  // move loses 100 s plus the 60 s restart: cost 0.3 × 160 = 48 GPU-s < 2800, it moves.
  // L: 800 s left after 300 + 60 s restart → ends at 1160; rework 0.3 × 160 = 48 GPU-s.
  const SimResult r = run_sim(fragmented(1000, 200), two_by_four(), "bestfit+consolidate");
  expect_consolidated(r.jobs[kW], 300, 800);
  expect_consolidated(r.jobs[kL], 0, 1160, 1);
  EXPECT_DOUBLE_EQ(r.jobs[kL].rework_gpu_seconds, 0.3 * 160);
}

TEST(Consolidate, NothingMovesWhenARunningJobFreesTheSpaceSoon) {
  // L ends at 304: the wait avoided is 4 s, gain 4 × 4 = 16 GPU-s ≤ cost 18 GPU-s. Nothing
  // moves; W starts at 304 on n1 → 804.
  const SimResult r = run_sim(fragmented(304), two_by_four(), "bestfit+consolidate");
  expect_consolidated(r.jobs[kL], 0, 304);
  expect_consolidated(r.jobs[kW], 304, 804);
  EXPECT_EQ(r.migrations, 0);
  // L ends at 310: gain 4 × 10 = 40 GPU-s. At the default 60 s the move costs 18 and
  // happens; at a 150 s migration cost it costs 45 > 40 and does not.
  const SimResult cheap = run_sim(fragmented(310), two_by_four(), "bestfit+consolidate");
  EXPECT_EQ(cheap.migrations, 1);
  expect_consolidated(cheap.jobs[kW], 300, 800);
  SimOptions o;
  o.migration_cost_s = 150;
  const SimResult dear = run_sim(fragmented(310), two_by_four(), "bestfit+consolidate", o);
  EXPECT_EQ(dear.migrations, 0);
  expect_consolidated(dear.jobs[kW], 310, 810);
}

TEST(Consolidate, MovesASmallWholeGpuJob) {
  // Three 4-GPU nodes, bestfit. t=0: P (2 GPUs, 1000 s) → n0 g0-1; R, U (1 GPU, 1000 s) →
  // n0 g2, g3 (fullest node first); V (1 GPU, 1000 s) → n1 g0; Y (2 GPUs, 10 s) → n1 g1-2;
  // Z (2 GPUs, 2000 s) → n2 g0-1. t=10: Y ends: free cards n1 3, n2 2.
  // t=20: G4 (4 GPUs, 400 s) arrives; no node has 4 free. Plans: n1 needs 1 card, V's
  // (1 GPU < 4, movable): cost 60 GPU-s; n2 needs Z's 2 cards: 120; n0 needs 4: 240.
  // Gain: the first release that fits G4 is n0's at 1000 (P, R, U): 4 × 980 = 3920 > 60.
  // V → n2 g2 (best fit: the node with the fewest free cards that holds it); G4 on n1,
  // 20 → 420; V restarts for 60 s with 980 s left: ends at 1060.
  const std::vector<JobSpec> jobs = {
      job("P", 0, 2, 1000), job("R", 0, 1, 1000), job("U", 0, 1, 1000), job("V", 0, 1, 1000),
      job("Y", 0, 2, 10),   job("Z", 0, 2, 2000), job("G4", 20, 4, 400)};
  const SimResult m =
      run_sim(jobs, cluster_of({node("n0", kA100, 4), node("n1", kA100, 4), node("n2", kA100, 4)}),
              "bestfit+consolidate");
  EXPECT_EQ(m.migrations, 1);
  expect_consolidated(m.jobs[6], 20, 420);
  expect_consolidated(m.jobs[3], 0, 1060, 1);
  EXPECT_DOUBLE_EQ(m.jobs[3].rework_gpu_seconds, 60);
  // Without n2 (and Z) the cluster is short of capacity, not fragmented: at 20 only 3
  // cards are free. Nothing moves; G4 waits for n0 at 1000 → 1400.
  const SimResult w = run_sim({jobs[0], jobs[1], jobs[2], jobs[3], jobs[4], jobs[6]}, two_by_four(),
                              "bestfit+consolidate");
  EXPECT_EQ(w.migrations, 0);
  expect_consolidated(w.jobs[5], 1000, 1400);
}

TEST(Consolidate, ProfileOptionComposes) {
  for (const char* policy :
       {"bestfit+consolidate", "backfill+consolidate", "backfill/firstfit+consolidate",
        "las+consolidate", "frugal-place+consolidate", "fifo+consolidate"}) {
    auto p = make_profile(policy);
    ASSERT_TRUE(p.ok()) << policy;
    EXPECT_NE(p.value().consolidate, nullptr) << policy;
    EXPECT_NE(p.value().describe().find("consolidate=consolidate"), std::string::npos);
    EXPECT_EQ(p.value().name, policy);
  }
  EXPECT_EQ(make_profile("bestfit").value().consolidate, nullptr);
  EXPECT_FALSE(make_profile("bestfit+nope").ok());
  EXPECT_FALSE(make_profile("nope+consolidate").ok());
}

}  // namespace
}  // namespace frugal
