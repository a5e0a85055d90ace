// io/cluster_yaml_writer.h: a spec written as YAML reads back as the same cluster.
#include "io/cluster_yaml_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "io/catalog_yaml.h"
#include "io/cluster_yaml.h"

namespace frugal {
namespace {

const GpuCatalog& writer_catalog() {
  static const GpuCatalog cat = load_builtin_catalog().value();
  return cat;
}

void expect_same_series(const HourlySeries& a, const HourlySeries& b, const std::string& what) {
  EXPECT_EQ(a.start(), b.start()) << what;
  EXPECT_EQ(a.values(), b.values()) << what;
}

// Every field the YAML format carries.
void expect_same(const ClusterSpec& a, const ClusterSpec& b) {
  EXPECT_EQ(a.epoch_unix_s, b.epoch_unix_s);
  ASSERT_EQ(a.storage_tiers.size(), b.storage_tiers.size());
  for (size_t i = 0; i < a.storage_tiers.size(); ++i) {
    EXPECT_EQ(a.storage_tiers[i].name, b.storage_tiers[i].name);
    EXPECT_EQ(a.storage_tiers[i].usd_per_gb_month, b.storage_tiers[i].usd_per_gb_month);
  }
  ASSERT_EQ(a.regions.size(), b.regions.size());
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const Region& x = a.regions[i];
    const Region& y = b.regions[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.timezone, y.timezone);
    EXPECT_EQ(x.price_zone, y.price_zone);
    expect_same_series(x.electricity_usd_per_mwh, y.electricity_usd_per_mwh, x.name + " prices");
    expect_same_series(x.carbon_g_per_kwh, y.carbon_g_per_kwh, x.name + " carbon");
    expect_same_series(x.offpeak, y.offpeak, x.name + " offpeak");
    EXPECT_EQ(x.prices_file, y.prices_file);
    EXPECT_EQ(x.carbon_file, y.carbon_file);
    EXPECT_EQ(x.default_electricity_usd_per_mwh, y.default_electricity_usd_per_mwh);
    EXPECT_EQ(x.default_carbon_g_per_kwh, y.default_carbon_g_per_kwh);
    EXPECT_EQ(x.pue, y.pue);
    EXPECT_EQ(x.egress_usd_per_gb, y.egress_usd_per_gb);
    EXPECT_EQ(x.time_of_use.windows, y.time_of_use.windows);
    EXPECT_EQ(x.time_of_use.weekends, y.time_of_use.weekends);
    EXPECT_EQ(x.time_of_use.holidays, y.time_of_use.holidays);
    EXPECT_EQ(x.time_of_use.discount, y.time_of_use.discount);
  }
  ASSERT_EQ(a.pools.size(), b.pools.size());
  for (size_t i = 0; i < a.pools.size(); ++i) {
    const Pool& x = a.pools[i];
    const Pool& y = b.pools[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.region, y.region);
    EXPECT_EQ(x.capacity, y.capacity);
    EXPECT_EQ(x.provisioning_delay_s, y.provisioning_delay_s);
    EXPECT_EQ(x.idle_timeout_s, y.idle_timeout_s);
    ASSERT_EQ(x.rental.size(), y.rental.size()) << x.name;
    for (size_t r = 0; r < x.rental.size(); ++r) {
      EXPECT_EQ(x.rental[r].model, y.rental[r].model);
      EXPECT_EQ(x.rental[r].on_demand_usd_h, y.rental[r].on_demand_usd_h);
      EXPECT_EQ(x.rental[r].reserved_usd_h, y.rental[r].reserved_usd_h);
    }
    EXPECT_EQ(x.spot.price_factor, y.spot.price_factor);
    EXPECT_EQ(x.spot.reclaim_notice_s, y.spot.reclaim_notice_s);
    EXPECT_EQ(x.spot.reclaim_rate_per_node_hour, y.spot.reclaim_rate_per_node_hour);
    expect_same_series(x.spot.reclaim_rate_series, y.spot.reclaim_rate_series, x.name);
    EXPECT_EQ(x.spot.allow_core, y.spot.allow_core);
  }
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeSpec& x = a.nodes[i];
    const NodeSpec& y = b.nodes[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.pool, y.pool) << x.name;
    EXPECT_EQ(x.model, y.model) << x.name;
    EXPECT_EQ(x.gpus, y.gpus) << x.name;
    EXPECT_EQ(x.cpu_milli, y.cpu_milli) << x.name;
    EXPECT_EQ(x.memory_mib, y.memory_mib) << x.name;
    EXPECT_EQ(x.overhead_w, y.overhead_w) << x.name;
  }
}

// Written, read back (from another directory: series are named by absolute path), and
// written again: the same cluster and the same text.
void round_trip(const ClusterSpec& spec) {
  const auto yaml = write_cluster_yaml(spec, writer_catalog());
  ASSERT_TRUE(yaml.ok()) << yaml.error().message;
  const auto back =
      parse_cluster_yaml(yaml.value(), "/nonexistent/recorded.yaml", writer_catalog());
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << yaml.value();
  expect_same(spec, back.value());
  const auto again = write_cluster_yaml(back.value(), writer_catalog());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), yaml.value());
}

TEST(ClusterYamlWriter, ExampleClustersReadBackTheSame) {
  for (const char* name : {"two-region.yaml", "two-region-sun.yaml", "hetero-4pool.yaml",
                           "hetero-small.yaml", "a100-640.yaml"}) {
    SCOPED_TRACE(name);
    const auto spec = load_cluster_file(std::string(FRUGAL_SOURCE_DIR "/examples/clusters/") + name,
                                        writer_catalog());
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    round_trip(spec.value());
  }
}

