// The general-tier pause (config pause_general; service/scheduler_pause.cpp) in the service on
// its fake clock: while a listed alert is active, queued general-tier jobs are held (core
// work still starts), the pause shows as the general_paused alert, in GET /v1/policy and in
// /metrics; with requeue_running, running general-tier jobs are checkpointed and requeued;
// when the alert clears, the held jobs start. A team's budget_burn pauses that team's only.

#include <gtest/gtest.h>

#include <mutex>

#include "scheduler_fixture.h"
#include "service/scheduler.h"

namespace frugal {
namespace {
using namespace sched_test;  // NOLINT(google-build-using-namespace)

bool alert_active(Scheduler& s, const std::string& rule, const std::string& subject = "") {
  const nlohmann::json body = s.alerts(kAdmin).get().body;
  for (const auto& a : body["active"])
    if (a["rule"] == rule && (subject.empty() || a["subject"] == subject)) return true;
  return false;
}

void set_temperature(Fixture& f, double c) {
  std::lock_guard<std::mutex> lock(f.shared->mu);
  f.shared->temperature_c = c;
}

JobRequest request(Tier tier, int gpus = 1) {
  JobRequest r;
  r.command = "train";
  r.gpus = gpus;
  r.tier = tier;
  return r;
}

// node_hot (placement limit off: stop_general false, so only the pause holds work) pauses the
// general tier on two nodes, though node "n1" is cool and free.
void pause_on_node_hot(Fixture& f, bool requeue) {
  f.shared->nodes = 2;
  f.configure = [requeue](ServiceConfig& c) {
    c.alerts.node_hot_temperature_c = 85;
    c.alerts.node_hot_minutes = 0.005;  // 0.3 s
    c.alerts.node_hot_stop_general = false;
    c.pause_general.enabled = true;
    c.pause_general.on = {"node_hot"};
    c.pause_general.requeue_running = requeue;
  };
}

TEST(SchedulerPause, AGeneralJobIsHeldWhileTheAlertIsActiveAndStartsWhenItClears) {
  Fixture f;
  pause_on_node_hot(f, false);
  auto s = f.make();
  nlohmann::json policy = s->get_policy(kAdmin).get().body;
  EXPECT_EQ(policy["pause_general"]["paused"], false);
  set_temperature(f, 92);
  ASSERT_TRUE(eventually(f, *s, [&] { return alert_active(*s, "general_paused"); }))
      << s->alerts(kAdmin).get().body.dump();
  const int64_t g = s->submit(kAlpha, request(Tier::kGeneral)).get().body["id"];
  const int64_t c = s->submit(kAlpha, request(Tier::kCore)).get().body["id"];
  wait_state(f, *s, c, "running");
  pass(f, *s, 1);
  EXPECT_EQ(job(*s, g)["state"], "queued");
  EXPECT_EQ(job(*s, g)["waiting"]["point"], "hold");
  EXPECT_EQ(job(*s, g)["waiting"]["reason"], "general tier paused: node_hot");
  policy = s->get_policy(kAlpha).get().body;
  EXPECT_EQ(policy["pause_general"]["paused"], true);
  EXPECT_EQ(policy["pause_general"]["paused_by"], nlohmann::json::array({"node_hot"}));
  EXPECT_EQ(policy["pause_general"]["paused_jobs"], 1);
  const std::string m = s->metrics().get().text;
  EXPECT_NE(m.find("\nfrugal_general_paused 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nfrugal_general_paused_jobs 1\n"), std::string::npos);
  // A general job raised to the important tier is not paused any more.
  const int64_t raised = s->submit(kAlpha, request(Tier::kGeneral)).get().body["id"];
  pass(f, *s, 0.2);
  EXPECT_EQ(job(*s, raised)["waiting"]["point"], "hold");
  ASSERT_EQ(s->set_tier(kAdmin, raised, Tier::kImportant).get().status, 200);
  wait_state(f, *s, raised, "running");
  EXPECT_EQ(job(*s, g)["state"], "queued");
  set_temperature(f, 60);
  wait_state(f, *s, g, "running");
  EXPECT_FALSE(alert_active(*s, "general_paused"));
  EXPECT_EQ(s->get_policy(kAdmin).get().body["pause_general"]["paused"], false);
  const nlohmann::json recent = s->alerts(kAdmin).get().body["recent"];
  bool resolved = false;
  for (const auto& a : recent) resolved |= a["rule"] == "general_paused";
  EXPECT_TRUE(resolved) << recent.dump();
}

TEST(SchedulerPause, RequeueRunningCheckpointsRunningGeneralJobsAndLeavesCoreJobs) {
  Fixture f;
  pause_on_node_hot(f, true);
  auto s = f.make();
  const int64_t g = s->submit(kAlpha, request(Tier::kGeneral)).get().body["id"];
  const int64_t c = s->submit(kAlpha, request(Tier::kCore)).get().body["id"];
  wait_state(f, *s, g, "running");
  wait_state(f, *s, c, "running");
  set_temperature(f, 92);
  ASSERT_TRUE(eventually(f, *s, [&] { return job(*s, g)["state"] == "preempted"; }))
      << job(*s, g).dump();
  EXPECT_NE(job(*s, g)["reason"].get<std::string>().find("general tier paused: node_hot"),
            std::string::npos)
      << job(*s, g)["reason"];
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    EXPECT_EQ(f.shared->stopped, std::vector<std::string>{handle(g, 0)});  // the core job runs on
  }
  pass(f, *s, 1);
  EXPECT_NE(job(*s, g)["state"], "running");
  EXPECT_EQ(job(*s, c)["state"], "running");
  set_temperature(f, 60);
  wait_state(f, *s, g, "running");
  EXPECT_EQ(job(*s, g)["restart_count"], 1);
}

double gauge(const std::string& metrics, const std::string& name) {
  const size_t at = metrics.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(metrics.substr(at + name.size() + 2));
}

// The spend rate budget_burn watches is what the live ledger charges: over a minute in which
// nothing changes, the ledger's total grows by the rate's minute.
TEST(SchedulerPause, TheSpendRateIsWhatTheLedgerCharges) {
  Fixture f;
  f.shared->nodes = 2;
  f.configure = [](ServiceConfig& c) {
    c.alerts.budget_burn_usd_per_hour = 1e6;
    c.read_snapshot_s = 0;
  };
  auto s = f.make();
  const int64_t g = s->submit(kAlpha, request(Tier::kGeneral)).get().body["id"];
  wait_state(f, *s, g, "running");
  pass(f, *s, 0.5);  // measured at 25 % busy since
  const double c0 = s->ledger(kAdmin).get().body["cost"]["total_usd"];
  f.clock->advance(60);
  turn(*s);
  const double c1 = s->ledger(kAdmin).get().body["cost"]["total_usd"];
  const double rate = gauge(s->metrics().get().text, "frugal_spend_rate_usd_per_hour");
  ASSERT_GT(rate, 0);
  EXPECT_NEAR(rate, (c1 - c0) * 60, rate * 1e-6) << c0 << " " << c1;
}

// alerts.budget_burn for team alpha: its running job's spend over the limit pauses alpha's
// general work only (beta's still starts); the pause is the team's alert and gauge.
TEST(SchedulerPause, ATeamsBudgetBurnPausesThatTeamsGeneralWorkOnly) {
  Fixture f;
  f.shared->nodes = 2;
  f.configure = [](ServiceConfig& c) {
    c.teams = {{"alpha", std::string(64, 'a')}, {"beta", std::string(64, 'b')}};
    c.alerts.budget_burn_teams = {{"alpha", 0.001}};
    c.alerts.budget_burn_minutes = 0.005;  // 0.3 s
    c.pause_general.enabled = true;
    c.pause_general.on = {"budget_burn"};
  };
  auto s = f.make();
  const int64_t first = s->submit(kAlpha, request(Tier::kGeneral)).get().body["id"];
  wait_state(f, *s, first, "running");
  ASSERT_TRUE(eventually(f, *s, [&] { return alert_active(*s, "general_paused", "team alpha"); }))
      << s->alerts(kAdmin).get().body.dump() << s->metrics().get().text;
  EXPECT_TRUE(alert_active(*s, "budget_burn", "team alpha"));
  EXPECT_FALSE(alert_active(*s, "general_paused", "general tier"));
  const Principal beta{"beta", false};
  const int64_t mine = s->submit(kAlpha, request(Tier::kGeneral)).get().body["id"];
  const int64_t theirs = s->submit(beta, request(Tier::kGeneral)).get().body["id"];
  wait_state(f, *s, theirs, "running");
  EXPECT_EQ(job(*s, mine)["state"], "queued");
  EXPECT_EQ(job(*s, mine)["waiting"]["reason"], "general tier paused: budget_burn (team alpha)");
  const nlohmann::json p = s->get_policy(beta).get().body["pause_general"];
  EXPECT_EQ(p["paused"], false);
  EXPECT_TRUE(p["teams"].empty()) << p.dump();  // alpha's pause is alpha's to see
  EXPECT_EQ(s->get_policy(kAlpha).get().body["pause_general"]["teams"]["alpha"],
            nlohmann::json::array({"budget_burn"}));
  const std::string m = s->metrics().get().text;
  EXPECT_NE(m.find("frugal_general_paused_team{team=\"alpha\"} 1"), std::string::npos) << m;
  EXPECT_NE(m.find("frugal_spend_rate_usd_per_hour "), std::string::npos);
  // alpha's run ends: its spend falls to nothing, the alert clears after the window and its
  // held job starts.
  ScriptedDriver(f.shared).finish(handle(first, 0), 0);
  wait_state(f, *s, mine, "running");
}

}  // namespace
}  // namespace frugal
