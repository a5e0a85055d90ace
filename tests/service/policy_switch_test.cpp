// Guarded policy changes (issue 23): POST /v1/policy switches the active policy without a
// restart — running jobs kept, waiting ones queued again, the change stored (audit log),
// alerted, and winning over the config at the next start — and the policy guard falls back
// from a policy whose shadow starves core jobs, once, and never from a good one. The service
// on the dry-run backend and a ManualClock (dry_run_fixture.h).

#include <gtest/gtest.h>

#include "dry_run_fixture.h"

namespace frugal {
namespace {

using dry_run_test::finished;
using dry_run_test::kAdmin;
using dry_run_test::Live;
using dry_run_test::run_workload;
using dry_run_test::Workload;
using dry_run_test::workload;

std::vector<int64_t> ids_in(Scheduler& s, const char* state) {
  std::vector<int64_t> out;
  const nlohmann::json jobs =
      s.list_jobs(kAdmin, *parse_job_status(state), 1000).get().body["jobs"];
  for (const auto& j : jobs) out.push_back(j["id"].get<int64_t>());
  return out;
}

TEST(PolicySwitch, KeepsRunningJobsQueuesWaitingOnesAndIsStoredAndAudited) {
  Live live("fifo");
  const Workload w = workload(1796083200.0);
  live.clock = std::make_shared<ManualClock>(w.submit_unix.front());
  auto s = live.make();
  // Half the submissions at once, then a change of policy with jobs running and waiting.
  for (size_t i = 0; i < 25; ++i) {
    ASSERT_EQ(s->submit(Principal{w.requests[i].first, false}, w.requests[i].second).get().status,
              201);
  }
  (void)s->barrier().get();
  const std::vector<int64_t> running = ids_in(*s, "running");
  ASSERT_FALSE(running.empty());
  ASSERT_FALSE(ids_in(*s, "queued").empty());
  // Refusals: not the admin, a policy that does not parse, the active one.
  EXPECT_EQ(s->set_policy(Principal{"alpha", false}, "sjf", "").get().status, 403);
  const ApiReply bad = s->set_policy(kAdmin, "nosuch", "try").get();
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["field"], "policy");
  EXPECT_EQ(s->set_policy(kAdmin, "fifo", "").get().status, 409);
  const ApiReply ok = s->set_policy(kAdmin, "sjf", "shorter jobs first this week").get();
  ASSERT_EQ(ok.status, 200) << ok.body.dump();
  EXPECT_EQ(ok.body["previous"], "fifo");
  // The running jobs kept their runs (no restart); the others start under sjf.
  for (int64_t id : running) {
    const nlohmann::json j = s->get_job(kAdmin, id).get().body;
    EXPECT_EQ(j["state"], "running") << id;
    EXPECT_EQ(j["restart_count"], 0) << id;
  }
  const nlohmann::json p = s->get_policy(kAdmin).get().body;
  EXPECT_EQ(p["policy"], "sjf");
  EXPECT_EQ(p["source"], "api");
  ASSERT_EQ(p["changes"].size(), 1u);
  EXPECT_EQ(p["changes"][0]["from"], "fifo");
  EXPECT_EQ(p["changes"][0]["by"], "admin");
  EXPECT_EQ(p["changes"][0]["reason"], "shorter jobs first this week");
  const nlohmann::json alerts = s->alerts(kAdmin).get().body;
  bool alerted = false;
  for (const auto& a : alerts["recent"]) alerted = alerted || a["rule"] == "policy_changed";
  EXPECT_TRUE(alerted) << alerts.dump();
  // The rest of the workload runs to the end under sjf.
  Workload rest;
  for (size_t i = 25; i < w.requests.size(); ++i) {
    rest.requests.push_back(w.requests[i]);
    rest.submit_unix.push_back(w.submit_unix[i]);
  }
  for (int steps = 0; steps < 1000 && finished(*s) < w.requests.size(); ++steps) {
    double t = dry_run_test::next_instant(live, rest, 0);
    if (!rest.submit_unix.empty() && rest.submit_unix.front() <= t) {
      live.clock->set(std::max(live.clock->now(), rest.submit_unix.front()));
      ASSERT_EQ(
          s->submit(Principal{rest.requests.front().first, false}, rest.requests.front().second)
              .get()
              .status,
          201);
      rest.requests.erase(rest.requests.begin());
      rest.submit_unix.erase(rest.submit_unix.begin());
      continue;
    }
    ASSERT_TRUE(std::isfinite(t));
    live.clock->set(t);
    dry_run_test::settle(*s, *live.dry_run);
  }
  EXPECT_EQ(finished(*s), w.requests.size());
  // A restart: the stored choice wins over the config's `fifo`, and the log says so.
  s.reset();
  auto again = live.make();
  EXPECT_EQ(again->get_policy(kAdmin).get().body["policy"], "sjf");
  EXPECT_TRUE(live.logged->has("policy: sjf (set by admin at")) << "start-up log";
}

// 4 nodes of 8 GPUs: a general 8-GPU job of an hour every 5 minutes (three times what the
// cluster runs) and, from minute 15, a core 8-GPU job of 10 minutes every 10 minutes. Under
// fifo the core jobs wait behind the general backlog; a tier-aware policy runs them first.
Workload starving(double t0) {
  Workload w;
  std::vector<std::pair<double, JobRequest>> all;
  const auto add = [&all](const std::string& name, Tier tier, double estimate_s, double at) {
    JobRequest r;
    r.name = name;
    r.command = "train";
    r.gpus = 8;
    r.estimate_s = estimate_s;
    r.tier = tier;
    all.emplace_back(at, r);
  };
  for (int i = 0; i < 36; ++i)
    add("general" + std::to_string(i), Tier::kGeneral, 3600, t0 + 300.0 * i);
  for (int i = 0; i < 15; ++i)
    add("core" + std::to_string(i), Tier::kCore, 600, t0 + 900.0 + 600.0 * i);
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [t, r] : all) {
    w.requests.emplace_back("alpha", r);
    w.submit_unix.push_back(t);
  }
  return w;
}

