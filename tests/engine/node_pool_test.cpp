// The autoscaler for on-demand pools (NodePool, driven through the Engine and the
// simulator), what the ledger charges for on-demand capacity, and live capacity: the
// backend's view of the nodes' power (Engine::node_power).

#include "engine/node_pool.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "../cost/cost_test_util.h"
#include "cost/run_accounting.h"
#include "engine/engine.h"
#include "io/report.h"

namespace frugal {
namespace {

using testing::gpu_node;
using testing::kA100;
using testing::kHour;
using testing::priced_gpus;
using testing::run_priced;

constexpr double kDelay = 300, kTimeout = 900;

// Flat prices (80 USD/MWh, 400 g/kWh), PUE 1.5, no time-of-use discount. Pool 0 owned,
// pool 1 on-demand (delay 300 s, idle timeout 900 s). `owned` 8-GPU A100 nodes in pool 0
// first, then `on_demand` 8-GPU A100 nodes in pool 1.
ClusterSpec mixed(int owned, int on_demand) {
  ClusterSpec c;
  Region r;
  r.name = "flat";
  r.pue = 1.5;
  c.regions.push_back(r);
  Pool own;
  own.name = "own";
  own.capacity = Capacity::kOwned;
  Pool od;
  od.name = "od";
  od.capacity = Capacity::kOnDemand;
  od.provisioning_delay_s = kDelay;
  od.idle_timeout_s = kTimeout;
  c.pools = {own, od};
  for (int i = 0; i < owned; ++i) c.nodes.push_back(gpu_node("own" + std::to_string(i), kA100, 8));
  for (int i = 0; i < on_demand; ++i)
    c.nodes.push_back(gpu_node("od" + std::to_string(i), kA100, 8, 0, 1));
  return c;
}

std::vector<JobSpec> jobs_of(std::vector<JobSpec> v) {
  return v;
}

struct Drive {
  Drive(const ClusterSpec& c, std::vector<JobSpec> js, bool static_capacity = false)
      : jobs(std::move(js)),
        engine(c, priced_gpus(), testing::profile("fifo"),
               EngineOptions{kA100, static_capacity, 64}) {}
  std::vector<Decision> cycle(Seconds t) {
    std::vector<Decision> out = engine.schedule(t);
    EXPECT_EQ(engine.check_invariants(), "") << "t=" << t;
    return out;
  }
  std::vector<JobSpec> jobs;
  Engine engine;
};

size_t count(const std::vector<Decision>& ds, Decision::Kind k) {
  return static_cast<size_t>(
      std::count_if(ds.begin(), ds.end(), [k](const Decision& d) { return d.kind == k; }));
}

const Decision* find(const std::vector<Decision>& ds, Decision::Kind k) {
  for (const Decision& d : ds)
    if (d.kind == k) return &d;
  return nullptr;
}

// own0 busy with an 8-GPU job, a second 8-GPU job queued: provision exactly one on-demand
// node (the lowest-numbered), usable only once it has booted.
TEST(NodePool, ProvisionsWhenQueuedWorkDoesNotFit) {
  const ClusterSpec c = mixed(1, 2);
  Drive d(c, {testing::job("a", 0, 8, 3600), testing::job("b", 0, 8, 3600)});
  EXPECT_TRUE(d.engine.nodes().autoscaled());
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kUnprovisioned);
  const uint32_t od = d.engine.cluster().centre_of(1);
  EXPECT_EQ(d.engine.nodes().provisioned_gpus()[od], 0);
  d.engine.submit(0, &d.jobs[0], 0);
  d.engine.submit(1, &d.jobs[1], 0);
  auto ds = d.cycle(0);
  EXPECT_EQ(count(ds, Decision::Kind::kStart), 1u);
  ASSERT_EQ(count(ds, Decision::Kind::kProvision), 1u);
  EXPECT_EQ(find(ds, Decision::Kind::kProvision)->node, 1u);
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kProvisioning);
  EXPECT_EQ(d.engine.nodes().life(2), NodeLife::kUnprovisioned);
  EXPECT_EQ(d.engine.nodes().provisioned_gpus()[od], 8);  // charged while booting
  EXPECT_EQ(d.engine.nodes().provisioning_gpus(kA100), 8);
  // Still booting: the job waits and no second node is asked for.
  ds = d.cycle(100);
  EXPECT_EQ(count(ds, Decision::Kind::kStart), 0u);
  EXPECT_EQ(count(ds, Decision::Kind::kProvision), 0u);
  d.engine.node_provisioned(1, kDelay);
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kUp);
  ds = d.cycle(kDelay);
  const Decision* s = find(ds, Decision::Kind::kStart);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->job, 1u);
  EXPECT_EQ(s->placement.nodes(), std::vector<NodeId>{1});
  EXPECT_EQ(d.engine.nodes().provisioning_gpus(kA100), 0);
  // Running jobs on it: no idle timer, never released.
  EXPECT_EQ(d.engine.next_wakeup(), kNever);
  ds = d.cycle(3000);
  EXPECT_EQ(count(ds, Decision::Kind::kRelease), 0u);
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kUp);
  // Finished at 3900: released after the idle timeout (900 s), not before.
  d.engine.finish(1, kDelay + 3600);
  ds = d.cycle(kDelay + 3600);
  EXPECT_EQ(count(ds, Decision::Kind::kRelease), 0u);
  EXPECT_EQ(d.engine.next_wakeup(), kDelay + 3600 + kTimeout);
  ds = d.cycle(kDelay + 3600 + kTimeout - 1);
  EXPECT_EQ(count(ds, Decision::Kind::kRelease), 0u);
  ds = d.cycle(kDelay + 3600 + kTimeout);
  ASSERT_EQ(count(ds, Decision::Kind::kRelease), 1u);
  EXPECT_EQ(find(ds, Decision::Kind::kRelease)->node, 1u);
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kUnprovisioned);
  EXPECT_EQ(d.engine.nodes().provisioned_gpus()[od], 0);
  EXPECT_EQ(d.engine.next_wakeup(), kNever);
}

