// The host inventory as the engine's cluster, NVML product names, and the example config.

#include <gtest/gtest.h>

#include "policy/profile.h"

#include "../io/reader_test_util.h"
#include "io/catalog_yaml.h"
#include "service/config.h"
#include "service/serve.h"

namespace frugal {
namespace {

const GpuCatalog& catalog() {
  static const GpuCatalog c = load_builtin_catalog().value();
  return c;
}

std::string model_of(const std::string& product) {
  const auto m = match_gpu_model(product, catalog());
  return m ? catalog().at(*m).name : "";
}

TEST(ServeInventory, NvmlProductNamesMatchTheCatalog) {
  EXPECT_EQ(model_of("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(model_of("NVIDIA H200"), "H200");
  EXPECT_EQ(model_of("NVIDIA A100-SXM4-80GB"), "A100-80GB");
  EXPECT_EQ(model_of("NVIDIA A100-SXM4-40GB"), "A100-40GB");
  EXPECT_EQ(model_of("Tesla T4"), "T4");
  EXPECT_EQ(model_of("NVIDIA L4"), "L4");
  EXPECT_EQ(model_of("NVIDIA GeForce RTX 4090"), "");
}

TEST(ServeInventory, ClusterFromInventory) {
  ServiceConfig cfg;
  Inventory inv;
  inv.nodes.push_back(
      NodeInventory{"gpu-box", {GpuInfo{0, "NVIDIA L4", "", 0}, GpuInfo{1, "NVIDIA L4", "", 0}}});
  inv.nodes.push_back(NodeInventory{"cpu-box", {}});
  auto c = cluster_from_inventory(inv, cfg, catalog());
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c.value().nodes.size(), 2u);
  EXPECT_EQ(c.value().nodes[0].gpus, 2);
  EXPECT_EQ(catalog().at(c.value().nodes[0].model).name, "L4");
  EXPECT_EQ(c.value().nodes[1].gpus, 0);
  EXPECT_EQ(c.value().nodes[1].model, kNoGpuModel);
  // An unknown product needs node.gpu_model.
  Inventory odd;
  odd.nodes.push_back(NodeInventory{"x", {GpuInfo{0, "Mystery GPU", "", 0}}});
  EXPECT_FALSE(cluster_from_inventory(odd, cfg, catalog()).ok());
  cfg.gpu_model = "T4";
  auto fixed = cluster_from_inventory(odd, cfg, catalog());
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(catalog().at(fixed.value().nodes[0].model).name, "T4");
}

TEST(ServeConfig, ExampleLoads) {
  auto c = load_service_config(std::string(FRUGAL_SOURCE_DIR) + "/examples/local.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().listen, "127.0.0.1:8080");
  EXPECT_EQ(c.value().teams.size(), 2u);
  EXPECT_EQ(c.value().gpus, 2);
  EXPECT_FALSE(c.value().admin_token_sha256.empty());
}

// policy: a string, or a map whose typed options make_profile checks (policy/registry.h).
TEST(ServeConfig, PolicyAsAStringOrAMap) {
  testing::TempDir dir;
  const std::string base = "admin: {token_sha256: " + std::string(64, 'a') + "}\n";
  auto load = [&](const std::string& extra) {
    return load_service_config(dir.write("serve.yaml", base + extra));
  };
  EXPECT_EQ(load("").value().policy, "frugal");
  EXPECT_EQ(load("policy: backfill/firstfit\n").value().policy, "backfill/firstfit");
  auto m = load(
      "policy:\n  name: frugal\n  options: {tou: false, max_delay_s: 3600}\n"
      "  placer: hetero\n  suffixes: [consolidate]\n");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m.value().policy, "frugal:tou=0:max_delay_s=3600/hetero+consolidate");
  EXPECT_TRUE(make_profile(m.value().policy).ok());
  for (const char* bad : {"policy: {options: {tou: 0}}\n", "policy: {name: fifo, opts: {}}\n",
                          "policy: {name: fifo, suffixes: consolidate}\n",
                          "policy: {name: frugal, options: {tou: [0]}}\n", "policy: [fifo]\n"}) {
    auto r = load(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("serve.yaml: policy:"), std::string::npos)
        << r.error().message;
  }
  // The map's option values are typed by the registry when the profile is built.
  EXPECT_EQ(make_profile(load("policy: {name: frugal, options: {tou: 2}}\n").value().policy)
                .error()
                .message,
            "frugal option 'tou=2': must be 0 or 1");
}

// shadow_policies: a list of policies (strings or maps); policy_guard: its settings, bounds
// and at least one KPI, errors naming the key.
TEST(ServeConfig, ShadowPoliciesAndPolicyGuard) {
  testing::TempDir dir;
  const std::string base = "admin: {token_sha256: " + std::string(64, 'a') + "}\n";
  auto load = [&](const std::string& extra) {
    return load_service_config(dir.write("serve.yaml", base + extra));
  };
  auto c = load(
      "shadow_policies: [backfill, {name: frugal, options: {tou: 0}}]\n"
      "policy_guard: {fallback: sjf, window_s: 600, core_p95_wait: 0.5}\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().shadow_policies, (std::vector<std::string>{"backfill", "frugal:tou=0"}));
  EXPECT_TRUE(c.value().policy_guard.enabled);
  EXPECT_EQ(c.value().policy_guard.fallback, "sjf");
  EXPECT_DOUBLE_EQ(c.value().policy_guard.window_s, 600);
  EXPECT_DOUBLE_EQ(c.value().policy_guard.check_every_s, 60);
  EXPECT_FALSE(load("").value().policy_guard.enabled);
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {"shadow_policies: backfill\n", "shadow_policies: expected a list"},
           {"policy_guard: {window_s: 60, core_p95_wait: 1}\n", "policy_guard.fallback: missing"},
           {"policy_guard: {fallback: fifo}\n", "no KPI to watch"},
           {"policy_guard: {fallback: fifo, core_p95_wait: 1, window_s: 0}\n",
            "policy_guard.window_s"},
           {"policy_guard: {fallback: fifo, deadline_misses: 0, check_every_s: 9999}\n",
            "policy_guard.check_every_s"},
           {"policy_guard: {fallback: fifo, core_p95: 1}\n", "unknown key 'core_p95'"}}) {
    auto r = load(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}

// The team names the service uses itself are refused at load, naming the key.
TEST(ServeConfig, ReservedTeamNamesAreRefused) {
  testing::TempDir dir;
  const std::string base = "admin: {token_sha256: " + std::string(64, 'a') + "}\n";
  for (const char* team : {"admin", "external"}) {
    SCOPED_TRACE(team);
    auto r = load_service_config(
        dir.write("serve.yaml",
                  base + "teams:\n  " + team + ": {token_sha256: " + std::string(64, 'b') + "}\n"));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(std::string("serve.yaml: teams.") + team + ": reserved"),
              std::string::npos)
        << r.error().message;
  }
}

// price_fallback: exactly one source, bounded numbers; errors name the key.
TEST(ServeConfig, PriceFallback) {
  testing::TempDir dir;
  const std::string base = "admin: {token_sha256: " + std::string(64, 'a') + "}\n";
  auto load = [&](const std::string& extra) {
    return load_service_config(dir.write("serve.yaml", base + extra));
  };
  auto c = load("price_fallback: {file: live.csv, refresh_s: 600}\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().price_fallback.file, (dir.path() / "live.csv").string());
  EXPECT_EQ(c.value().price_fallback.refresh_s, 600);
  c = load("price_fallback: {usd_per_mwh: 95}\n");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value().price_fallback.usd_per_mwh, 95);
  EXPECT_FALSE(load("").value().price_fallback.any());
  const std::pair<const char*, const char*> bad[] = {
      {"price_fallback: {usd_per_mwh: 95, command: x}\n", "exactly one"},
      {"price_fallback: {}\n", "exactly one"},
      {"price_fallback: {usd_per_mwh: -1}\n", "price_fallback.usd_per_mwh"},
      {"price_fallback: {usd_per_mwh: 1e9}\n", "price_fallback.usd_per_mwh"},
      {"price_fallback: {command: x, refresh_s: 0}\n", "price_fallback.refresh_s"},
      {"price_fallback: {command: x, timeout_s: 1e6}\n", "price_fallback.timeout_s"},
      {"price_fallback: {url: x}\n", "unknown key 'url'"},
      {"price_fallback: 95\n", "expected a map"},
      {"price_fallback: {usd_per_mwh: cheap}\n", "price_fallback.usd_per_mwh"},
  };
  for (const auto& [text, want] : bad) {
    SCOPED_TRACE(text);
    auto r = load(text);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(want), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("serve.yaml"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace frugal