void guard(Live& live) {
  live.cfg.policy_guard.enabled = true;
  live.cfg.policy_guard.fallback = "frugal";
  live.cfg.policy_guard.window_s = 1800;
  live.cfg.policy_guard.check_every_s = 60;
  live.cfg.policy_guard.core_p95_wait = 0.5;
  live.cfg.checkpoint_grace_s = 30;
}

TEST(ServeGuard, FallsBackFromAPolicyThatStarvesCoreJobs) {
  Live live("fifo");
  guard(live);
  const Workload w = starving(1796083200.0);
  live.clock = std::make_shared<ManualClock>(w.submit_unix.front());
  auto s = live.make();
  run_workload(live, s, w);
  if (::testing::Test::HasFatalFailure()) return;
  const nlohmann::json p = s->get_policy(kAdmin).get().body;
  EXPECT_EQ(p["policy"], "frugal");
  ASSERT_EQ(p["changes"].size(), 1u) << p.dump();  // once: no switch back
  const nlohmann::json& change = p["changes"][0];
  EXPECT_EQ(change["from"], "fifo");
  EXPECT_EQ(change["by"], "policy_guard");
  EXPECT_NE(change["reason"].get<std::string>().find("core p95 wait"), std::string::npos);
  // Within the window (plus a check) of the first core job's arrival and starvation.
  EXPECT_LE(change["at"].get<double>(), w.submit_unix.front() + 900 + 1800 + 600 + 60);
  EXPECT_FALSE(p["guard"]["armed"].get<bool>());
  bool active = false;
  const nlohmann::json firing = s->alerts(kAdmin).get().body["active"];
  for (const auto& a : firing) active = active || a["rule"] == "policy_guard";
  EXPECT_TRUE(active);
  // A person confirms the fallback: the guard watches again and the alert clears.
  EXPECT_EQ(s->set_policy(kAdmin, "frugal", "confirmed").get().status, 409);
  EXPECT_TRUE(s->get_policy(kAdmin).get().body["guard"]["armed"].get<bool>());
}

TEST(ServeGuard, NeverSwitchesFromAGoodPolicy) {
  Live live("tiers");
  guard(live);
  live.cfg.policy_guard.fallback = "fifo";
  const Workload w = starving(1796083200.0);
  live.clock = std::make_shared<ManualClock>(w.submit_unix.front());
  auto s = live.make();
  run_workload(live, s, w);
  if (::testing::Test::HasFatalFailure()) return;
  const nlohmann::json p = s->get_policy(kAdmin).get().body;
  EXPECT_EQ(p["policy"], "tiers");
  EXPECT_TRUE(p["changes"].empty()) << p.dump();
  EXPECT_TRUE(p["guard"]["armed"].get<bool>());
  // Not for want of a comparison: the fallback's shadow starved its core jobs.
  const nlohmann::json sh = s->shadow(kAdmin).get().body["shadows"];
  ASSERT_EQ(sh.size(), 2u);
  const double mine = sh[0]["windows"]["24h"]["wait_by_tier_s"]["core"]["p95"].get<double>();
  const double fifo = sh[1]["windows"]["24h"]["wait_by_tier_s"]["core"]["p95"].get<double>();
  EXPECT_EQ(sh[1]["policy"], "fifo");
  EXPECT_GT(fifo, 3 * mine + 600) << mine << " vs " << fifo;
}

}  // namespace
}  // namespace frugal