TEST(NodePool, NeverProvisionsWhenOwnedCapacitySuffices) {
  const ClusterSpec c = mixed(2, 2);
  Drive d(c, {testing::job("a", 0, 8, 3600), testing::job("b", 0, 4, 3600),
              testing::job("c", 0, 2, 3600), testing::job("d", 0, 2, 3600)});
  for (JobIdx j = 0; j < d.jobs.size(); ++j) d.engine.submit(j, &d.jobs[j], 0);
  const auto ds = d.cycle(0);
  EXPECT_EQ(count(ds, Decision::Kind::kStart), 4u);
  EXPECT_EQ(count(ds, Decision::Kind::kProvision), 0u);
  EXPECT_EQ(d.engine.nodes().life(2), NodeLife::kUnprovisioned);
  EXPECT_EQ(d.engine.nodes().life(3), NodeLife::kUnprovisioned);
}

// Queued work that owned capacity will take before the booted node is up: the node was
// provisioned for nothing and is released one idle timeout after it came up.
TEST(NodePool, ReleasesAnUnusedProvisionedNode) {
  const ClusterSpec c = mixed(1, 1);
  Drive d(c, {testing::job("a", 0, 8, 100), testing::job("b", 0, 8, 3600)});
  d.engine.submit(0, &d.jobs[0], 0);
  d.engine.submit(1, &d.jobs[1], 0);
  auto ds = d.cycle(0);
  ASSERT_EQ(count(ds, Decision::Kind::kProvision), 1u);
  d.engine.finish(0, 100);
  ds = d.cycle(100);
  ASSERT_NE(find(ds, Decision::Kind::kStart), nullptr);
  EXPECT_EQ(find(ds, Decision::Kind::kStart)->placement.nodes(), std::vector<NodeId>{0});
  d.engine.node_provisioned(1, kDelay);
  d.cycle(kDelay);
  EXPECT_EQ(d.engine.next_wakeup(), kDelay + kTimeout);
  ds = d.cycle(kDelay + kTimeout);
  ASSERT_EQ(count(ds, Decision::Kind::kRelease), 1u);
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kUnprovisioned);
}

