// Live capacity pools (config slurm.pools): parsing and placing Slurm nodes into pools, with
// errors naming the field, pool and nodes at fault.

#include "service/capacity_pools.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "io/catalog_yaml.h"

namespace frugal {
namespace {

Inventory inventory() {
  Inventory inv;
  for (int i = 1; i <= 6; ++i) {
    NodeInventory n;
    n.name = "gpu" + std::to_string(i);
    n.gpus.resize(8);
    n.features = {"a100"};
    if (i >= 5) n.features.push_back("cloud");
    inv.nodes.push_back(n);
  }
  return inv;
}

ClusterSpec cluster_of(const Inventory& inv) {
  ClusterSpec c = make_single_pool_cluster("slurm", "local");
  for (const NodeInventory& n : inv.nodes) {
    NodeSpec s;
    s.name = n.name;
    s.gpus = 8;
    c.nodes.push_back(s);
  }
  return c;
}

Result<std::vector<CapacityPoolConfig>> parse(const std::string& yaml) {
  return parse_capacity_pools(YAML::Load(yaml), "f.yaml");
}

std::string error_of(const std::string& yaml) {
  auto p = parse(yaml);
  if (!p.ok()) return p.error().message;
  const GpuCatalog cat = load_builtin_catalog().value();
  const Inventory inv = inventory();
  auto c = apply_capacity_pools(cluster_of(inv), inv, p.value(), cat);
  return c.ok() ? "" : c.error().message;
}

TEST(CapacityPools, NodesAndFeaturesFormPools) {
  auto p = parse(R"([{name: cloud, features: [cloud], idle_timeout_s: 60,
                      provisioning_delay_s: 5, rental: {A100-80GB: {on_demand_usd_h: 2.5}}},
                     {name: resv, nodes: "gpu[3-4]", capacity: reserved}])");
  ASSERT_TRUE(p.ok()) << p.error().message;
  const GpuCatalog cat = load_builtin_catalog().value();
  const Inventory inv = inventory();
  auto c = apply_capacity_pools(cluster_of(inv), inv, p.value(), cat);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const ClusterSpec& s = c.value();
  ASSERT_EQ(s.pools.size(), 3u);
  EXPECT_EQ(s.pools[1].name, "cloud");
  EXPECT_EQ(s.pools[1].capacity, Capacity::kOnDemand);
  EXPECT_EQ(s.pools[1].idle_timeout_s, 60);
  EXPECT_EQ(s.pools[1].provisioning_delay_s, 5);
  ASSERT_EQ(s.pools[1].rental.size(), 1u);
  EXPECT_EQ(s.pools[1].rental[0].on_demand_usd_h, 2.5);
  EXPECT_EQ(s.pools[2].capacity, Capacity::kReserved);
  const std::vector<uint32_t> want = {0, 0, 2, 2, 1, 1};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(s.nodes[i].pool, want[i]) << i;
  EXPECT_EQ(powered_nodes(s), (std::vector<std::string>{"gpu5", "gpu6"}));
}

TEST(CapacityPools, SpotPoolTerms) {
  auto p = parse(R"([{name: spot, nodes: gpu6, capacity: spot, spot_price_factor: 0.4,
                      reclaim_notice_s: 30, reclaim_rate_per_node_hour: 0.02}])");
  ASSERT_TRUE(p.ok()) << p.error().message;
  const GpuCatalog cat = load_builtin_catalog().value();
  const Inventory inv = inventory();
  auto c = apply_capacity_pools(cluster_of(inv), inv, p.value(), cat);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().pools[1].capacity, Capacity::kSpot);
  EXPECT_EQ(c.value().pools[1].spot.price_factor, 0.4);
  EXPECT_EQ(c.value().pools[1].spot.reclaim_notice_s, 30);
  EXPECT_EQ(c.value().pools[1].spot.reclaim_rate_per_node_hour, 0.02);
  EXPECT_EQ(powered_nodes(c.value()), std::vector<std::string>{"gpu6"});
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5, reclaim_notice_s: 30}]"),
            "f.yaml: slurm.pools[0].reclaim_notice_s: only a pool of capacity spot takes it");
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5, capacity: spot, spot_price_factor: 1.5}]"),
            "f.yaml: slurm.pools[0].spot_price_factor: a share of the on-demand rate in (0, 1]");
}

TEST(CapacityPools, BadInputNamesTheFault) {
  EXPECT_EQ(error_of("[{name: cloud, nodes: \"gpu[5-7]\"}]"),
            "slurm.pools 'cloud': no Slurm node gpu7 (in the configured partitions)");
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5}, {name: b, features: cloud}]"),
            "slurm.pools: node gpu5 is in two pools: 'a' and 'b'");
  EXPECT_EQ(error_of("[{name: a, features: [tpu]}]"),
            "slurm.pools 'a': no Slurm node has feature tpu");
  EXPECT_EQ(error_of("[{name: a}]"),
            "f.yaml: slurm.pools[0]: give nodes (a Slurm host list), features, or both");
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5, capacity: spotty}]"),
            "f.yaml: slurm.pools[0].capacity: must be one of owned, reserved, on_demand, spot, "
            "got 'spotty'");
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5, idle_timeout_s: -1}]"),
            "f.yaml: slurm.pools[0].idle_timeout_s: 0..604800 seconds");
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5, idle_timeout_s: soon}]"),
            "f.yaml: slurm.pools[0].idle_timeout_s: expected a number of seconds");
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5, colour: red}]"),
            "f.yaml: slurm.pools[0]: unknown key 'colour'");
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5}, {name: a, nodes: gpu6}]"),
            "f.yaml: slurm.pools[1].name: 'a' is taken");
  EXPECT_EQ(error_of("[{name: local, nodes: gpu5}]"),
            "slurm.pools 'local': the name of the default pool (nodes in no pool); pick another");
  EXPECT_EQ(error_of("[{name: a, nodes: gpu5, rental: {Z80: {on_demand_usd_h: 1}}}]"),
            "slurm.pools 'a': rental: 'Z80' is not a catalog GPU model");
  EXPECT_EQ(error_of("{name: a}"), "f.yaml: slurm.pools: expected a list of pools");
}

}  // namespace
}  // namespace frugal
