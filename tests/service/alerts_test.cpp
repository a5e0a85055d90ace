// Alert rules on synthetic observations: fire once when a condition has held long enough,
// resolve when it ends.

#include "service/alerts.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace frugal {
namespace {

struct Book {
  std::vector<std::string> lines;
  AlertBook book;
  explicit Book(AlertRules r)
      : book(std::move(r), [this](const std::string& l) { lines.push_back(l); }) {}
};

AlertBook::GpuView gpu(bool allocated, double util, int64_t used = 1000, int64_t total = 80000) {
  return AlertBook::GpuView{"n1", 0, allocated, util, used, total};
}

TEST(Alerts, LowUtilizationOnAnAllocatedGpuAfterTheWindow) {
  AlertRules r;
  r.low_utilization_minutes = 10;
  Book b(r);
  b.book.evaluate(0, {gpu(true, 0.5)}, {}, {});
  EXPECT_EQ(b.book.active_count(), 0u);
  b.book.evaluate(599, {gpu(true, 0.5)}, {}, {});
  EXPECT_EQ(b.book.active_count(), 0u);
  b.book.evaluate(600, {gpu(true, 0.5)}, {}, {});
  EXPECT_EQ(b.book.active_count(), 1u);
  b.book.evaluate(700, {gpu(true, 0.4)}, {}, {});  // fires once
  EXPECT_EQ(b.lines.size(), 1u);
  b.book.evaluate(800, {gpu(true, 0.9)}, {}, {});
  EXPECT_EQ(b.book.active_count(), 0u);
  EXPECT_EQ(b.lines.size(), 2u);
  EXPECT_NE(b.lines.back().find("resolved"), std::string::npos);
  // Unallocated or unknown utilisation never counts; a dip restarts the window.
  b.book.evaluate(900, {gpu(false, 0.0)}, {}, {});
  b.book.evaluate(2000, {gpu(false, 0.0)}, {}, {});
  b.book.evaluate(2100, {gpu(true, -1)}, {}, {});
  EXPECT_EQ(b.book.active_count(), 0u);
  const auto j = b.book.to_json();
  EXPECT_EQ(j["recent"].size(), 1u);
  EXPECT_EQ(j["recent"][0]["rule"], "low_utilization");
}

TEST(Alerts, MemoryNodeSilenceAndDeadlineRisk) {
  AlertRules r;
  r.low_utilization_minutes = 0;  // off
  r.gpu_memory_above = 0.95;
  r.node_silent_s = 60;
  Book b(r);
  b.book.evaluate(100, {gpu(true, 1.0, 79000, 80000)}, {{"n1", 90}, {"n2", 10}},
                  {{7, "alpha", 1000, 3600}, {8, "alpha", 1e9, 3600}, {9, "alpha", 0, 3600}});
  auto rules_of = [&](const std::string* team) {
    std::vector<std::string> rules;
    const nlohmann::json j = b.book.to_json(team);
    for (const auto& a : j["active"]) rules.push_back(a["rule"]);
    std::sort(rules.begin(), rules.end());
    return rules;
  };
  // n2 silent for 90 s; job 7 cannot finish 3600 s of work by t = 1000; job 8 can; job 9
  // has no deadline.
  EXPECT_EQ(rules_of(nullptr),
            (std::vector<std::string>{"deadline_risk", "gpu_memory_high", "node_silent"}));
  // Job 7 is alpha's: another team sees the cluster's alerts but not its job's.
  const std::string alpha = "alpha", beta = "beta";
  EXPECT_EQ(rules_of(&alpha), rules_of(nullptr));
  EXPECT_EQ(rules_of(&beta), (std::vector<std::string>{"gpu_memory_high", "node_silent"}));
  b.book.evaluate(110, {gpu(true, 1.0, 1000, 80000)}, {{"n1", 110}, {"n2", 110}}, {});
  EXPECT_EQ(b.book.active_count(), 0u);
}

TEST(Alerts, RaisedConditionFiresOnceSurvivesEvaluateAndResolvesWhenCleared) {
  AlertRules r;
  r.low_utilization_minutes = 0;
  Book b(r);
  b.book.raise("backend_unreachable", "slurm", "slurmrestd not answering", 10);
  b.book.raise("backend_unreachable", "slurm", "slurmrestd not answering", 20);  // still one
  EXPECT_EQ(b.book.active_count(), 1u);
  EXPECT_EQ(b.lines.size(), 1u);
  b.book.evaluate(30, {}, {}, {});  // not one of evaluate()'s conditions: stays active
  EXPECT_EQ(b.book.active_count(), 1u);
  auto j = b.book.to_json();
  ASSERT_EQ(j["active"].size(), 1u);
  EXPECT_EQ(j["active"][0]["rule"], "backend_unreachable");
  EXPECT_EQ(j["active"][0]["subject"], "slurm");
  EXPECT_EQ(j["active"][0]["fired_at"], 10.0);
  b.book.clear("backend_unreachable", "slurm", 40);
  b.book.clear("backend_unreachable", "slurm", 50);  // already resolved: nothing more
  EXPECT_EQ(b.book.active_count(), 0u);
  EXPECT_EQ(b.lines.size(), 2u);
  EXPECT_NE(b.lines.back().find("resolved"), std::string::npos);
  j = b.book.to_json();
  ASSERT_EQ(j["recent"].size(), 1u);
  EXPECT_EQ(j["recent"][0]["resolved_at"], 40.0);
  // A second outage is a second alert.
  b.book.raise("backend_unreachable", "slurm", "again", 60);
  EXPECT_EQ(b.book.to_json()["active"][0]["id"], 2u);
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

// job_idle: a job measured idle on all its GPUs for the window; its team sees it, others not.
TEST(TelemetryAlerts, JobIdleFiresForItsTeamAfterTheWindowAndResolves) {
  AlertRules r;
  r.job_idle_below = 0.05;
  r.job_idle_minutes = 30;
  r.low_utilization_minutes = 0;
  Book b(r);
  const auto view = [](double idle_since, double util) {
    return std::vector<AlertBook::JobView>{{7, "alpha", idle_since, util}};
  };
  b.book.evaluate(1000, {}, {}, {}, view(1000, 0.01));
  b.book.evaluate(1000 + 1799, {}, {}, {}, view(1000, 0.01));
  EXPECT_EQ(b.book.active_count(), 0u);
  b.book.evaluate(1000 + 1800, {}, {}, {}, view(1000, 0.02));
  ASSERT_EQ(b.book.active_count(), 1u);
  const std::string alpha = "alpha", beta = "beta";
  const auto mine = b.book.to_json(&alpha)["active"];
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0]["rule"], "job_idle");
  EXPECT_EQ(mine[0]["subject"], "job 7");
  EXPECT_NE(mine[0]["message"].get<std::string>().find("for 30 min"), std::string::npos)
      << mine[0]["message"];
  EXPECT_TRUE(b.book.to_json(&beta)["active"].empty());
  // Busy again: resolves; no longer measured (not in the views): resolves too.
  b.book.evaluate(1000 + 1900, {}, {}, {}, view(-1, 0.6));
  EXPECT_EQ(b.book.active_count(), 0u);
  b.book.evaluate(1000 + 4000, {}, {}, {}, view(2000, 0.0));
  EXPECT_EQ(b.book.active_count(), 1u);
  b.book.evaluate(1000 + 4100, {}, {}, {}, {});
  EXPECT_EQ(b.book.active_count(), 0u);
  // The rule off.
  r.job_idle_minutes = 0;
  Book off(r);
  off.book.evaluate(1e6, {}, {}, {}, view(0, 0));
  EXPECT_EQ(off.book.active_count(), 0u);
}