TEST(NodePool, StaticCapacityKeepsOnDemandUp) {
  const ClusterSpec c = mixed(1, 2);
  Drive d(
      c,
      {testing::job("a", 0, 8, 3600), testing::job("b", 0, 8, 3600), testing::job("c", 0, 8, 3600)},
      /*static_capacity=*/true);
  EXPECT_FALSE(d.engine.nodes().autoscaled());
  for (NodeId n = 0; n < 3; ++n) EXPECT_EQ(d.engine.nodes().life(n), NodeLife::kUp);
  EXPECT_EQ(d.engine.nodes().provisioned_gpus()[d.engine.cluster().centre_of(1)], 16);
  for (JobIdx j = 0; j < 3; ++j) d.engine.submit(j, &d.jobs[j], 0);
  auto ds = d.cycle(0);
  EXPECT_EQ(count(ds, Decision::Kind::kStart), 3u);
  EXPECT_EQ(count(ds, Decision::Kind::kProvision), 0u);
  d.engine.finish(1, 3600);
  ds = d.cycle(1e6);
  EXPECT_EQ(count(ds, Decision::Kind::kRelease), 0u);
  EXPECT_EQ(d.engine.next_wakeup(), kNever);
}

TEST(NodePool, LifecycleTransitionsRefuseWrongStates) {
  const ClusterSpec c = mixed(1, 1);
  ClusterState state(c, priced_gpus());
  NodePool pool(c, state, false);
  EXPECT_FALSE(pool.provisioned(1, 0));  // not booting
  EXPECT_FALSE(pool.fail(1));            // not up
  EXPECT_FALSE(pool.repair(0, 0));       // not failed
  EXPECT_TRUE(pool.fail(0));
  EXPECT_EQ(pool.provisioned_gpus()[state.centre_of(0)], 8);  // failed nodes still paid
  EXPECT_TRUE(pool.repair(0, 0));
  EXPECT_EQ(pool.life(0), NodeLife::kUp);
}

// A booted on-demand node that fails and is repaired with nothing to run must still be
// handed back one idle timeout after the repair.
TEST(NodePool, RepairedIdleNodeIsReleased) {
  const ClusterSpec c = mixed(0, 1);
  Drive d(c, {testing::job("a", 0, 8, 3600)});
  d.engine.submit(0, &d.jobs[0], 0);
  auto ds = d.cycle(0);
  ASSERT_EQ(count(ds, Decision::Kind::kProvision), 1u);
  d.engine.node_provisioned(0, kDelay);
  ds = d.cycle(kDelay);
  ASSERT_NE(find(ds, Decision::Kind::kStart), nullptr);
  d.engine.node_down(0, 1000);  // the job is stopped and requeued
  ds = d.cycle(1000);
  EXPECT_EQ(count(ds, Decision::Kind::kPreempt), 1u);
  EXPECT_EQ(d.engine.nodes().life(0), NodeLife::kFailed);
  d.engine.node_up(0, 2000);
  ds = d.cycle(2000);  // the job restarts on the repaired node
  ASSERT_NE(find(ds, Decision::Kind::kStart), nullptr);
  d.engine.finish(0, 5600);
  d.cycle(5600);
  EXPECT_EQ(d.engine.next_wakeup(), 5600 + kTimeout);
  // Fail again while idle, repair: nothing runs there any more.
  d.engine.node_down(0, 5700);
  d.cycle(5700);
  d.engine.node_up(0, 6000);
  d.cycle(6000);
  EXPECT_EQ(d.engine.nodes().life(0), NodeLife::kUp);
  EXPECT_EQ(d.engine.next_wakeup(), 6000 + kTimeout);
  ds = d.cycle(6000 + kTimeout);
  EXPECT_EQ(count(ds, Decision::Kind::kRelease), 1u);
  EXPECT_EQ(d.engine.nodes().life(0), NodeLife::kUnprovisioned);
}

