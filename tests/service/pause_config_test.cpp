// Config `alerts.budget_burn` and `pause_general`: read, and refused with the file and the key
// at fault (an unknown rule, a rule that is off, a team that does not exist).
#include <gtest/gtest.h>

#include <string>

#include "../io/reader_test_util.h"
#include "service/config.h"

namespace frugal {
namespace {

struct Loader {
  testing::TempDir dir;
  std::string base = "admin: {token_sha256: " + std::string(64, 'a') +
                     "}\nteams:\n  alpha: {token_sha256: " + std::string(64, 'b') + "}\n";
  std::string path;
  Result<ServiceConfig> operator()(const std::string& extra) {
    path = dir.write("serve.yaml", base + extra);
    return load_service_config(path);
  }
};

TEST(PauseConfig, BudgetBurnAndPauseGeneralAreRead) {
  Loader load;
  auto ok = load(
      "alerts:\n  budget_burn: {usd_per_hour: 250, minutes: 30, teams: {alpha: 40}}\n"
      "  node_hot: {temperature_c: 85}\n"
      "pause_general:\n  on: [budget_burn, node_hot, gpu_memory_high]\n  requeue_running: "
      "true\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  const ServiceConfig& c = ok.value();
  EXPECT_DOUBLE_EQ(c.alerts.budget_burn_usd_per_hour, 250);
  EXPECT_DOUBLE_EQ(c.alerts.budget_burn_minutes, 30);
  EXPECT_DOUBLE_EQ(c.alerts.budget_burn_teams.at("alpha"), 40);
  EXPECT_TRUE(c.pause_general.enabled);
  EXPECT_EQ(c.pause_general.on,
            (std::vector<std::string>{"budget_burn", "node_hot", "gpu_memory_high"}));
  EXPECT_TRUE(c.pause_general.requeue_running);
  auto team_only = load("alerts:\n  budget_burn: {teams: {alpha: 10}}\n");
  ASSERT_TRUE(team_only.ok()) << team_only.error().message;
  EXPECT_TRUE(team_only.value().alerts.budget_burn_on());
  EXPECT_DOUBLE_EQ(team_only.value().alerts.budget_burn_minutes, 15);  // the default
  auto off = load("");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off.value().alerts.budget_burn_on());
  EXPECT_FALSE(off.value().pause_general.enabled);
  EXPECT_FALSE(off.value().pause_general.requeue_running);
}

TEST(PauseConfig, ErrorsNameTheFileAndTheKey) {
  Loader load;
  const std::pair<std::string, std::string> bad[] = {
      {"pause_general:\n  on: [budget_burn, meteor_strike]\nalerts:\n  budget_burn: "
       "{usd_per_hour: 5}\n",
       "pause_general.on: unknown alert rule 'meteor_strike' (one of budget_burn, node_hot"},
      {"pause_general:\n  on: [budget_burn]\n",
       "pause_general.on: 'budget_burn' is off (set alerts.budget_burn)"},
      {"pause_general:\n  on: [node_hot]\n",
       "pause_general.on: 'node_hot' is off (set alerts.node_hot)"},
      {"pause_general:\n  on: []\n", "pause_general.on: expected a list of alert rules"},
      {"pause_general:\n  on: node_hot\n", "pause_general.on: expected a list of alert rules"},
      {"pause_general:\n  on: [disk_low]\n  requeue: true\n",
       "pause_general.unknown key 'requeue'"},
      {"pause_general:\n  on: [disk_low]\n  requeue_running: maybe\n",
       "pause_general.requeue_running"},
      {"pause_general: [disk_low]\n", "pause_general: expected a map"},
      {"alerts:\n  budget_burn: {usd_per_hour: 5, window: 3}\n",
       "alerts.budget_burn.unknown key 'window'"},
      {"alerts:\n  budget_burn: {usd_per_hour: -5}\n",
       "alerts.budget_burn.usd_per_hour: must be >= 0"},
      {"alerts:\n  budget_burn: {usd_per_hour: 5, minutes: 0}\n",
       "alerts.budget_burn.minutes: above 0, at most 10080"},
      {"alerts:\n  budget_burn: {minutes: 5}\n", "alerts.budget_burn: no limit"},
      {"alerts:\n  budget_burn: {usd_per_hour: lots}\n", "alerts.budget_burn.usd_per_hour"},
      {"alerts:\n  budget_burn: {teams: {alpha: 0}}\n",
       "alerts.budget_burn.teams.alpha: must be above 0"},
      {"alerts:\n  budget_burn: {teams: {omega: 5}}\n",
       "alerts.budget_burn.teams.omega: no such team"},
  };
  for (const auto& [text, says] : bad) {
    SCOPED_TRACE(text);
    auto r = load(text);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message.rfind(load.path + ": ", 0), 0u) << r.error().message;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace frugal
