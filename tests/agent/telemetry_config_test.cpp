// Config `agents:` and `telemetry:`, and node tokens in authentication.
#include <gtest/gtest.h>

#include <string>

#include "../io/reader_test_util.h"
#include "service/auth.h"
#include "service/config.h"

namespace frugal {
namespace {

TEST(TelemetryConfig, AgentsAndBounds) {
  testing::TempDir dir;
  const std::string base = "admin: {token_sha256: " + std::string(64, 'a') + "}\n";
  auto load = [&](const std::string& extra) {
    return load_service_config(dir.write("serve.yaml", base + extra));
  };
  auto ok = load("agents:\n  rack: {token_sha256: " + std::string(64, 'c') +
                 ", nodes: [gpu1, gpu2]}\n  any: {token_sha256: " + std::string(64, 'd') +
                 "}\ntelemetry: {max_skew_s: 30, stale_after_s: 20}\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok.value().agents.size(), 2u);
  EXPECT_EQ(ok.value().agents[0].name, "rack");  // in the file's order
  EXPECT_EQ(ok.value().agents[0].nodes, (std::vector<std::string>{"gpu1", "gpu2"}));
  EXPECT_TRUE(ok.value().agents[1].nodes.empty());
  EXPECT_DOUBLE_EQ(ok.value().telemetry.max_skew_s, 30);
  EXPECT_DOUBLE_EQ(ok.value().telemetry.stale_after_s, 20);
  EXPECT_DOUBLE_EQ(ok.value().telemetry.max_age_s, 3600);

  const std::pair<std::string, std::string> bad[] = {
      {"agents:\n  rack: {token_sha256: xyz}\n", "agents.rack.token_sha256: expected 64"},
      {"agents:\n  rack: {token_sha256: " + std::string(64, 'a') + "}\n", "same token"},
      {"agents:\n  rack: {token_sha256: " + std::string(64, 'c') + ", node: [x]}\n",
       "agents.rack: unknown key 'node'"},
      {"telemetry: {max_skew: 3}\n", "telemetry.unknown key 'max_skew'"},
      {"telemetry: {max_age_s: -1}\n", "telemetry.max_age_s: must be >= 0"},
  };
  for (const auto& [text, says] : bad) {
    SCOPED_TRACE(text);
    auto r = load(text);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}

TEST(TelemetryConfig, NodeHotLimits) {
  testing::TempDir dir;
  const std::string base = "admin: {token_sha256: " + std::string(64, 'a') + "}\n";
  auto load = [&](const std::string& extra) {
    return load_service_config(dir.write("serve.yaml", base + extra));
  };
  auto ok = load("alerts:\n  node_hot: {temperature_c: 85, power_fraction: 0.95, minutes: 2}\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_DOUBLE_EQ(ok.value().alerts.node_hot_temperature_c, 85);
  EXPECT_DOUBLE_EQ(ok.value().alerts.node_hot_power_fraction, 0.95);
  EXPECT_DOUBLE_EQ(ok.value().alerts.node_hot_minutes, 2);
  EXPECT_TRUE(ok.value().alerts.node_hot_stop_general);
  auto off = load("");
  ASSERT_TRUE(off.ok());
  EXPECT_DOUBLE_EQ(off.value().alerts.node_hot_temperature_c, 0);  // off unless configured
  const std::pair<std::string, std::string> bad[] = {
      {"alerts:\n  node_hot: {temperature: 85}\n", "unknown key 'temperature'"},
      {"alerts:\n  node_hot: {temperature_c: -1}\n",
       "alerts.node_hot.temperature_c: must be between 0 and 200"},
      {"alerts:\n  node_hot: {power_fraction: 5}\n",
       "alerts.node_hot.power_fraction: must be between 0 and 2"},
      {"alerts:\n  node_hot: {temperature_c: hot}\n", "alerts.node_hot"},
  };
  for (const auto& [text, says] : bad) {
    SCOPED_TRACE(text);
    auto r = load(text);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}

TEST(TelemetryConfig, NodeTokensAreAgentsThatMaySeeNoJob) {
  Principal agent;
  agent.agent = "rack";
  agent.nodes = {"gpu1"};
  const Authenticator auth({{sha256_hex("team-token"), "alpha"}}, sha256_hex("admin-token"),
                           {{sha256_hex("node-token"), agent}});
  const auto a = auth.authenticate("Bearer node-token");
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->is_agent());
  EXPECT_EQ(a->nodes, std::vector<std::string>{"gpu1"});
  EXPECT_FALSE(a->may_access("alpha"));
  EXPECT_FALSE(a->may_access(""));
  EXPECT_FALSE(auth.authenticate("Bearer team-token")->is_agent());
  EXPECT_TRUE(auth.authenticate("Bearer admin-token")->admin);
}

TEST(TelemetryConfig, SharingSettings) {
  testing::TempDir dir;
  const std::string base = "admin: {token_sha256: " + std::string(64, 'a') + "}\n";
  auto load = [&](const std::string& extra) {
    return load_service_config(dir.write("serve.yaml", base + extra));
  };
  auto off = load("");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off.value().sharing.enabled);
  auto defaults = load("sharing:\n");
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_TRUE(defaults.value().sharing.enabled);
  EXPECT_DOUBLE_EQ(defaults.value().sharing.lend_below, 0.5);
  auto ok = load("sharing: {lend_below: 0.4, window_minutes: 10, general_lends: true}\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_DOUBLE_EQ(ok.value().sharing.lend_below, 0.4);
  EXPECT_DOUBLE_EQ(ok.value().sharing.window_minutes, 10);
  EXPECT_TRUE(ok.value().sharing.general_lends);
  const std::pair<std::string, std::string> bad[] = {
      {"sharing: {lend: 0.4}\n", "sharing.unknown key 'lend'"},
      {"sharing: {lend_below: 1.5}\n", "sharing.lend_below: must be above 0 and at most 1"},
      {"sharing: {window_minutes: 0}\n", "sharing.window_minutes: must be above 0"},
      {"sharing: {lend_below: 0.8, return_above: 0.6}\n", "is below sharing.lend_below"},
      {"sharing: [1]\n", "sharing: expected a map"},
      {"backend: slurm\nsharing: {}\n", "sharing: the slurm backend cannot"},
  };
  for (const auto& [text, says] : bad) {
    SCOPED_TRACE(text);
    auto r = load(text);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace frugal