// Prompt release: an idle on-demand node goes back at the next plan, not after the timeout —
// unless deferred work falls due within the timeout, when the usual timeout applies.
TEST(NodePool, PromptReleaseHandsIdleNodesBackAtOnce) {
  const ClusterSpec c = mixed(0, 2);
  ClusterState state(c, priced_gpus());
  NodePool pool(c, state, false);
  pool.set_prompt_release(true);
  std::vector<Decision> out;
  EXPECT_EQ(pool.unprovisioned_gpus(kA100), 16);
  pool.plan(0, {8.0 * 2}, out);  // boots both (kA100 is model 0 in the priced catalog)
  ASSERT_EQ(count(out, Decision::Kind::kProvision), 2u);
  EXPECT_EQ(pool.unprovisioned_gpus(kA100), 0);
  ASSERT_TRUE(pool.provisioned(0, kDelay));
  ASSERT_TRUE(pool.provisioned(1, kDelay));
  EXPECT_EQ(pool.next_wakeup(), kDelay);  // idle at once, not kDelay + kTimeout
  out.clear();
  // Deferred work due 100 s later: both nodes wait out the usual timeout.
  pool.plan(kDelay, {}, out, {}, kDelay + 100);
  EXPECT_EQ(count(out, Decision::Kind::kRelease), 0u);
  EXPECT_EQ(pool.next_wakeup(), kDelay + kTimeout);
  // Due after the timeout would have run out: no reason to keep them.
  pool.plan(kDelay + kTimeout, {}, out, {}, kDelay + kTimeout + 1);
  EXPECT_EQ(count(out, Decision::Kind::kRelease), 2u);
  EXPECT_EQ(pool.life(0), NodeLife::kUnprovisioned);
  EXPECT_EQ(pool.unprovisioned_gpus(kA100), 16);
  EXPECT_EQ(pool.next_wakeup(), kNever);
}

TEST(NodePool, PromptReleaseKeepsANodeQueuedWorkWants) {
  const ClusterSpec c = mixed(0, 1);
  ClusterState state(c, priced_gpus());
  NodePool pool(c, state, false);
  pool.set_prompt_release(true);
  std::vector<Decision> out;
  pool.plan(0, {8.0}, out);
  ASSERT_TRUE(pool.provisioned(0, kDelay));
  out.clear();
  pool.plan(kDelay, {8.0}, out);  // queued work of its model: kept (another timeout)
  EXPECT_EQ(count(out, Decision::Kind::kRelease), 0u);
  EXPECT_EQ(pool.life(0), NodeLife::kUp);
}

// --- Through the simulator, with the ledger -------------------------------------------

// Idle power of 8 A100s at PUE 1.5: 8 × 100 W × 1.5 = 1.2 kW; at full load 4.8 kW.
// Flat 80 USD/MWh = $0.08/kWh.

// One 8-GPU job on an on-demand-only cluster: the node boots for 300 s (charged, idle),
// runs the job 3600 s, idles 900 s and is released. Rental: 8 × $4 × 4800 s = $42.666…
TEST(NodePoolSim, OnDemandOnlyOneJobCost) {
  const ClusterSpec c = mixed(0, 1);
  const SimResult r = run_priced({testing::job("a", 0, 8, 3600)}, c, "fifo");
  ASSERT_EQ(r.jobs[0].first_start, kDelay);
  ASSERT_EQ(r.jobs[0].finish, kDelay + 3600);
  EXPECT_EQ(r.nodes_provisioned, 1);
  EXPECT_EQ(r.nodes_released, 1);
  const LedgerReport& l = r.ledger;
  EXPECT_NEAR(l.total.compute.rental_usd, (kDelay + 3600 + kTimeout) / 3600 * 4 * 8, 1e-9);
  // Job: 8 × $4 × 1 h = $32 + 4.8 kWh × $0.08 = $0.384
  EXPECT_NEAR(l.by_team.at("default").total_usd(), 32.384, 1e-9);
  // Unattributed, all idle (1200 s): 8 × $4 × 1200 s = $10.666…; 1.2 kW × 1/3 h × $0.08.
  // Of it the 300 s boot is booting ($2.666… + $0.008), the rest the 900 s timeout.
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd, 32.0 / 3 + 0.032, 1e-9);
  EXPECT_NEAR(l.unattributed.waste.booting_usd, 32.0 / 12 + 0.008, 1e-9);
  EXPECT_NEAR(l.unattributed.waste.stranded_usd, 0, 1e-12);
  EXPECT_NEAR(l.total.total_usd(), 32.384 + 32.0 / 3 + 0.032, 1e-9);
  // GPU-time: 8 GPUs × 4,800 s provisioned, 8 × 3,600 s allocated, 8 × 300 s booting.
  EXPECT_NEAR(l.unattributed.gpu_hours, 8 * 1200 / 3600.0, 1e-9);
  EXPECT_NEAR(l.unattributed.booting_gpu_hours, 8 * 300 / 3600.0, 1e-9);
  const nlohmann::json j = to_json(l);
  EXPECT_NEAR(j["cost"]["booting_gpu_hours"].get<double>(), 8 * 300 / 3600.0, 1e-9);
  EXPECT_NEAR(j["provisioned_allocated_share"].get<double>(), 3600.0 / 4800, 1e-12);
  // Of the capacity that was up (the boot left out): 3,600 of 4,500 s.
  EXPECT_NEAR(j["ready_allocated_share"].get<double>(), 3600.0 / 4500, 1e-12);
}

