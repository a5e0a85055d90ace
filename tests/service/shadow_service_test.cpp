// Shadow policies in the service (issue 23; service/shadows.h): the 50-job dry-run workload
// of the ledger identity test through `serve` with two shadow policies beside the active
// one. The active policy's own shadow reproduces what really happened (same starts, same
// ends, same cost), every shadow takes every event, and GET /v1/shadow and /metrics show it.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "dry_run_fixture.h"

namespace frugal {
namespace {

using dry_run_test::kAdmin;
using dry_run_test::Live;
using dry_run_test::run_workload;
using dry_run_test::Workload;
using dry_run_test::workload;

const nlohmann::json& window(const nlohmann::json& shadow, const char* w) {
  return shadow["windows"][w];
}

// With their own thread, the shadows' view once they applied all they were given. They take
// well under a second of CPU for this workload, but their thread runs at SCHED_IDLE: on a
// machine kept busy by other tests it gets a sliver of a core, so the wait is long (bounded,
// not timed).
ApiReply caught_up(Scheduler& s) {
  ApiReply r;
  for (int i = 0; i < 60000; ++i) {
    r = s.shadow(kAdmin).get();
    if (r.status != 200 || r.body["queued"] != 0) continue;
    bool all = true;
    for (const auto& sh : r.body["shadows"]) all = all && sh["events"] == r.body["events"];
    if (all) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return r;
}

void expect_active_shadow_is_real(const std::string& policy, bool own_thread = false) {
  Live live(policy);
  live.cfg.shadow_policies = {"fifo", "sjf", policy};  // the active one listed again: once
  live.cfg.shadow_thread = own_thread;
  const Workload w = workload(1796083200.0);
  live.clock = std::make_shared<ManualClock>(w.submit_unix.front());
  auto s = live.make();
  run_workload(live, s, w);
  if (::testing::Test::HasFatalFailure()) return;
  const ApiReply r = own_thread ? caught_up(*s) : s->shadow(kAdmin).get();
  ASSERT_EQ(r.status, 200) << r.body.dump();
  const nlohmann::json& b = r.body;
  EXPECT_EQ(b["own_thread"], own_thread);
  EXPECT_EQ(b["queued"], 0);
  EXPECT_EQ(b["active_policy"], policy);
  ASSERT_EQ(b["shadows"].size(), policy == "fifo" || policy == "sjf" ? 2u : 3u);
  const nlohmann::json& active = b["shadows"][0];
  EXPECT_EQ(active["policy"], policy);
  EXPECT_TRUE(active["active"].get<bool>());
  // Every shadow took every event: 50 submissions and 50 ends.
  EXPECT_EQ(b["events"], 100);
  for (const auto& sh : b["shadows"]) EXPECT_EQ(sh["events"], b["events"]) << sh["policy"];
  // The active policy's shadow ran what really ran: each end known at the instant its shadow
  // run had done the work (never late), the same waits, JCTs and cost.
  EXPECT_EQ(active["late_ends"], 0);
  const nlohmann::json& real = window(b["real"], "7d");
  const nlohmann::json& mine = window(active, "7d");
  EXPECT_EQ(mine["started"], 50);
  EXPECT_EQ(mine["completed"], real["completed"]);
  EXPECT_EQ(mine["started"], real["started"]);
  EXPECT_NEAR(mine["wait_s"]["mean"].get<double>(), real["wait_s"]["mean"].get<double>(), 1e-6);
  EXPECT_NEAR(mine["wait_s"]["p99"].get<double>(), real["wait_s"]["p99"].get<double>(), 1e-6);
  EXPECT_NEAR(mine["jct_s"]["mean"].get<double>(), real["jct_s"]["mean"].get<double>(), 1e-6);
  EXPECT_NEAR(mine["cost_usd"].get<double>(), real["cost_usd"].get<double>(),
              1e-6 * real["cost_usd"].get<double>());
  EXPECT_GT(real["cost_usd"].get<double>(), 0);
  EXPECT_NEAR(mine["gpu_utilization"].get<double>(), real["gpu_utilization"].get<double>(), 1e-9);
  EXPECT_GT(real["gpu_utilization"].get<double>(), 0.1);
  // The other shadows ran their own schedules on the same jobs (one that runs later than
  // reality may still have jobs waiting when the real workload is done).
  for (const auto& sh : b["shadows"]) {
    const nlohmann::json& f = window(sh, "7d");
    EXPECT_EQ(f["started"].get<int>() + f["queued"].get<int>(), 50) << sh["policy"];
    EXPECT_GT(f["started"].get<int>(), 40) << sh["policy"];
  }
  // /metrics: the same figures.
  const std::string m = s->metrics().get().text;
  EXPECT_NE(m.find("frugal_shadow_wait_mean_seconds{policy=\"fifo\",source=\"shadow\",window="
                   "\"24h\"}"),
            std::string::npos);
  EXPECT_NE(m.find("frugal_shadow_cost_usd{policy=\"" + policy +
                   "\",source=\"real\",window="
                   "\"1h\"}"),
            std::string::npos);
  EXPECT_NE(m.find("frugal_shadow_events_total{policy=\"sjf\"} 100"), std::string::npos);
}

TEST(ServeShadow, ActivePolicysShadowReproducesTheRealScheduleBackfill) {
  expect_active_shadow_is_real("backfill");
}

TEST(ServeShadow, ActivePolicysShadowReproducesTheRealScheduleFifo) {
  expect_active_shadow_is_real("fifo");
}

// The same on the shadows' own thread: the loop only queues their events; once the thread
// has applied them, the figures are the ones the loop's turn gives.
TEST(ServeShadow, OwnThreadGivesTheSameFigures) {
  expect_active_shadow_is_real("backfill", true);
}

TEST(ServeShadow, NoneConfiguredIs404AndBadPolicyIsRefusedAtStart) {
  Live live("backfill");
  live.clock = std::make_shared<ManualClock>(1796083200.0);
  auto s = live.make();
  EXPECT_EQ(s->shadow(kAdmin).get().status, 404);
  s.reset();
  live.cfg.shadow_policies = {"fifo", "nosuch"};
  auto bad = Scheduler::create(Scheduler::Parts{live.cfg,
                                                live.catalog,
                                                live.cluster,
                                                std::make_unique<DryRunDriver>(live.nodes),
                                                Store::open((live.dir / "g.db").string()).value(),
                                                [](const std::string&) {},
                                                {},
                                                live.clock});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("shadow_policies: 'nosuch'"), std::string::npos)
      << bad.error().message;
  // `recorded` replays a trace's recorded starts: not a live policy, active or shadow.
  for (const bool active : {true, false}) {
    ServiceConfig c = live.cfg;
    c.shadow_policies = {};
    (active ? c.policy : c.shadow_policies.emplace_back()) = "recorded";
    auto r = Scheduler::create(
        Scheduler::Parts{c,
                         live.catalog,
                         live.cluster,
                         std::make_unique<DryRunDriver>(live.nodes),
                         Store::open((live.dir / (active ? "h.db" : "i.db")).string()).value(),
                         [](const std::string&) {},
                         {},
                         live.clock});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("not a policy the live service can run"), std::string::npos)
        << r.error().message;
  }
}

}  // namespace
}  // namespace frugal
