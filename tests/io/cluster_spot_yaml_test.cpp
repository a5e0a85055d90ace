// Spot pools in the YAML cluster spec: accepted with their defaults and terms, and each bad
// term refused with an error naming the field.
#include <gtest/gtest.h>

#include <string>

#include "io/catalog_yaml.h"
#include "io/cluster_yaml.h"

namespace frugal {
namespace {

const GpuCatalog& spot_catalog() {
  static const GpuCatalog cat = [] {
    auto r = load_builtin_catalog();
    return r.ok() ? r.value() : GpuCatalog{};
  }();
  return cat;
}

// A reserved pool and a spot pool carrying `extra` (indented YAML lines): the acceptance
// check's cluster (shared/checks/12-live-capacity) when `extra` is empty.
std::string spot_cluster(const std::string& extra = "") {
  return "regions:\n  - name: default\n    pools:\n"
         "      - name: reserved\n        capacity: reserved\n        node_groups:\n"
         "          - {name: r, count: 4, gpu_model: A100-80GB, gpus_per_node: 8}\n"
         "      - name: spot\n        capacity: spot\n" +
         extra +
         "        node_groups:\n"
         "          - {name: s, count: 40, gpu_model: A100-80GB, gpus_per_node: 8}\n";
}

std::string spot_error_of(const std::string& text) {
  auto r = parse_cluster_yaml(text, "cluster.yaml", spot_catalog());
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? std::string() : r.error().message;
}

void expect_spot_error(const std::string& text, const std::string& needle) {
  const std::string msg = spot_error_of(text);
  EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg << "\nwanted: " << needle;
}

TEST(ClusterSpotYaml, AcceptsASpotPoolWithDefaultTerms) {
  auto r = parse_cluster_yaml(spot_cluster(), "cluster.yaml", spot_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const ClusterSpec& c = r.value();
  ASSERT_EQ(c.pools.size(), 2u);
  EXPECT_TRUE(c.has_spot());
  const Pool& spot = c.pools[1];
  EXPECT_EQ(spot.capacity, Capacity::kSpot);
  EXPECT_TRUE(rented(spot.capacity));
  EXPECT_DOUBLE_EQ(spot.spot.price_factor, 0.35);
  EXPECT_DOUBLE_EQ(spot.spot.reclaim_notice_s, 120);
  EXPECT_DOUBLE_EQ(spot.spot.reclaim_rate_per_node_hour, 0.01);
  EXPECT_TRUE(spot.spot.reclaim_rate_series.empty());
  EXPECT_FALSE(spot.spot.allow_core);
  EXPECT_EQ(c.nodes.size(), 44u);
  // Priced at 0.35 of the model's on-demand rate.
  const GpuModelId a100 = *spot_catalog().find("A100-80GB");
  EXPECT_DOUBLE_EQ(rental_rate_usd_h(spot, spot_catalog().at(a100), a100),
                   0.35 * spot_catalog().at(a100).on_demand_usd_h);
}

TEST(ClusterSpotYaml, ReadsTermsAndAnHourlySeries) {
  auto r = parse_cluster_yaml(spot_cluster("        spot_price_factor: 0.5\n"
                                           "        reclaim_notice_s: 30\n"
                                           "        reclaim_rate_per_node_hour: [0, 0.02, 0.04]\n"
                                           "        spot_allow_core: true\n"
                                           "        rental: {A100-80GB: {on_demand_usd_h: 4}}\n"),
                              "cluster.yaml", spot_catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Pool& spot = r.value().pools[1];
  EXPECT_DOUBLE_EQ(spot.spot.price_factor, 0.5);
  EXPECT_DOUBLE_EQ(spot.spot.reclaim_notice_s, 30);
  ASSERT_EQ(spot.spot.reclaim_rate_series.hours(), 3u);
  EXPECT_DOUBLE_EQ(spot.spot.reclaim_rate_series.at(3600 + 5), 0.02);
  EXPECT_DOUBLE_EQ(spot.spot.mean_rate(), 0.02);
  EXPECT_TRUE(spot.spot.allow_core);
  const GpuModelId a100 = *spot_catalog().find("A100-80GB");
  EXPECT_DOUBLE_EQ(rental_rate_usd_h(spot, spot_catalog().at(a100), a100), 2.0);  // 0.5 × override
}

TEST(ClusterSpotYaml, RefusesBadTermsNamingTheField) {
  const std::string at = "regions[0].pools[1].";
  expect_spot_error(spot_cluster("        spot_price_factor: 0\n"),
                    at + "spot_price_factor: must be above 0 and at most 1");
  expect_spot_error(spot_cluster("        spot_price_factor: 1.2\n"), at + "spot_price_factor");
  expect_spot_error(spot_cluster("        spot_price_factor: cheap\n"),
                    at + "spot_price_factor: expected a number");
  expect_spot_error(spot_cluster("        reclaim_notice_s: -1\n"),
                    at + "reclaim_notice_s: must be between 0 and 86400, got -1");
  expect_spot_error(spot_cluster("        reclaim_rate_per_node_hour: -0.01\n"),
                    at + "reclaim_rate_per_node_hour: must be between 0 and 1000, got -0.01");
  expect_spot_error(spot_cluster("        reclaim_rate_per_node_hour: [0.01, -1]\n"),
                    at + "reclaim_rate_per_node_hour[1]: must be between 0 and 1000, got -1");
  expect_spot_error(spot_cluster("        reclaim_rate_per_node_hour: []\n"),
                    at + "reclaim_rate_per_node_hour: a list of hourly reclaim rates needs 1");
  expect_spot_error(spot_cluster("        spot_allow_core: maybe\n"),
                    at + "spot_allow_core: expected true or false");
  // Spot terms on a pool that is not spot.
  expect_spot_error(
      "regions:\n  - name: r\n    pools:\n      - name: p\n        capacity: on_demand\n"
      "        reclaim_notice_s: 60\n        node_groups:\n"
      "          - {name: g, count: 1, gpu_model: H100, gpus_per_node: 8}\n",
      "regions[0].pools[0].reclaim_notice_s: only a pool of capacity spot takes "
      "reclaim_notice_s");
}

}  // namespace
}  // namespace frugal
