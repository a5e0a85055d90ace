// Frugal's autoscaling rules, through the simulator with the ledger: pack-down (+packdown)
// empties a lightly used on-demand node so it is released early; soon-free (+soonfree)
// does not provision for demand a running job frees before a new node would boot; an
// elastic job (+elastic) grows onto an on-demand node only where it already runs (or back
// to its request), so growth never keeps a node from being released.

#include <gtest/gtest.h>

#include <cmath>

#include "../cost/cost_test_util.h"

namespace frugal {
namespace {

using testing::gpu_node;
using testing::kA100;
using testing::run_priced;

constexpr double kPackDelay = 300, kPackTimeout = 900;

// Flat prices, one on-demand pool of `n` 8-GPU A100 nodes ($4 per GPU-hour).
ClusterSpec on_demand(int n) {
  Region r;
  r.name = "flat";
  return testing::on_demand_a100(r, n, kPackDelay, kPackTimeout);
}

// a (6 GPUs, 1 h), b (6 GPUs) and c (2 GPUs) arrive at 0; two nodes boot until 300: a and c
// share one node, b the other. When a ends at 3,900 c is alone on a node using 2 of 8 GPUs:
// pack-down moves it next to b (60 s restart) and that node is released at 3,900 + 900
// instead of after c ends.
TEST(PackDown, EmptiesALightlyUsedNodeSoItIsReleased) {
  const ClusterSpec cl = on_demand(2);
  const std::vector<JobSpec> jobs = {testing::job("a", 0, 6, 3600), testing::job("b", 0, 6, 20000),
                                     testing::job("c", 0, 2, 20000)};
  const SimResult plain = run_priced(jobs, cl, "fifo");
  const SimResult packed = run_priced(jobs, cl, "fifo+packdown");
  EXPECT_EQ(plain.jobs[2].migrations, 0);
  ASSERT_EQ(packed.jobs[2].migrations, 1);
  EXPECT_DOUBLE_EQ(packed.jobs[2].finish, kPackDelay + 20000 + 60);
  EXPECT_DOUBLE_EQ(packed.jobs[2].rework_gpu_seconds, 2 * 60.0);
  EXPECT_DOUBLE_EQ(packed.jobs[1].finish, plain.jobs[1].finish);
  // Provisioned node-seconds: plain 2 × (20,300 + 900); packed (3,900 + 900) + (20,360 + 900).
  const double plain_s = 2 * (kPackDelay + 20000 + kPackTimeout);
  const double packed_s =
      (kPackDelay + 3600 + kPackTimeout) + (kPackDelay + 20000 + 60 + kPackTimeout);
  EXPECT_NEAR(plain.ledger.total.compute.rental_usd, 8 * 4 * plain_s / 3600, 1e-6);
  EXPECT_NEAR(packed.ledger.total.compute.rental_usd, 8 * 4 * packed_s / 3600, 1e-6);
}

// A move that costs more than it saves is not made: c ends 100 s after a, so emptying its
// node saves 8 × 100 GPU-seconds but costs 2 × 60 plus extending b's node.
TEST(PackDown, SkipsMovesThatDoNotPay) {
  const ClusterSpec cl = on_demand(2);
  const std::vector<JobSpec> jobs = {testing::job("a", 0, 6, 3600), testing::job("b", 0, 6, 3650),
                                     testing::job("c", 0, 2, 3700)};
  const SimResult r = run_priced(jobs, cl, "fifo+packdown");
  for (const JobOutcome& o : r.jobs) EXPECT_EQ(o.migrations, 0);
}

// One reserved 8-GPU A100 node (pool 0, paid whether used or not) before `n` on-demand ones.
ClusterSpec reserved_and_on_demand(int n) {
  ClusterSpec c = on_demand(n);
  Pool res;
  res.name = "res";
  res.capacity = Capacity::kReserved;
  c.pools.push_back(res);
  NodeSpec r = gpu_node("res0", kA100, 8, 0, 1);
  c.nodes.insert(c.nodes.begin(), r);
  return c;
}

// r fills the reserved node until 3,600; a (8 GPUs) boots an on-demand node and runs there
// from 300. When r ends, a's node is full, but the reserved node is paid anyway: a moves
// there (60 s restart) and its on-demand node is released 900 s later instead of after
// a ends. Worth it: 8 × 16,700 GPU-seconds saved against 8 × (60 + 300) (the restart, and
// the boot a later arrival may now wait for).
TEST(PackDown, MovesAFullNodesJobOntoAnIdleReservedNode) {
  const ClusterSpec cl = reserved_and_on_demand(1);
  const std::vector<JobSpec> jobs = {testing::job("r", 0, 8, 3600), testing::job("a", 0, 8, 20000)};
  const SimResult plain = run_priced(jobs, cl, "fifo");
  const SimResult packed = run_priced(jobs, cl, "fifo+packdown");
  EXPECT_EQ(plain.jobs[1].migrations, 0);
  ASSERT_EQ(packed.jobs[1].migrations, 1);
  EXPECT_DOUBLE_EQ(packed.jobs[1].finish, kPackDelay + 20000 + 60);
  // On-demand node-seconds: plain 300 + 20,000 + 900, packed 300 + 3,300 + 900 ($4 per
  // GPU-hour); the reserved node is paid in both, 60 s longer in packed.
  EXPECT_LT(packed.ledger.total.compute.rental_usd,
            plain.ledger.total.compute.rental_usd - 8 * 4 * 16000 / 3600.0);
}

JobSpec elastic(std::string id, int gpus, int min, int max, Seconds duration) {
  JobSpec j = testing::job(std::move(id), 0, gpus, duration);
  j.min_gpus = min;
  j.max_gpus = max;
  return j;
}

// An elastic job at or above its request is a pack-down donor like a rigid one, moved at its
// size. r1 (2 GPUs) and r2 (6, until 3,600) fill the reserved node; a (4 GPUs, 2..6) boots
// the on-demand node, starts at 300 and grows at once to 6 (30 s restart). When r2 ends, a
// (at its maximum) moves onto the 6 free reserved GPUs (60 s restart) and the on-demand node
// is released 900 s later instead of after a ends. Before, elastic jobs were never
// pack-down donors.
TEST(PackDown, MovesAnElasticJobAtItsRequestOntoAnIdleReservedNode) {
  const ClusterSpec cl = reserved_and_on_demand(1);
  const std::vector<JobSpec> jobs = {testing::job("r1", 0, 2, 30000),
                                     testing::job("r2", 0, 6, 3600), elastic("a", 4, 2, 6, 20000)};
  const SimResult plain = run_priced(jobs, cl, "fifo+elastic");
  const SimResult packed = run_priced(jobs, cl, "fifo+elastic+packdown");
  const double end = kPackDelay + 30 + 20000 * std::pow(4.0 / 6.0, 0.8);
  EXPECT_NEAR(plain.jobs[2].finish, end, 1e-6);
  EXPECT_EQ(plain.jobs[2].migrations, 0);
  ASSERT_EQ(packed.jobs[2].migrations, 1);
  EXPECT_EQ(packed.jobs[2].resizes, 1);
  EXPECT_NEAR(packed.jobs[2].finish, end + 60, 1e-6);
  // On-demand node-seconds: plain until a's end + 900, packed until 3,600 + 900 ($4 per
  // GPU-hour); the reserved node is paid until r1 ends in both.
  EXPECT_NEAR(plain.ledger.total.compute.rental_usd - packed.ledger.total.compute.rental_usd,
              8 * 4 * (end - 3600) / 3600, 1e-6);
}

// An idle reserved node is a spare an arrival can start on at once; filling it may make the
// next job wait a boot. c (2 GPUs) ends 50 s after r: emptying c's on-demand node saves
// 8 × 50 GPU-seconds, less than 2 × (60 s restart + 300 s boot), so c stays.
TEST(PackDown, KeepsTheReservedSpareWhenTheMoveSavesLessThanABoot) {
  const ClusterSpec cl = reserved_and_on_demand(1);
  const std::vector<JobSpec> jobs = {testing::job("r", 0, 8, 3600), testing::job("c", 0, 2, 3350)};
  const SimResult r = run_priced(jobs, cl, "fifo+packdown");
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish, kPackDelay + 3350);
  EXPECT_EQ(r.jobs[1].migrations, 0);
}

// a holds the only booted node until 1,300; b arrives at 1,200. A new node would be usable
// at 1,500, a's GPUs free at 1,300: soon-free provisions nothing, and b starts at 1,300
// either way.
TEST(SoonFree, NoNodeForDemandARunningJobFreesFirst) {
  const ClusterSpec cl = on_demand(2);
  const std::vector<JobSpec> jobs = {testing::job("a", 0, 8, 1000),
                                     testing::job("b", 1200, 8, 1000)};
  const SimResult plain = run_priced(jobs, cl, "fifo");
  const SimResult soon = run_priced(jobs, cl, "fifo+soonfree");
  EXPECT_EQ(plain.nodes_provisioned, 2);
  EXPECT_EQ(soon.nodes_provisioned, 1);
  EXPECT_DOUBLE_EQ(plain.jobs[1].first_start, kPackDelay + 1000);
  EXPECT_DOUBLE_EQ(soon.jobs[1].first_start, kPackDelay + 1000);
  EXPECT_LT(soon.ledger.total.total_usd(), plain.ledger.total.total_usd());
}

// When the running job ends later than a new node would boot, soon-free provisions.
TEST(SoonFree, ProvisionsWhenWaitingIsSlower) {
  const ClusterSpec cl = on_demand(2);
  const std::vector<JobSpec> jobs = {testing::job("a", 0, 8, 5000),
                                     testing::job("b", 1200, 8, 1000)};
  const SimResult soon = run_priced(jobs, cl, "fifo+soonfree");
  EXPECT_EQ(soon.nodes_provisioned, 2);
  EXPECT_DOUBLE_EQ(soon.jobs[1].first_start, 1200 + kPackDelay);
}

// A running job past its runtime estimate frees its GPUs at an unknown time: soon-free stops
// counting on it. a (8 GPUs, 5,000 s) was estimated at 1,000 s, so from 300 + 1,000 it is
// overrunning. b arrives at 1,200 expecting a's GPUs at 1,300 (before a node booted at
// 1,500): no node yet; at 1,300 (the engine wakes at the end it counted on) a is still
// running, so a node is provisioned and b starts at 1,600 — not when a really ends (5,300).
TEST(SoonFree, StopsCountingOnAJobPastItsEstimate) {
  const ClusterSpec cl = on_demand(2);
  std::vector<JobSpec> jobs = {testing::job("a", 0, 8, 5000), testing::job("b", 1200, 8, 1000)};
  jobs[0].estimate = 1000;
  const SimResult soon = run_priced(jobs, cl, "fifo+soonfree");
  EXPECT_EQ(soon.nodes_provisioned, 2);
  EXPECT_DOUBLE_EQ(soon.jobs[1].first_start, 1300 + kPackDelay);
  // Arriving after the overrun began, b gets a node at once.
  jobs[1].submit = 2000;
  const SimResult late = run_priced(jobs, cl, "fifo+soonfree");
  EXPECT_DOUBLE_EQ(late.jobs[1].first_start, 2000 + kPackDelay);
}

// Q (8 GPUs, 500 s), R (6, 1000 s) and E (2, max 8, 3000 s) arrive at 0; two nodes boot
// until 300: Q on od0, R and E on od1. Q ends at 800: E does not move onto the idle od0
// (which would keep it up), so od0 is released at 800 + 900. When R ends at 1300, E grows
// in place to all of od1 (kept 1000 s at speed 1; 30 s restart) and runs the rest at 4^0.8.
TEST(ElasticOnDemand, GrowsOnlyOnTheNodesItHolds) {
  const std::vector<JobSpec> jobs = {testing::job("Q", 0, 8, 500), testing::job("R", 0, 6, 1000),
                                     elastic("E", 2, 1, 8, 3000)};
  const SimResult r = run_priced(jobs, on_demand(2), "fifo+elastic");
  const double end = kPackDelay + 1000 + 30 + 2000 / std::pow(4.0, 0.8);
  EXPECT_NEAR(r.jobs[2].finish, end, 1e-6);
  EXPECT_EQ(r.jobs[2].resizes, 1);
  // od0: requested at 0, released at 800 + 900; od1: until E's end + 900 ($4 per GPU-hour).
  const double node_s = (kPackDelay + 500 + kPackTimeout) + (end + kPackTimeout);
  EXPECT_NEAR(r.ledger.total.compute.rental_usd, 8 * 4 * node_s / 3600, 1e-6);
}

// E (4 GPUs, elastic 2..8) starts on od0 at 300 and grows to its 8 GPUs; J (4 GPUs) arrives
// at 1,000 and does not fit. By default E shrinks back to 4 and J starts at once; with
// autoscale_first J waits for the node the autoscaler adds (od1, up at 1,300) and E keeps
// its 8 GPUs.
TEST(ElasticOnDemand, AutoscaleFirstWaitsForANodeInsteadOfShrinking) {
  const std::vector<JobSpec> jobs = {elastic("E", 4, 2, 8, 20000),
                                     testing::job("J", 1000, 4, 1000)};
  const SimResult shrink = run_priced(jobs, on_demand(2), "frugal");
  const SimResult first = run_priced(jobs, on_demand(2), "frugal:autoscale_first=1");
  EXPECT_DOUBLE_EQ(shrink.jobs[1].first_start, 1000);
  EXPECT_EQ(shrink.jobs[0].resizes, 3);  // grown, shrunk for J, grown again when J ends
  EXPECT_DOUBLE_EQ(first.jobs[1].first_start, 1000 + kPackDelay);
  EXPECT_EQ(first.jobs[0].resizes, 1);  // grown only
  EXPECT_LT(first.jobs[0].finish, shrink.jobs[0].finish);
}

// Q (8 GPUs, 100 s), R (6, 5000 s) and E (4, min 2, max 8, 1000 s) arrive at 0; the pool has
// two nodes: Q on od0, R on od1, E starts below its request on od1's 2 free GPUs. When Q
// ends at 400, E moves to od0 but only back to its request of 4 (kept 100 s at 0.5^0.8;
// 30 s restart): more would be growth onto an on-demand node it did not hold.
TEST(ElasticOnDemand, StartedBelowItsRequestItMovesBackToItsRequestOnly) {
  const std::vector<JobSpec> jobs = {testing::job("Q", 0, 8, 100), testing::job("R", 0, 6, 5000),
                                     elastic("E", 4, 2, 8, 1000)};
  const SimResult r = run_priced(jobs, on_demand(2), "fifo+elastic");
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, kPackDelay);
  EXPECT_EQ(r.jobs[2].resizes, 1);
  EXPECT_NEAR(r.jobs[2].finish, kPackDelay + 130 + (1000 - 100 * std::pow(0.5, 0.8)), 1e-6);
}

}  // namespace
}  // namespace frugal