// The unattributed cost per pool says where the idle capacity was: the owned node idle the
// whole run, the on-demand node's boot (300 s) and idle timeout (900 s). The pools add up to
// the unattributed total.
TEST(NodePoolSim, UnattributedCostByPool) {
  const ClusterSpec c = mixed(1, 1);
  const SimResult r =
      run_priced({testing::job("a", 0, 8, 3600), testing::job("b", 0, 8, 3600)}, c, "fifo");
  const LedgerReport& l = r.ledger;
  ASSERT_EQ(l.unattributed_by_pool.size(), 2u);
  const CostAccount& own = l.unattributed_by_pool.at("own");
  const CostAccount& od = l.unattributed_by_pool.at("od");
  EXPECT_NEAR(od.waste.booting_usd, 32.0 / 12 + 0.008, 1e-9);
  EXPECT_NEAR(od.waste.idle_unallocated_usd, 32.0 / 3 + 0.032, 1e-9);
  EXPECT_NEAR(own.waste.booting_usd, 0, 1e-12);
  // The owned node ran a for 3,600 s and then idled until the run ended (b's end, 900 s
  // timeout included): 8 GPUs × 1,200 s.
  EXPECT_NEAR(own.gpu_hours, 8 * 1200 / 3600.0, 1e-9);
  EXPECT_NEAR(own.total_usd() + od.total_usd(), l.unattributed.total_usd(), 1e-9);
}

// +release: the node goes back when the job ends, not 900 s later; the job runs as before.
TEST(NodePoolSim, PromptReleaseSavesTheIdleTimeout) {
  const ClusterSpec c = mixed(0, 1);
  const SimResult r = run_priced({testing::job("a", 0, 8, 3600)}, c, "fifo+release");
  ASSERT_EQ(r.jobs[0].finish, kDelay + 3600);
  EXPECT_EQ(r.nodes_released, 1);
  EXPECT_NEAR(r.ledger.total.compute.rental_usd, (kDelay + 3600) / 3600 * 4 * 8, 1e-9);
}

// With no idle timeout, what is unattributed is the boot alone, idle_unallocated and all of
// it booting: 300 s of 8 idle GPUs: 8 × $4 × 300 s = $2.666…; 1.2 kW × 300 s × $0.08/kWh =
// $0.008.
TEST(NodePoolSim, BootingNodesAreIdleUnallocatedAndNamedBooting) {
  ClusterSpec c = mixed(0, 1);
  c.pools[1].idle_timeout_s = 0;
  const SimResult r = run_priced({testing::job("a", 0, 8, 3600)}, c, "fifo");
  ASSERT_EQ(r.jobs[0].first_start, kDelay);
  const LedgerReport& l = r.ledger;
  EXPECT_NEAR(l.unattributed.waste.idle_unallocated_usd, 32.0 * 300 / 3600 + 0.008, 1e-9);
  EXPECT_NEAR(l.unattributed.waste.booting_usd, 32.0 * 300 / 3600 + 0.008, 1e-9);
  EXPECT_NEAR(l.unattributed.gpu_hours, 8 * 300 / 3600.0, 1e-9);
  EXPECT_NEAR(l.total.compute.rental_usd, 8 * 4 * 3900 / 3600.0, 1e-9);
}

