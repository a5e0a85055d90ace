#include "io/cluster_yaml.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "io/catalog_yaml.h"
#include "io/time_of_use.h"
#include "io/yaml_util.h"

namespace frugal {
namespace {

const GpuCatalog& cluster_catalog() {
  static const GpuCatalog cat = [] {
    auto r = load_builtin_catalog();
    return r.ok() ? r.value() : GpuCatalog{};
  }();
  return cat;
}

// Builds a one-group cluster whose group is `group` (a flow map body).
std::string one_group(const std::string& group) {
  return "regions:\n  - name: r\n    pools:\n      - name: p\n        node_groups:\n"
         "          - {" +
         group + "}\n";
}

std::string cluster_error_of(const std::string& text) {
  auto r = parse_cluster_yaml(text, "cluster.yaml", cluster_catalog());
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? std::string() : r.error().message;
}

void expect_cluster_error(const std::string& text, const std::string& needle) {
  const std::string msg = cluster_error_of(text);
  EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg << "\nwanted: " << needle;
  EXPECT_EQ(msg.rfind("cluster.yaml: ", 0), 0u) << msg;
}

const char* kGoodCluster = R"(
regions:
  - name: us-west
    timezone: America/Los_Angeles
    pools:
      - name: h100-reserved
        node_groups:
          - {name: h100, count: 4, gpu_model: H100, gpus_per_node: 8, cpus: 96, memory_gib: 1024}
      - name: mixed
        node_groups:
          - {name: a100, count: 2, gpu_model: A100, gpus_per_node: 4}
          - {name: cpu, count: 3, gpus_per_node: 0, cpus: 32.5}
  - name: eu
    pools:
      - name: t4
        node_groups:
          - {name: t4, count: 1, gpu_model: t4, gpus_per_node: 2, memory_gib: 0.5}
)";

TEST(ClusterYaml, HappyPath) {
  auto r = parse_cluster_yaml(kGoodCluster, "cluster.yaml", cluster_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const ClusterSpec& c = r.value();
  ASSERT_EQ(c.regions.size(), 2u);
  EXPECT_EQ(c.regions[0].name, "us-west");
  EXPECT_EQ(c.regions[0].timezone, "America/Los_Angeles");
  EXPECT_EQ(c.regions[1].timezone, "UTC");
  ASSERT_EQ(c.pools.size(), 3u);
  EXPECT_EQ(c.pools[1].name, "mixed");
  EXPECT_EQ(c.pools[1].region, 0u);
  EXPECT_EQ(c.pools[2].region, 1u);
  ASSERT_EQ(c.nodes.size(), 10u);
  EXPECT_EQ(c.total_gpus(), 4 * 8 + 2 * 4 + 2);

  const NodeSpec& h = c.nodes[3];
  EXPECT_EQ(h.name, "h100-3");
  EXPECT_EQ(h.pool, 0u);
  EXPECT_EQ(h.model, cluster_catalog().find("H100"));
  EXPECT_EQ(h.gpus, 8);
  EXPECT_EQ(h.cpu_milli, 96000);
  EXPECT_EQ(h.memory_mib, 1024 * 1024);

  EXPECT_EQ(c.nodes[4].name, "a100-0");
  EXPECT_EQ(c.nodes[4].model, cluster_catalog().find("A100-80GB"));
  EXPECT_EQ(c.nodes[4].cpu_milli, 0);
  const NodeSpec& cpu = c.nodes[6];
  EXPECT_EQ(cpu.name, "cpu-0");
  EXPECT_EQ(cpu.model, kNoGpuModel);
  EXPECT_EQ(cpu.gpus, 0);
  EXPECT_EQ(cpu.cpu_milli, 32500);
  EXPECT_EQ(cpu.pool, 1u);
  EXPECT_EQ(c.nodes[9].name, "t4-0");
  EXPECT_EQ(c.nodes[9].memory_mib, 512);
  EXPECT_EQ(c.region_of(c.nodes[9]), 1u);

  // Defaults of the cost keys.
  EXPECT_EQ(c.epoch_unix_s, 1672531200);
  ASSERT_EQ(c.storage_tiers.size(), default_storage_tiers().size());
  EXPECT_EQ(c.storage_tiers[0].name, "hot");
  EXPECT_DOUBLE_EQ(c.regions[0].pue, 1.5);
  EXPECT_DOUBLE_EQ(c.regions[0].egress_usd_per_gb, 0.02);
  EXPECT_TRUE(c.regions[0].electricity_usd_per_mwh.empty());
  EXPECT_TRUE(c.regions[0].offpeak.empty());
  EXPECT_DOUBLE_EQ(c.regions[0].time_of_use.discount, 0);
  EXPECT_EQ(c.pools[0].capacity, Capacity::kOwned);
  EXPECT_DOUBLE_EQ(c.pools[0].provisioning_delay_s, 300);
  EXPECT_DOUBLE_EQ(c.pools[0].idle_timeout_s, 900);
  EXPECT_TRUE(c.pools[0].rental.empty());
  EXPECT_DOUBLE_EQ(h.overhead_w, 0);
}

const char* kCostKeys = R"(
epoch: "2023-03-01T05:30:00Z"
storage_tiers:
  - {name: nvme, usd_per_gb_month: 0.12}
  - {name: tape, usd_per_gb_month: 0}
regions:
  - name: r
    timezone: UTC
    electricity: {zone: TEST-ZONE, usd_per_mwh: 95.5, carbon_g_per_kwh: 120}
    pue: 1.25
    egress_usd_per_gb: 0.09
    time_of_use:
      offpeak: ["22:00-08:00", "12:00-13:00"]
      weekends: true
      holidays: ["2023-03-02"]
      discount: 0.4
    pools:
      - name: od
        capacity: on_demand
        provisioning_delay_s: 120
        idle_timeout_s: 0
        rental:
          h100-sxm: {on_demand_usd_h: 9.5, reserved_usd_h: 6}
          A100: {reserved_usd_h: 2.5}
        node_groups:
          - {name: g, count: 2, gpu_model: H100, gpus_per_node: 8, overhead_w: 1500.5}
      - name: res
        capacity: reserved
        node_groups:
          - {name: c, count: 1, gpus_per_node: 0}
)";

TEST(ClusterYaml, CostKeysHappyPath) {
  auto r = parse_cluster_yaml(kCostKeys, "cluster.yaml", cluster_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const ClusterSpec& c = r.value();
  EXPECT_EQ(c.epoch_unix_s, 1677648600);  // 2023-03-01T05:30:00Z
  ASSERT_EQ(c.storage_tiers.size(), 2u);
  EXPECT_EQ(c.storage_tiers[0].name, "nvme");
  EXPECT_DOUBLE_EQ(c.storage_tiers[0].usd_per_gb_month, 0.12);
  EXPECT_DOUBLE_EQ(c.storage_tiers[1].usd_per_gb_month, 0);

  const Region& reg = c.regions[0];
  EXPECT_EQ(reg.price_zone, "TEST-ZONE");
  EXPECT_TRUE(reg.electricity_usd_per_mwh.empty());
  EXPECT_DOUBLE_EQ(reg.default_electricity_usd_per_mwh, 95.5);
  EXPECT_DOUBLE_EQ(reg.default_carbon_g_per_kwh, 120);
  EXPECT_DOUBLE_EQ(reg.pue, 1.25);
  EXPECT_DOUBLE_EQ(reg.egress_usd_per_gb, 0.09);
  const TimeOfUse& tou = reg.time_of_use;
  ASSERT_EQ(tou.windows.size(), 2u);
  EXPECT_EQ(tou.windows[0], (std::pair<int, int>{22 * 60, 8 * 60}));
  EXPECT_EQ(tou.windows[1], (std::pair<int, int>{12 * 60, 13 * 60}));
  EXPECT_TRUE(tou.weekends);
  ASSERT_EQ(tou.holidays.size(), 1u);
  EXPECT_EQ(tou.holidays[0], "2023-03-02");
  EXPECT_DOUBLE_EQ(tou.discount, 0.4);
  // No price series: a year of hours from the epoch floored to the hour.
  EXPECT_EQ(reg.offpeak.start(), 1677648600 - 1800);
  EXPECT_EQ(reg.offpeak.hours(), 8760u);
  // In UTC: 2023-03-01 (a Wednesday) 05:00 off-peak, 10:00 peak, 12:00 off-peak, 23:00
  // off-peak; 2023-03-02 is a holiday; 2023-03-04 is a Saturday.
  const double day1 = 1677628800;  // 2023-03-01T00:00:00Z
  EXPECT_EQ(reg.offpeak.at(day1 + 5 * 3600), 1);
  EXPECT_EQ(reg.offpeak.at(day1 + 10 * 3600), 0);
  EXPECT_EQ(reg.offpeak.at(day1 + 12 * 3600), 1);
  EXPECT_EQ(reg.offpeak.at(day1 + 13 * 3600), 0);
  EXPECT_EQ(reg.offpeak.at(day1 + 23 * 3600), 1);
  EXPECT_EQ(reg.offpeak.at(day1 + 86400 + 10 * 3600), 1);
  EXPECT_EQ(reg.offpeak.at(day1 + 2 * 86400 + 10 * 3600), 0);
  EXPECT_EQ(reg.offpeak.at(day1 + 3 * 86400 + 10 * 3600), 1);

  ASSERT_EQ(c.pools.size(), 2u);
  const Pool& od = c.pools[0];
  EXPECT_EQ(od.capacity, Capacity::kOnDemand);
  EXPECT_DOUBLE_EQ(od.provisioning_delay_s, 120);
  EXPECT_DOUBLE_EQ(od.idle_timeout_s, 0);
  ASSERT_EQ(od.rental.size(), 2u);
  EXPECT_EQ(od.rental[0].model, cluster_catalog().find("H100"));
  EXPECT_DOUBLE_EQ(od.rental[0].on_demand_usd_h, 9.5);
  EXPECT_DOUBLE_EQ(od.rental[0].reserved_usd_h, 6);
  EXPECT_EQ(od.rental[1].model, cluster_catalog().find("A100-80GB"));
  EXPECT_LT(od.rental[1].on_demand_usd_h, 0);  // catalog value
  EXPECT_DOUBLE_EQ(od.rental[1].reserved_usd_h, 2.5);
  EXPECT_EQ(c.pools[1].capacity, Capacity::kReserved);
  EXPECT_DOUBLE_EQ(c.nodes[0].overhead_w, 1500.5);
  EXPECT_DOUBLE_EQ(c.nodes[2].overhead_w, 0);
}

TEST(ClusterYaml, EpochForms) {
  auto with_epoch = [](const std::string& e) {
    return "epoch: " + e + "\n" + one_group("name: g, count: 1, gpus_per_node: 0");
  };
  auto r = parse_cluster_yaml(with_epoch("2024-02-29T23:59:59+00:00"), "c.yaml", cluster_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().epoch_unix_s, 1709251199);
  r = parse_cluster_yaml(with_epoch("1970-01-01T00:00:00Z"), "c.yaml", cluster_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().epoch_unix_s, 0);

  for (const char* bad : {"yesterday", "2023-01-01", "2023-01-01 00:00:00", "2023-01-01T00:00:00",
                          "2023-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2023-01-01T24:00:00Z",
                          "2023-01-01T00:00:00+02:00", "2023-01-01T00:00:00Zjunk",
                          "-023-01-01T00:00:00Z", " 2023-01-01T00:00:00Z", "2023-1-01T00:00:00Z"})
    expect_cluster_error(
        with_epoch(std::string("'") + bad + "'"),
        "epoch: expected a UTC time like 2023-01-01T00:00:00Z, got '" + std::string(bad) + "'");
  expect_cluster_error(with_epoch("[1]"), "epoch: expected a text value");
}

// A one-region cluster whose region carries `extra` (indented YAML lines) before its pools.
std::string region_with(const std::string& extra) {
  return "regions:\n  - name: r\n" + extra +
         "    pools:\n      - name: p\n        node_groups:\n"
         "          - {name: g, count: 1, gpu_model: H100, gpus_per_node: 8}\n";
}

// A one-pool cluster whose pool carries `extra` (indented YAML lines).
std::string pool_with(const std::string& extra) {
  return "regions:\n  - name: r\n    pools:\n      - name: p\n" + extra +
         "        node_groups:\n"
         "          - {name: g, count: 1, gpu_model: H100, gpus_per_node: 8}\n";
}

TEST(ClusterYaml, RejectsBadPoolCostKeys) {
  expect_cluster_error(
      pool_with("        capacity: preemptible\n"),
      "regions[0].pools[0].capacity: must be one of owned, reserved, on_demand, spot, "
      "got 'preemptible'");
  expect_cluster_error(pool_with("        capacity: Owned\n"), "got 'Owned'");
  expect_cluster_error(
      pool_with("        provisioning_delay_s: -1\n"),
      "regions[0].pools[0].provisioning_delay_s: must be between 0 and 86400, got -1");
  expect_cluster_error(pool_with("        provisioning_delay_s: 86401\n"), "got 86401");
  expect_cluster_error(
      pool_with("        idle_timeout_s: 604801\n"),
      "regions[0].pools[0].idle_timeout_s: must be between 0 and 604800, got 604801");
  expect_cluster_error(pool_with("        idle_timeout_s: soon\n"),
                       "idle_timeout_s: expected a number");
  expect_cluster_error(
      pool_with("        rental: {K80: {on_demand_usd_h: 1}}\n"),
      "regions[0].pools[0].rental.K80: unknown GPU model 'K80' (known models: H200");
  expect_cluster_error(pool_with("        rental: {H100: {on_demand_usd_h: -1}}\n"),
                       "rental.H100.on_demand_usd_h: must be between 0 and 100000, got -1");
  expect_cluster_error(pool_with("        rental: {H100: {spot_usd_h: 1}}\n"),
                       "rental.H100: unknown key(s) 'spot_usd_h'");
  expect_cluster_error(pool_with("        rental: {H100: {}}\n"),
                       "rental.H100: give on_demand_usd_h, reserved_usd_h or both");
  expect_cluster_error(pool_with("        rental: {H100: {on_demand_usd_h: 1}, h100-sxm: "
                                 "{reserved_usd_h: 1}}\n"),
                       "rental.h100-sxm: model 'H100' is listed twice");
  expect_cluster_error(pool_with("        rental: [H100]\n"), "rental: expected a map");
  expect_cluster_error(
      pool_with("        price: 3\n"),
      "regions[0].pools[0]: unknown key(s) 'price' (allowed: name, capacity, "
      "provisioning_delay_s, idle_timeout_s, rental, node_groups, spot_price_factor, "
      "reclaim_notice_s, reclaim_rate_per_node_hour, spot_allow_core)");
}

TEST(ClusterYaml, RejectsBadOverhead) {
  expect_cluster_error(one_group("name: g, count: 1, gpus_per_node: 0, overhead_w: -5"),
                       "node_groups[0].overhead_w: must be between 0 and 20000, got -5");
  expect_cluster_error(one_group("name: g, count: 1, gpus_per_node: 0, overhead_w: 20001"),
                       "got 20001");
  expect_cluster_error(one_group("name: g, count: 1, gpus_per_node: 0, overhead_w: .nan"),
                       "overhead_w: must be a finite number");
}

TEST(ClusterYaml, RejectsBadRegionCostKeys) {
  expect_cluster_error(region_with("    pue: -1.2\n"),
                       "regions[0].pue: must be between 1 and 3, got -1.2");
  expect_cluster_error(region_with("    pue: 0.9\n"),
                       "regions[0].pue: must be between 1 and 3, got 0.9");
  expect_cluster_error(region_with("    pue: 3.5\n"), "got 3.5");
  expect_cluster_error(region_with("    egress_usd_per_gb: -0.01\n"),
                       "regions[0].egress_usd_per_gb: must be between 0 and 10, got -0.01");
  expect_cluster_error(region_with("    time_of_use: {offpeak: ['22:00-08:00'], discount: 1.5}\n"),
                       "regions[0].time_of_use.discount: must be between 0 and 0.9, got 1.5");
  expect_cluster_error(region_with("    time_of_use: {offpeak: ['22:00-08:00'], discount: -0.1}\n"),
                       "time_of_use.discount: must be between 0 and 0.9");
  expect_cluster_error(region_with("    time_of_use: {offpeak: ['22:00-08:00']}\n"),
                       "regions[0].time_of_use.discount: required field is missing");
  expect_cluster_error(region_with("    time_of_use: {discount: 0.2}\n"),
                       "regions[0].time_of_use: no off-peak time");
  expect_cluster_error(region_with("    time_of_use: {offpeak: ['25:00-08:00'], discount: 0.2}\n"),
                       "regions[0].time_of_use.offpeak[0]: ");
  expect_cluster_error(region_with("    time_of_use: {offpeak: '22:00-08:00', discount: 0.2}\n"),
                       "time_of_use.offpeak: expected a list");
  expect_cluster_error(region_with("    time_of_use: {weekends: maybe, discount: 0.2}\n"),
                       "time_of_use.weekends: expected true or false, got 'maybe'");
  expect_cluster_error(region_with("    time_of_use: {holidays: ['2023-02-30'], discount: 0.2}\n"),
                       "time_of_use.holidays[0]: expected a date YYYY-MM-DD, got '2023-02-30'");
  expect_cluster_error(region_with("    time_of_use: {holidays: ['July 4'], discount: 0.2}\n"),
                       "time_of_use.holidays[0]: expected a date");
  expect_cluster_error(region_with("    time_of_use: {holidays: ['+023-07-04'], discount: 0.2}\n"),
                       "time_of_use.holidays[0]: expected a date");
  expect_cluster_error(region_with("    time_of_use: {weekends: true, discount: 0.2, peak: 1}\n"),
                       "time_of_use: unknown key(s) 'peak'");
  expect_cluster_error(region_with("    electricity: {usd_per_mwh: -80}\n"),
                       "regions[0].electricity.usd_per_mwh: must be between 0 and 100000, got -80");
  expect_cluster_error(region_with("    electricity: {carbon_g_per_kwh: 9000}\n"),
                       "regions[0].electricity.carbon_g_per_kwh: must be between 0 and 5000");
  expect_cluster_error(region_with("    electricity: {prices: a.csv, usd_per_mwh: 80}\n"),
                       "electricity.usd_per_mwh: give either prices (a file) or usd_per_mwh");
  expect_cluster_error(
      region_with("    electricity: {carbon: a.csv, carbon_g_per_kwh: 80}\n"),
      "electricity.carbon_g_per_kwh: give either carbon (a file) or carbon_g_per_kwh");
  expect_cluster_error(region_with("    electricity: {price: 80}\n"),
                       "regions[0].electricity: unknown key(s) 'price'");
  expect_cluster_error(region_with("    electricity: 80\n"),
                       "regions[0].electricity: expected a map");
}

TEST(ClusterYaml, RejectsBadStorageTiers) {
  const std::string tail = one_group("name: g, count: 1, gpus_per_node: 0");
  expect_cluster_error("storage_tiers: []\n" + tail, "storage_tiers: list at least one tier");
  expect_cluster_error("storage_tiers: [{name: hot, usd_per_gb_month: -1}]\n" + tail,
                       "storage_tiers[0].usd_per_gb_month: must be between 0 and 1000, got -1");
  expect_cluster_error("storage_tiers: [{name: hot}]\n" + tail,
                       "storage_tiers[0].usd_per_gb_month: required field is missing");
  expect_cluster_error(
      "storage_tiers: [{name: a, usd_per_gb_month: 1}, {name: a, usd_per_gb_month: 2}]\n" + tail,
      "storage_tiers[1].name: duplicate storage tier name 'a'");
  expect_cluster_error("storage_tiers: [{name: a, usd_per_gb_month: 1, iops: 3}]\n" + tail,
                       "storage_tiers[0]: unknown key(s) 'iops'");
  expect_cluster_error("storage_tier: []\n" + tail,
                       ": unknown key(s) 'storage_tier' (allowed: epoch, storage_tiers, regions)");
}

// A scratch directory for data files, removed at the end of the test.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("frugal_cluster_yaml_" + name + "_" +
               std::to_string(::testing::UnitTest::GetInstance()->random_seed()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_ / "data");
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  void write(const std::string& rel, const std::string& text) const {
    std::ofstream(path_ / rel) << text;
  }

 private:
  std::filesystem::path path_;
};

// `hours` hours of prices from 2023-01-01T00:00:00Z in the bundled CSV layout; hour i costs i.
std::string price_csv(int hours) {
  std::string s = "Datetime (UTC),Datetime (Local),Price (USD/MWh)\n";
  for (int i = 0; i < hours; ++i) {
    char row[96];
    std::snprintf(row, sizeof row,
                  "2023-01-%02d %02d:00:00+00:00,2023-01-%02d %02d:00:00+00:00,%d\n", 1 + i / 24,
                  i % 24, 1 + i / 24, i % 24, i);
    s += row;
  }
  return s;
}

// The same hours of carbon intensity in Electricity Maps' layout; hour i emits 100 + i.
std::string carbon_csv(int hours) {
  std::string s =
      "Datetime (UTC),Country,Zone Name,Zone Id,Carbon Intensity gCO\u2082eq/kWh (direct),"
      "Carbon Intensity gCO\u2082eq/kWh (LCA),Low Carbon Percentage,Renewable Percentage,"
      "Data Source,Data Estimated,Data Estimation Method\n";
  for (int i = 0; i < hours; ++i) {
    char row[160];
    std::snprintf(row, sizeof row,
                  "2023-01-%02d %02d:00:00,USA,Test,TEST,%d,%d,50,40,test,false,\n", 1 + i / 24,
                  i % 24, 100 + i, 200 + i);
    s += row;
  }
  return s;
}

TEST(ClusterYaml, ElectricityFilesRelativeToTheSpec) {
  ScratchDir dir("files");
  dir.write("data/p.csv", price_csv(48));
  dir.write("data/c.csv", carbon_csv(48));
  const std::string spec = region_with(
      "    timezone: UTC\n"
      "    electricity: {zone: TEST, prices: data/p.csv, carbon: data/c.csv}\n"
      "    time_of_use: {offpeak: ['00:00-06:00'], discount: 0.25}\n");
  const std::string origin = (dir.path() / "cluster.yaml").string();
  auto r = parse_cluster_yaml(spec, origin, cluster_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Region& reg = r.value().regions[0];
  EXPECT_EQ(reg.price_zone, "TEST");
  ASSERT_EQ(reg.electricity_usd_per_mwh.hours(), 48u);
  EXPECT_EQ(reg.electricity_usd_per_mwh.start(), 1672531200);
  EXPECT_DOUBLE_EQ(reg.electricity_usd_per_mwh.at(1672531200 + 5 * 3600 + 10), 5);
  ASSERT_EQ(reg.carbon_g_per_kwh.hours(), 48u);
  EXPECT_DOUBLE_EQ(reg.carbon_g_per_kwh.at(1672531200 + 3600), 101);
  // The off-peak indicator spans the price series.
  EXPECT_EQ(reg.offpeak.start(), 1672531200);
  EXPECT_EQ(reg.offpeak.hours(), 48u);
  EXPECT_EQ(reg.offpeak.at(1672531200 + 5 * 3600), 1);
  EXPECT_EQ(reg.offpeak.at(1672531200 + 6 * 3600), 0);

  // An absolute path works from anywhere.
  const std::string abs =
      region_with("    electricity: {prices: " + (dir.path() / "data/p.csv").string() + "}\n");
  auto r2 = parse_cluster_yaml(abs, "elsewhere/cluster.yaml", cluster_catalog());
  ASSERT_TRUE(r2.ok()) << r2.error().message;
  EXPECT_EQ(r2.value().regions[0].electricity_usd_per_mwh.hours(), 48u);
}

TEST(ClusterYaml, RejectsMissingPriceFile) {
  ScratchDir dir("missing");
  const std::string origin = (dir.path() / "cluster.yaml").string();
  auto r = parse_cluster_yaml(region_with("    electricity: {prices: data/nope.csv}\n"), origin,
                              cluster_catalog());
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.error().message;
  EXPECT_EQ(msg.rfind(origin + ": regions[0].electricity.prices: cannot load electricity "
                               "prices 'data/nope.csv'",
                      0),
            0u)
      << msg;
  EXPECT_NE(msg.find((dir.path() / "data/nope.csv").string()), std::string::npos) << msg;

  r = parse_cluster_yaml(region_with("    electricity: {carbon: data/nope.csv}\n"), origin,
                         cluster_catalog());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("electricity.carbon: cannot load carbon intensity "
                                   "'data/nope.csv'"),
            std::string::npos)
      << r.error().message;
}

// The tests below need the real time-zone database behind io/time_of_use.h; they skip when
// the build links a stand-in that accepts any zone name.
bool real_time_zones() {
  return !valid_timezone("Mars/Olympus_Mons");
}

TEST(ClusterYaml, RejectsUnknownTimezone) {
  if (!real_time_zones()) GTEST_SKIP() << "time_of_use.cpp without the tz database";
  expect_cluster_error(region_with("    timezone: Mars/Olympus_Mons\n"),
                       "regions[0].timezone: unknown time zone 'Mars/Olympus_Mons'");
  expect_cluster_error(region_with("    timezone: America/Los Angeles\n"), "unknown time zone");
}

TEST(ClusterYaml, OffpeakFollowsLocalTimeAndDaylightSaving) {
  if (!real_time_zones()) GTEST_SKIP() << "time_of_use.cpp without the tz database";
  auto r = parse_cluster_yaml(
      region_with("    timezone: America/Los_Angeles\n"
                  "    time_of_use: {offpeak: ['22:00-08:00'], discount: 0.4}\n"),
      "c.yaml", cluster_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const HourlySeries& off = r.value().regions[0].offpeak;
  ASSERT_EQ(off.hours(), 8760u);
  // 2023-01-03 (Tuesday, PST = UTC-8): local 22:00 = 06:00 UTC, local 08:00 = 16:00 UTC.
  const double jan3 = 1672704000;
  EXPECT_EQ(off.at(jan3 + 5 * 3600), 0);   // 21:00 local
  EXPECT_EQ(off.at(jan3 + 6 * 3600), 1);   // 22:00 local
  EXPECT_EQ(off.at(jan3 + 15 * 3600), 1);  // 07:00 local
  EXPECT_EQ(off.at(jan3 + 16 * 3600), 0);  // 08:00 local
  // 2023-07-11 (Tuesday, PDT = UTC-7): local 22:00 = 05:00 UTC.
  const double jul11 = 1689033600;
  EXPECT_EQ(off.at(jul11 + 4 * 3600), 0);
  EXPECT_EQ(off.at(jul11 + 5 * 3600), 1);
  EXPECT_EQ(off.at(jul11 + 15 * 3600), 0);  // 08:00 local
}

TEST(ClusterYaml, OneGroupOk) {
  auto r = parse_cluster_yaml(one_group("name: g, count: 2, gpu_model: L4, gpus_per_node: 1"),
                              "c.yaml", cluster_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().nodes.size(), 2u);
}

TEST(ClusterYaml, RejectsBadCounts) {
  expect_cluster_error(
      one_group("name: g, count: -3, gpu_model: H100, gpus_per_node: 8"),
      "regions[0].pools[0].node_groups[0].count: must be between 1 and 100000, got -3");
  expect_cluster_error(one_group("name: g, count: 0, gpu_model: H100, gpus_per_node: 8"),
                       "node_groups[0].count: must be between 1 and 100000, got 0");
  expect_cluster_error(one_group("name: g, count: 100001, gpu_model: H100, gpus_per_node: 8"),
                       "got 100001");
  expect_cluster_error(one_group("name: g, count: 99999999999999999999999, gpu_model: H100, "
                                 "gpus_per_node: 8"),
                       "count: expected an integer");
  expect_cluster_error(one_group("name: g, count: 2.5, gpu_model: H100, gpus_per_node: 8"),
                       "count: expected an integer");
  expect_cluster_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 65"),
                       "gpus_per_node: must be between 0 and 64, got 65");
  expect_cluster_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: -1"),
                       "gpus_per_node: must be between 0 and 64");
  expect_cluster_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 8, cpus: -4"),
                       "node_groups[0].cpus: must be between 0 and");
  expect_cluster_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 8, "
                                 "memory_gib: 1e30"),
                       "node_groups[0].memory_gib: must be between 0 and");
  expect_cluster_error(
      one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 8, cpus: .inf"),
      "cpus: must be a finite number");
}

