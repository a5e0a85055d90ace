// The host inventory as the engine's cluster, NVML product names, and the example config.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace frugal