TEST(ClusterYamlWriter, SpotTermsRentalAndFlatPricesReadBackTheSame) {
  const char* text =
      "epoch: \"2026-12-01T00:00:00Z\"\n"
      "storage_tiers: [{name: nvme, usd_per_gb_month: 0.125}]\n"
      "regions:\n"
      "  - name: eu\n"
      "    timezone: Europe/Paris\n"
      "    electricity: {zone: FR, usd_per_mwh: 61.5, carbon_g_per_kwh: 52}\n"
      "    egress_usd_per_gb: 0.05\n"
      "    time_of_use: {offpeak: [\"22:30-24:00\", \"00:00-06:00\"], weekends: true,"
      " holidays: [\"2026-12-25\"], discount: 0.25}\n"
      "    pools:\n"
      "      - name: owned\n"
      "        rental: {L4: {reserved_usd_h: 0.3}, H100: {on_demand_usd_h: 2.5,"
      " reserved_usd_h: 1.75}}\n"
      "        node_groups:\n"
      "          - {name: l4, count: 3, gpu_model: L4, gpus_per_node: 2, cpus: 12.5,"
      " memory_gib: 96.25, overhead_w: 150}\n"
      "          - {name: cpu, count: 1, gpus_per_node: 0}\n"
      "      - name: spot\n"
      "        capacity: spot\n"
      "        spot_price_factor: 0.3\n"
      "        reclaim_notice_s: 30\n"
      "        reclaim_rate_per_node_hour: [0.01, 0.02, 0.5]\n"
      "        spot_allow_core: true\n"
      "        provisioning_delay_s: 90\n"
      "        idle_timeout_s: 0\n"
      "        node_groups:\n"
      "          - {name: s, count: 2, gpu_model: H100, gpus_per_node: 8}\n";
  const auto spec = parse_cluster_yaml(text, "c.yaml", writer_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  round_trip(spec.value());
}

// A service's inventory: nodes named anything. Runs named P-0, P-1, ... stay one group
// with their names; any other node is a group of its own, its name made valid and unique.
TEST(ClusterYamlWriter, InventoryNodesBecomeGroups) {
  ClusterSpec c = make_single_pool_cluster("local", "local");
  const GpuModelId l4 = *writer_catalog().find("L4");
  const GpuModelId h100 = *writer_catalog().find("H100");
  const auto node = [&](const std::string& name, GpuModelId m, int gpus) {
    NodeSpec n;
    n.name = name;
    n.model = m;
    n.gpus = gpus;
    c.nodes.push_back(n);
  };
  node("gpu01", l4, 2);
  node("gpu 02", l4, 2);
  node("rack-0", h100, 8);
  node("rack-1", h100, 8);
  node("rack-2", l4, 2);  // another model: not in rack's group
  node("gpu01-0", l4, 2);
  const auto yaml = write_cluster_yaml(c, writer_catalog());
  ASSERT_TRUE(yaml.ok()) << yaml.error().message;
  const auto back = parse_cluster_yaml(yaml.value(), "x.yaml", writer_catalog());
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << yaml.value();
  ASSERT_EQ(back.value().nodes.size(), 6u) << yaml.value();
  std::vector<std::string> names;
  for (const NodeSpec& n : back.value().nodes) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"gpu01-0", "gpu_02-0", "rack-0", "rack-1", "rack-2-0",
                                             "gpu01-0-0"}));
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    EXPECT_EQ(back.value().nodes[i].model, c.nodes[i].model);
    EXPECT_EQ(back.value().nodes[i].gpus, c.nodes[i].gpus);
  }
}

TEST(ClusterYamlWriter, LeavesOutEmptyPoolsAndRegions) {
  ClusterSpec c = make_single_pool_cluster("empty", "unused");
  Region r;
  r.name = "used";
  c.regions.push_back(r);
  Pool p;
  p.name = "p";
  p.region = 1;
  c.pools.push_back(p);
  NodeSpec n;
  n.name = "a-0";
  n.pool = 1;
  n.model = *writer_catalog().find("L4");
  n.gpus = 1;
  c.nodes.push_back(n);
  const auto yaml = write_cluster_yaml(c, writer_catalog());
  ASSERT_TRUE(yaml.ok()) << yaml.error().message;
  const auto back = parse_cluster_yaml(yaml.value(), "x.yaml", writer_catalog());
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back.value().regions.size(), 1u);
  EXPECT_EQ(back.value().regions[0].name, "used");
  ASSERT_EQ(back.value().pools.size(), 1u);
  EXPECT_EQ(back.value().nodes[0].name, "a-0");
}

TEST(ClusterYamlWriter, RefusesWhatItCannotWrite) {
  const ClusterSpec none = make_single_pool_cluster("r", "p");
  const auto empty = write_cluster_yaml(none, writer_catalog());
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("no nodes"), std::string::npos);
  ClusterSpec c = make_homogeneous_cluster(8, *writer_catalog().find("L4"));
  c.regions[0].electricity_usd_per_mwh = HourlySeries(0, {1, 2});  // from no file
  const auto series = write_cluster_yaml(c, writer_catalog());
  ASSERT_FALSE(series.ok());
  EXPECT_NE(series.error().message.find("electricity prices came from no file"), std::string::npos)
      << series.error().message;
}

}  // namespace
}  // namespace frugal