TEST(ClusterYaml, RejectsUnknownModel) {
  const std::string msg =
      cluster_error_of(one_group("name: grp, count: 1, gpu_model: K80, gpus_per_node: 8"));
  EXPECT_NE(msg.find("regions[0].pools[0].node_groups[0].gpu_model: unknown GPU model 'K80'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("grp"), std::string::npos) << msg;
  EXPECT_NE(msg.find("known models: H200, H100"), std::string::npos) << msg;
}

TEST(ClusterYaml, RejectsMissingFields) {
  expect_cluster_error(one_group("name: g, count: 1, gpus_per_node: 8"),
                       "node_groups[0].gpu_model: required field is missing");
  expect_cluster_error(one_group("name: g, gpu_model: H100, gpus_per_node: 8"),
                       "node_groups[0].count: required field is missing");
  expect_cluster_error(one_group("name: g, count: 1, gpu_model: H100"),
                       "node_groups[0].gpus_per_node: required field is missing");
  expect_cluster_error(one_group("count: 1, gpu_model: H100, gpus_per_node: 1"),
                       "node_groups[0].name: required field is missing");
  expect_cluster_error("regions:\n  - name: r\n", "regions[0].pools: required field is missing");
  expect_cluster_error("regions:\n  - name: r\n    pools:\n      - name: p\n",
                       "regions[0].pools[0].node_groups: required field is missing");
  expect_cluster_error("regions:\n  - pools: []\n", "regions[0].name: required field is missing");
}

TEST(ClusterYaml, RejectsUnknownKeys) {
  expect_cluster_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 8, gpus: 8"),
                       "regions[0].pools[0].node_groups[0]: unknown key(s) 'gpus'");
  expect_cluster_error("regions:\n  - name: r\n    price: 3\n    pools: []\n",
                       "regions[0]: unknown key(s) 'price'");
  expect_cluster_error("region: []\n", "unknown key(s) 'region'");
}

TEST(ClusterYaml, RejectsDuplicatesAndEmpties) {
  expect_cluster_error(
      "regions:\n"
      "  - {name: r, pools: [{name: p, node_groups: [{name: a, count: 1, gpus_per_node: 0}]}]}\n"
      "  - {name: r, pools: [{name: q, node_groups: [{name: b, count: 1, gpus_per_node: 0}]}]}\n",
      "regions[1].name: duplicate region name 'r'");
  expect_cluster_error(
      "regions:\n"
      "  - {name: r, pools: [{name: p, node_groups: [{name: a, count: 1, gpus_per_node: 0}]},\n"
      "                      {name: p, node_groups: [{name: b, count: 1, gpus_per_node: 0}]}]}\n",
      "regions[0].pools[1].name: duplicate pool name 'p'");
  expect_cluster_error(
      "regions:\n"
      "  - {name: r, pools: [{name: p, node_groups: [{name: a, count: 1, gpus_per_node: 0},\n"
      "                                              {name: a, count: 1, gpus_per_node: 0}]}]}\n",
      "node_groups[1].name: duplicate node group name 'a'");
  expect_cluster_error("regions: []\n", "regions: the cluster has no regions");
  expect_cluster_error("regions:\n  - {name: r, pools: []}\n",
                       "regions[0].pools: region has no pools");
  expect_cluster_error("regions:\n  - {name: r, pools: [{name: p, node_groups: []}]}\n",
                       "has no node groups");
  expect_cluster_error("regions:\n  - {name: r, timezone: '', pools: []}\n",
                       "regions[0].timezone: must not be empty");
  expect_cluster_error("regions:\n  - {name: r, timezone: , pools: []}\n",
                       "regions[0].timezone: must not be empty");
}

TEST(ClusterYaml, RejectsGarbage) {
  expect_cluster_error("", "empty document");
  expect_cluster_error("regions: [ {name: x", "invalid YAML");
  expect_cluster_error("- 1\n- 2\n", "expected a map");
  expect_cluster_error("regions: {name: r}\n", "regions: expected a list");
  expect_cluster_error("regions:\n  - name: [a, b]\n    pools: []\n",
                       "regions[0].name: expected a text");
}

ClusterSpec load_example(const std::string& name) {
  const std::string path = FRUGAL_SOURCE_DIR "/examples/clusters/" + name;
  auto text = yamlio::read_text_file(path);
  EXPECT_TRUE(text.ok()) << path;
  if (!text.ok()) return {};
  auto r = parse_cluster_yaml(text.value(), path, cluster_catalog());
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? r.value() : ClusterSpec{};
}

TEST(ClusterYaml, ExampleHeteroSmallLoads) {
  const ClusterSpec c = load_example("hetero-small.yaml");
  ASSERT_EQ(c.regions.size(), 1u);
  EXPECT_EQ(c.pools.size(), 4u);
  bool seen[4] = {false, false, false, false};
  const char* models[4] = {"H100", "A100-80GB", "L4", "T4"};
  for (const auto& n : c.nodes)
    for (int i = 0; i < 4; ++i) seen[i] = seen[i] || n.model == cluster_catalog().find(models[i]);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(seen[i]) << models[i];
}

TEST(ClusterYaml, LoadClusterFileResolvesDataNextToTheFile) {
  ScratchDir dir("load");
  dir.write("data/p.csv", price_csv(24));
  dir.write("cluster.yaml", region_with("    electricity: {prices: data/p.csv}\n"));
  auto r = load_cluster_file((dir.path() / "cluster.yaml").string(), cluster_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().regions[0].electricity_usd_per_mwh.hours(), 24u);
}

TEST(ClusterYaml, ExampleTwoRegionLoads) {
  const std::string root = FRUGAL_SOURCE_DIR;
  for (const char* f : {"/data/prices/US-CAL-CISO/2023.csv", "/data/carbon/US-CAL-CISO/2023.csv",
                        "/data/prices/US-TEX-ERCO/2023.csv", "/data/carbon/US-TEX-ERCO/2023.csv"})
    if (!std::filesystem::exists(root + f)) GTEST_SKIP() << "missing " << root << f;
  const ClusterSpec c = load_example("two-region.yaml");
  ASSERT_EQ(c.regions.size(), 2u);
  EXPECT_EQ(c.epoch_unix_s, 1672531200);
  EXPECT_EQ(c.storage_tiers.size(), 3u);
  EXPECT_EQ(c.total_gpus(), 640);

  const Region& west = c.regions[0];
  const Region& south = c.regions[1];
  EXPECT_EQ(west.name, "us-west");
  EXPECT_EQ(west.timezone, "America/Los_Angeles");
  EXPECT_EQ(west.price_zone, "US-CAL-CISO");
  EXPECT_DOUBLE_EQ(west.pue, 1.2);
  EXPECT_DOUBLE_EQ(west.time_of_use.discount, 0.4);
  EXPECT_TRUE(west.time_of_use.weekends);
  EXPECT_EQ(south.timezone, "America/Chicago");
  EXPECT_EQ(south.price_zone, "US-TEX-ERCO");
  EXPECT_DOUBLE_EQ(south.pue, 1.5);
  EXPECT_DOUBLE_EQ(south.time_of_use.discount, 0.3);
  for (const Region* reg : {&west, &south}) {
    EXPECT_EQ(reg->electricity_usd_per_mwh.hours(), 8760u) << reg->name;
    EXPECT_EQ(reg->electricity_usd_per_mwh.start(), 1672531200) << reg->name;
    EXPECT_EQ(reg->carbon_g_per_kwh.hours(), 8760u) << reg->name;
    EXPECT_EQ(reg->offpeak.hours(), 8760u) << reg->name;
    EXPECT_EQ(reg->offpeak.start(), 1672531200) << reg->name;
    // Off-peak some of the time, but not all of it.
    const double share =
        reg->offpeak.integral(reg->offpeak.start(), reg->offpeak.end()) / (3600.0 * 8760);
    EXPECT_GT(share, 0.2) << reg->name;
    EXPECT_LT(share, 0.8) << reg->name;
  }

  // Mixed capacity; every pool's region and at least one of each kind.
  bool kinds[3] = {false, false, false};
  for (const Pool& p : c.pools) kinds[static_cast<int>(p.capacity)] = true;
  EXPECT_TRUE(kinds[0] && kinds[1] && kinds[2]);
  // Jobs of up to 64 GPUs fit on one model within one pool.
  std::map<std::pair<uint32_t, GpuModelId>, int64_t> per_pool_model;
  for (const NodeSpec& n : c.nodes)
    if (n.gpus > 0) per_pool_model[{n.pool, n.model}] += n.gpus;
  int64_t largest = 0;
  for (const auto& [key, gpus] : per_pool_model) largest = std::max(largest, gpus);
  EXPECT_GE(largest, 64);
  EXPECT_GE((per_pool_model[{0, *cluster_catalog().find("H100")}]), 64);
  // Host overhead on every node; some CPU-only nodes.
  int cpu_only = 0;
  for (const NodeSpec& n : c.nodes) {
    EXPECT_GT(n.overhead_w, 0) << n.name;
    cpu_only += n.gpus == 0;
  }
  EXPECT_GT(cpu_only, 0);
  // The on-demand A100 pool overrides the catalog's list price.
  bool override_seen = false;
  for (const Pool& p : c.pools)
    for (const RentalOverride& o : p.rental)
      override_seen = override_seen || (o.model == cluster_catalog().find("A100-80GB") &&
                                        p.capacity == Capacity::kOnDemand);
  EXPECT_TRUE(override_seen);
}

TEST(ClusterYaml, ExampleA100_640Loads) {
  const ClusterSpec c = load_example("a100-640.yaml");
  EXPECT_EQ(c.nodes.size(), 80u);
  EXPECT_EQ(c.total_gpus(), 640);
  for (const auto& n : c.nodes) EXPECT_EQ(n.model, cluster_catalog().find("A100-80GB"));
}

}  // namespace
}  // namespace frugal