TEST(NodePoolSim, StaticCapacityChargesOnDemandAllTheTime) {
  const ClusterSpec c = mixed(0, 2);
  SimOptions o;
  o.static_capacity = true;
  const SimResult r = run_priced({testing::job("a", 0, 8, 3600)}, c, "fifo", o);
  ASSERT_EQ(r.jobs[0].first_start, 0);  // no boot
  EXPECT_EQ(r.nodes_provisioned, 0);
  EXPECT_EQ(r.nodes_released, 0);
  // Both nodes for the hour: 16 × $4 = $64; the idle one is unattributed ($32 + 1.2 kW ×
  // $0.08 = $32.096)
  EXPECT_NEAR(r.ledger.total.compute.rental_usd, 64, 1e-9);
  EXPECT_NEAR(r.ledger.unattributed.total_usd(), 32.096, 1e-9);
}

// Work that fits owned capacity never touches the on-demand pool: the rental is the owned
// GPUs over the span at the reserved rate ($2), nothing more.
TEST(NodePoolSim, OwnedCapacitySufficesNoOnDemandCost) {
  const ClusterSpec c = mixed(1, 2);
  const SimResult r =
      run_priced(jobs_of({testing::job("a", 0, 4, 3600), testing::job("b", 0, 4, 1800),
                          testing::job("c", 1800, 4, 1800)}),
                 c, "fifo");
  EXPECT_EQ(r.nodes_provisioned, 0);
  EXPECT_NEAR(r.ledger.total.compute.rental_usd, 8 * 2 * 1.0, 1e-9);
}

// Live capacity (Engine::node_power): the backend's view of on-demand nodes' power.
std::vector<NodeId> nodes_of(const std::vector<Decision>& ds, Decision::Kind k) {
  std::vector<NodeId> out;
  for (const Decision& d : ds)
    if (d.kind == k) out.push_back(d.node);
  return out;
}

// A power-up that fails: the node is unavailable (not charged, not offered again) and the
// next cycle asks for the other node; an operator's repair (seen powered down) offers it again.
TEST(NodePower, FailedPowerUpAsksForAnotherNode) {
  const ClusterSpec c = mixed(1, 2);
  Drive d(c, {testing::job("a", 0, 8, 3600), testing::job("b", 0, 8, 3600)});
  d.engine.submit(0, &d.jobs[0], 0);
  d.engine.submit(1, &d.jobs[1], 0);
  EXPECT_EQ(nodes_of(d.cycle(0), Decision::Kind::kProvision), std::vector<NodeId>{1});
  const uint32_t od = d.engine.cluster().centre_of(1);
  EXPECT_EQ(d.engine.nodes().provisioned_nodes()[od], 1);
  EXPECT_TRUE(d.engine.node_power(1, NodePower::kFailed, 30));
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kUnavailable);
  EXPECT_EQ(d.engine.nodes().provisioned_gpus()[od], 0);  // no longer charged
  EXPECT_EQ(d.engine.nodes().provisioned_nodes()[od], 0);
  EXPECT_EQ(nodes_of(d.cycle(30), Decision::Kind::kProvision), std::vector<NodeId>{2});
  EXPECT_TRUE(d.engine.node_power(2, NodePower::kOn, 70));
  const auto ds = d.cycle(70);
  ASSERT_EQ(nodes_of(ds, Decision::Kind::kProvision).size(), 0u);
  const auto start = std::find_if(
      ds.begin(), ds.end(), [](const Decision& x) { return x.kind == Decision::Kind::kStart; });
  ASSERT_NE(start, ds.end());
  EXPECT_EQ(start->placement.nodes(), std::vector<NodeId>{2});
  // Repaired: seen powered down again, the node can be asked for later.
  EXPECT_TRUE(d.engine.node_power(1, NodePower::kOff, 80));
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kUnprovisioned);
  EXPECT_EQ(d.engine.nodes().unprovisioned_gpus(kA100), 8);
}

