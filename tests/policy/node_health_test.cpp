// The node-health plugin (policy/node_health.h) through the engine's telemetry events: a node
// hot for the sustain window stops taking general-tier work (core work still starts there;
// running jobs stay), and takes it again after as long back under the limits, or at once
// when its telemetry stops.

#include "policy/node_health.h"

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "../cost/cost_test_util.h"
#include "engine/engine.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;

bool started(const std::vector<Decision>& ds, JobIdx j) {
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kStart && d.job == j) return true;
  return false;
}

// A reading of `gpus` GPUs, GPU 0 at `temp_c` and `power_w`, the others cool.
NodeReading reading(Seconds at, double temp_c, double power_w = 200, int gpus = 8) {
  NodeReading r;
  r.at = at;
  r.gpus.assign(static_cast<size_t>(gpus), GpuReading{0.5, 0.5, 150, 50});
  r.gpus[0].temperature_c = temp_c;
  r.gpus[0].power_w = power_w;
  return r;
}

Engine engine_with(NodeHealthLimits l, int nodes = 1) {
  Profile p = testing::profile("fifo");
  p.plugins.push_back(make_node_health(l));
  return Engine(make_homogeneous_cluster(int64_t{8} * nodes, kA100, 8), testing::priced_gpus(),
                std::move(p), EngineOptions{kA100});
}

TEST(NodeHealth, AHotNodeTakesNoGeneralWorkButCoreWorkAfterTheWindow) {
  Engine e = engine_with({.temperature_c = 85, .sustain_s = 300});
  EXPECT_FALSE(e.observe_node(0, reading(0, 91)));    // over, not for long enough
  EXPECT_FALSE(e.observe_node(0, reading(200, 92)));  // still not
  EXPECT_TRUE(e.observe_node(0, reading(300, 90)));   // 5 min over: limited
  EXPECT_EQ(e.node_limit(0).takes, Tier::kImportant);
  EXPECT_EQ(e.node_limit(0).reason,
            "GPU 0 at 90 °C (limit 85 °C) for 5 min: no new general-tier work");  // as it began
  JobSpec general = job("general", 300, 1, 100);
  JobSpec core = job("core", 300, 1, 100);
  core.tier = Tier::kCore;
  e.submit(1, &core, 300);  // first: FIFO would stop at the general job
  e.submit(0, &general, 300);
  const auto& ds = e.schedule(300);
  EXPECT_FALSE(started(ds, 0));
  EXPECT_TRUE(started(ds, 1));
  EXPECT_EQ(e.check_invariants(), "");
  const PluginStatus why = e.explain(0);
  EXPECT_EQ(why.point, "health");
  EXPECT_NE(why.reason.find("general-tier work out, e.g. node"), std::string::npos) << why.reason;
}

TEST(NodeHealth, TheLimitLiftsAfterTheWindowBackUnderOrWhenTelemetryStops) {
  Engine e = engine_with({.temperature_c = 85, .sustain_s = 60});
  e.observe_node(0, reading(0, 90));
  ASSERT_TRUE(e.observe_node(0, reading(60, 90)));
  EXPECT_FALSE(e.observe_node(0, reading(70, 70)));  // under, not for long enough
  EXPECT_FALSE(e.observe_node(0, reading(80, 95)));  // over again: the run under restarts
  EXPECT_FALSE(e.observe_node(0, reading(100, 70)));
  EXPECT_TRUE(e.observe_node(0, reading(160, 70)));  // 60 s under: lifted
  EXPECT_FALSE(e.node_limit(0).limited());
  EXPECT_TRUE(e.node_limit(0).reason.empty());
  JobSpec general = job("general", 160, 1, 100);
  e.submit(0, &general, 160);
  EXPECT_TRUE(started(e.schedule(160), 0));
  // Hot again, then the agent stops reporting: the limit lifts at once.
  e.observe_node(0, reading(200, 90));
  ASSERT_TRUE(e.observe_node(0, reading(260, 90)));
  EXPECT_TRUE(e.observe_node(0, NodeReading{270, {}}));
  EXPECT_FALSE(e.node_limit(0).limited());
}