// budget_burn: the spend rate's mean over the window, once the window is covered; a team's
// alert is that team's to see and is the condition "budget_burn@team" (Engine::set_conditions).
TEST(TelemetryAlerts, BudgetBurnFiresOnTheWindowsMeanForTheClusterAndATeam) {
  AlertRules r;
  r.low_utilization_minutes = 0;
  r.budget_burn_usd_per_hour = 100;
  r.budget_burn_minutes = 10;
  r.budget_burn_teams = {{"alpha", 20}};
  Book b(r);
  const auto at = [&](double t, double cluster, double alpha) {
    b.book.evaluate(t, {}, {}, {}, {}, BurnRates{cluster, {{"alpha", alpha}}});
  };
  at(0, 150, 30);
  at(300, 150, 30);
  EXPECT_EQ(b.book.active_count(), 0u);  // over both limits, but not for a whole window yet
  at(600, 150, 10);
  ASSERT_EQ(b.book.active_count(), 2u);
  EXPECT_EQ(b.book.conditions(), (std::set<std::string>{"budget_burn", "budget_burn@alpha"}));
  const std::string alpha = "alpha", beta = "beta";
  const auto theirs = b.book.to_json(&beta)["active"];
  ASSERT_EQ(theirs.size(), 1u);  // the cluster's; not alpha's
  EXPECT_EQ(theirs[0]["subject"], "cluster");
  EXPECT_EQ(theirs[0]["message"],
            "the cluster spent $150.00/h over the last 10 min (limit $100/h)");
  const auto mine = b.book.to_json(&alpha)["active"];
  ASSERT_EQ(mine.size(), 2u);
  at(900, 50, 10);  // the mean of [300, 900] is still 150 for the cluster; alpha's 20
  EXPECT_EQ(b.book.active_count(), 1u);
  EXPECT_EQ(b.book.conditions(), std::set<std::string>{"budget_burn"});
  at(1200, 50, 10);  // [600, 1200]: 150 then 50, a mean of 100: not above the limit
  EXPECT_EQ(b.book.active_count(), 0u);
  // Not measured (no accounting yet): not evaluated, nothing fires.
  b.book.evaluate(1300, {}, {}, {}, {}, BurnRates{});
  EXPECT_EQ(b.book.active_count(), 0u);
}

TEST(TelemetryAlerts, RaisedConditionsAboutATeamAreTheTeamsToSee) {
  AlertRules r;
  Book b(r);
  b.book.raise("general_paused", "team alpha", "paused", 10, "alpha");
  b.book.raise("node_hot", "n1", "hot", 10);
  const std::string beta = "beta";
  ASSERT_EQ(b.book.to_json(&beta)["active"].size(), 1u);
  EXPECT_EQ(b.book.conditions(), (std::set<std::string>{"general_paused@alpha", "node_hot"}));
  b.book.clear("general_paused", "team alpha", 20);
  EXPECT_EQ(b.book.conditions(), std::set<std::string>{"node_hot"});
}

}  // namespace
}  // namespace frugal