// A node found up (at a restart, or powered up outside frugal) is used and released after
// the idle timeout; one found booting counts as provisioning.
TEST(NodePower, NodeFoundUpIsUsedAndReleased) {
  const ClusterSpec c = mixed(0, 2);
  Drive d(c, {testing::job("a", 0, 8, 600)});
  EXPECT_TRUE(d.engine.node_power(0, NodePower::kOn, 0));
  EXPECT_TRUE(d.engine.node_power(1, NodePower::kBooting, 0));
  EXPECT_EQ(d.engine.nodes().life(1), NodeLife::kProvisioning);
  EXPECT_FALSE(d.engine.node_power(0, NodePower::kOn, 0));  // no change
  d.engine.submit(0, &d.jobs[0], 0);
  auto ds = d.cycle(0);
  EXPECT_EQ(nodes_of(ds, Decision::Kind::kProvision).size(), 0u);
  d.engine.finish(0, 600);
  d.cycle(600);
  EXPECT_TRUE(d.engine.node_power(1, NodePower::kOn, 600));
  ds = d.cycle(600 + kTimeout);
  auto released = nodes_of(ds, Decision::Kind::kRelease);
  std::sort(released.begin(), released.end());
  EXPECT_EQ(released, (std::vector<NodeId>{0, 1}));
}

// Powered down outside frugal while a job ran there: the job is requeued.
TEST(NodePower, PoweredDownUnderAJobRequeuesIt) {
  const ClusterSpec c = mixed(0, 1);
  Drive d(c, {testing::job("a", 0, 8, 3600)});
  d.engine.node_power(0, NodePower::kOn, 0);
  d.engine.submit(0, &d.jobs[0], 0);
  d.cycle(0);
  ASSERT_EQ(d.engine.running_count(), 1u);
  EXPECT_TRUE(d.engine.node_power(0, NodePower::kOff, 100));
  EXPECT_EQ(d.engine.running_count(), 0u);
  const auto ds = d.cycle(100);
  const auto pre = std::find_if(
      ds.begin(), ds.end(), [](const Decision& x) { return x.kind == Decision::Kind::kPreempt; });
  ASSERT_NE(pre, ds.end());
  EXPECT_EQ(pre->reason, "node powered down");
  EXPECT_EQ(nodes_of(ds, Decision::Kind::kProvision), std::vector<NodeId>{0});  // asked again
}

// Owned nodes and static capacity ignore power reports.
TEST(NodePower, OwnedAndStaticNodesIgnorePower) {
  const ClusterSpec c = mixed(1, 1);
  Drive d(c, {});
  EXPECT_FALSE(d.engine.node_power(0, NodePower::kOff, 0));
  EXPECT_EQ(d.engine.nodes().life(0), NodeLife::kUp);
  Drive fixed(c, {}, true);
  EXPECT_FALSE(fixed.engine.node_power(1, NodePower::kOff, 0));
  EXPECT_EQ(fixed.engine.nodes().life(1), NodeLife::kUp);
}

// The ledger's provisioned hours per pool follow the counts it is given.
TEST(NodePower, LedgerCountsProvisionedNodeHoursPerPool) {
  const ClusterSpec c = mixed(1, 2);
  Drive d(c, {});
  RunAccounting acc(c, priced_gpus(), d.engine.cluster(), kA100);
  const auto& pool = d.engine.nodes();
  acc.capacity(0, 3600, 0, pool.provisioned_gpus(), pool.booting_gpus(), pool.provisioned_nodes());
  d.engine.node_power(1, NodePower::kBooting, 3600);
  acc.capacity(3600, 3600 + 1800, 0, pool.provisioned_gpus(), pool.booting_gpus(),
               pool.provisioned_nodes());
  const LedgerReport r = acc.report();
  ASSERT_EQ(r.capacity_by_pool.count("od"), 1u);
  EXPECT_DOUBLE_EQ(r.capacity_by_pool.at("od").node_hours, 0.5);
  EXPECT_DOUBLE_EQ(r.capacity_by_pool.at("od").gpu_hours, 4.0);
  EXPECT_DOUBLE_EQ(r.capacity_by_pool.at("od").booting_gpu_hours, 4.0);
  EXPECT_DOUBLE_EQ(r.capacity_by_pool.at("own").node_hours, 1.5);
}

}  // namespace
}  // namespace frugal