TEST(NodeHealth, PowerOverItsShareOfPeakAndOnlyThatNode) {
  // priced_gpus(): the A100 peaks at 400 W; 0.9 of it is 360 W.
  Engine e = engine_with({.power_fraction = 0.9, .sustain_s = 0}, 2);
  EXPECT_FALSE(e.observe_node(1, reading(0, 50, 350)));
  EXPECT_TRUE(e.observe_node(1, reading(0, 50, 380)));
  EXPECT_EQ(e.node_limit(1).reason,
            "GPU 0 drawing 380 W (limit 90 % of 400 W) for 0 min: no new general-tier work");
  EXPECT_FALSE(e.node_limit(0).limited());
  // A general job fills node 0 only; the next one waits rather than going to node 1.
  JobSpec a = job("a", 0, 8, 100), b = job("b", 0, 8, 100);
  e.submit(0, &a, 0);
  e.submit(1, &b, 0);
  const auto& ds = e.schedule(0);
  ASSERT_TRUE(started(ds, 0));
  EXPECT_FALSE(started(ds, 1));
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kStart) {
      EXPECT_EQ(d.placement.slots.front().node, 0u);
    }
}

TEST(NodeHealth, ReportOnlyKeepsPlacingAndARunningJobStays) {
  Engine e = engine_with({.temperature_c = 85, .sustain_s = 0, .stop_general = false});
  JobSpec general = job("general", 0, 1, 1000);
  e.submit(0, &general, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  EXPECT_TRUE(e.observe_node(0, reading(10, 99)));
  EXPECT_FALSE(e.node_limit(0).limited());
  EXPECT_EQ(e.node_limit(0).reason, "GPU 0 at 99 °C (limit 85 °C) for 0 min");
  JobSpec next = job("next", 10, 1, 100);
  e.submit(1, &next, 10);
  EXPECT_TRUE(started(e.schedule(10), 1));
  EXPECT_EQ(e.job(0).state, JobState::kRunning);
}

TEST(NodeHealth, ARunningGeneralJobOnANodeThatBecameHotStaysAndMayResume) {
  // Limited while a general job runs there: it keeps running; the state still accepts its
  // placement (allocate() ignores takes(), so a tentative stop can resume it).
  Engine e = engine_with({.temperature_c = 85, .sustain_s = 0});
  JobSpec general = job("general", 0, 2, 1000);
  e.submit(0, &general, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  ASSERT_TRUE(e.observe_node(0, reading(10, 99)));
  e.schedule(10);
  EXPECT_EQ(e.job(0).state, JobState::kRunning);
  ClusterState copy = e.cluster();
  const Placement p = e.job(0).placement;
  copy.release(p, general);
  EXPECT_FALSE(copy.host_fits(0, general));     // a new placement may not go there ...
  EXPECT_TRUE(copy.allocate(p, general).ok());  // ... the same one may come back
  EXPECT_EQ(e.check_invariants(), "");
}

TEST(NodeHealth, AJobsMeasuredUseIsShownWhileItRunsThisSegmentOnly) {
  Engine e = engine_with({.temperature_c = 85});
  JobSpec general = job("general", 0, 1, 1000);
  e.observe_job(0, MeasuredUse{0, 10, 0.3, 0.2});  // not running yet: ignored
  e.submit(0, &general, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  const Engine& v = e;
  EXPECT_EQ(v.job_use(0), nullptr);
  e.observe_job(0, MeasuredUse{20, 10, 0.3, 0.2});
  ASSERT_NE(v.job_use(0), nullptr);
  EXPECT_DOUBLE_EQ(v.job_use(0)->utilization, 0.3);
  e.finish(0, 30);
  EXPECT_EQ(v.job_use(0), nullptr);
  e.observe_node(0, reading(30, 50));
  ASSERT_NE(v.node_reading(0), nullptr);
  EXPECT_EQ(v.node_reading(0)->gpus.size(), 8u);
}

}  // namespace
}  // namespace frugal
