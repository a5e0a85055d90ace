#include "io/cluster_yaml.h"

#include <gtest/gtest.h>

#include <string>

#include "io/catalog_yaml.h"
#include "io/yaml_util.h"

namespace frugal {
namespace {

const GpuCatalog& catalog() {
  static const GpuCatalog cat = [] {
    auto r = load_builtin_catalog();
    return r.ok() ? r.value() : GpuCatalog{};
  }();
  return cat;
}

const char* kGood = R"(
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
  auto r = parse_cluster_yaml(kGood, "cluster.yaml", catalog());
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
  EXPECT_EQ(h.model, catalog().find("H100"));
  EXPECT_EQ(h.gpus, 8);
  EXPECT_EQ(h.cpu_milli, 96000);
  EXPECT_EQ(h.memory_mib, 1024 * 1024);

  EXPECT_EQ(c.nodes[4].name, "a100-0");
  EXPECT_EQ(c.nodes[4].model, catalog().find("A100-80GB"));
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
}

// Builds a one-group cluster whose group is `group` (a flow map body).
std::string one_group(const std::string& group) {
  return "regions:\n  - name: r\n    pools:\n      - name: p\n        node_groups:\n"
         "          - {" +
         group + "}\n";
}

std::string error_of(const std::string& text) {
  auto r = parse_cluster_yaml(text, "cluster.yaml", catalog());
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? std::string() : r.error().message;
}

void expect_error(const std::string& text, const std::string& needle) {
  const std::string msg = error_of(text);
  EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg << "\nwanted: " << needle;
  EXPECT_EQ(msg.rfind("cluster.yaml: ", 0), 0u) << msg;
}

TEST(ClusterYaml, OneGroupOk) {
  auto r = parse_cluster_yaml(one_group("name: g, count: 2, gpu_model: L4, gpus_per_node: 1"),
                              "c.yaml", catalog());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().nodes.size(), 2u);
}

TEST(ClusterYaml, RejectsBadCounts) {
  expect_error(one_group("name: g, count: -3, gpu_model: H100, gpus_per_node: 8"),
               "regions[0].pools[0].node_groups[0].count: must be between 1 and 100000, got -3");
  expect_error(one_group("name: g, count: 0, gpu_model: H100, gpus_per_node: 8"),
               "node_groups[0].count: must be between 1 and 100000, got 0");
  expect_error(one_group("name: g, count: 100001, gpu_model: H100, gpus_per_node: 8"),
               "got 100001");
  expect_error(one_group("name: g, count: 99999999999999999999999, gpu_model: H100, "
                         "gpus_per_node: 8"),
               "count: expected an integer");
  expect_error(one_group("name: g, count: 2.5, gpu_model: H100, gpus_per_node: 8"),
               "count: expected an integer");
  expect_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 65"),
               "gpus_per_node: must be between 0 and 64, got 65");
  expect_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: -1"),
               "gpus_per_node: must be between 0 and 64");
  expect_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 8, cpus: -4"),
               "node_groups[0].cpus: must be between 0 and");
  expect_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 8, "
                         "memory_gib: 1e30"),
               "node_groups[0].memory_gib: must be between 0 and");
  expect_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 8, cpus: .inf"),
               "cpus: must be a finite number");
}

TEST(ClusterYaml, RejectsUnknownModel) {
  const std::string msg =
      error_of(one_group("name: grp, count: 1, gpu_model: K80, gpus_per_node: 8"));
  EXPECT_NE(msg.find("regions[0].pools[0].node_groups[0].gpu_model: unknown GPU model 'K80'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("grp"), std::string::npos) << msg;
  EXPECT_NE(msg.find("known models: H200, H100"), std::string::npos) << msg;
}

TEST(ClusterYaml, RejectsMissingFields) {
  expect_error(one_group("name: g, count: 1, gpus_per_node: 8"),
               "node_groups[0].gpu_model: required field is missing");
  expect_error(one_group("name: g, gpu_model: H100, gpus_per_node: 8"),
               "node_groups[0].count: required field is missing");
  expect_error(one_group("name: g, count: 1, gpu_model: H100"),
               "node_groups[0].gpus_per_node: required field is missing");
  expect_error(one_group("count: 1, gpu_model: H100, gpus_per_node: 1"),
               "node_groups[0].name: required field is missing");
  expect_error("regions:\n  - name: r\n", "regions[0].pools: required field is missing");
  expect_error("regions:\n  - name: r\n    pools:\n      - name: p\n",
               "regions[0].pools[0].node_groups: required field is missing");
  expect_error("regions:\n  - pools: []\n", "regions[0].name: required field is missing");
}

TEST(ClusterYaml, RejectsUnknownKeys) {
  expect_error(one_group("name: g, count: 1, gpu_model: H100, gpus_per_node: 8, gpus: 8"),
               "regions[0].pools[0].node_groups[0]: unknown key(s) 'gpus'");
  expect_error("regions:\n  - name: r\n    price: 3\n    pools: []\n",
               "regions[0]: unknown key(s) 'price'");
  expect_error("region: []\n", "unknown key(s) 'region'");
}

TEST(ClusterYaml, RejectsDuplicatesAndEmpties) {
  expect_error(
      "regions:\n"
      "  - {name: r, pools: [{name: p, node_groups: [{name: a, count: 1, gpus_per_node: 0}]}]}\n"
      "  - {name: r, pools: [{name: q, node_groups: [{name: b, count: 1, gpus_per_node: 0}]}]}\n",
      "regions[1].name: duplicate region name 'r'");
  expect_error(
      "regions:\n"
      "  - {name: r, pools: [{name: p, node_groups: [{name: a, count: 1, gpus_per_node: 0}]},\n"
      "                      {name: p, node_groups: [{name: b, count: 1, gpus_per_node: 0}]}]}\n",
      "regions[0].pools[1].name: duplicate pool name 'p'");
  expect_error(
      "regions:\n"
      "  - {name: r, pools: [{name: p, node_groups: [{name: a, count: 1, gpus_per_node: 0},\n"
      "                                              {name: a, count: 1, gpus_per_node: 0}]}]}\n",
      "node_groups[1].name: duplicate node group name 'a'");
  expect_error("regions: []\n", "regions: the cluster has no regions");
  expect_error("regions:\n  - {name: r, pools: []}\n", "regions[0].pools: region has no pools");
  expect_error("regions:\n  - {name: r, pools: [{name: p, node_groups: []}]}\n",
               "has no node groups");
  expect_error("regions:\n  - {name: r, timezone: '', pools: []}\n",
               "regions[0].timezone: must not be empty");
  expect_error("regions:\n  - {name: r, timezone: , pools: []}\n",
               "regions[0].timezone: must not be empty");
}

TEST(ClusterYaml, RejectsGarbage) {
  expect_error("", "empty document");
  expect_error("regions: [ {name: x", "invalid YAML");
  expect_error("- 1\n- 2\n", "expected a map");
  expect_error("regions: {name: r}\n", "regions: expected a list");
  expect_error("regions:\n  - name: [a, b]\n    pools: []\n", "regions[0].name: expected a text");
}

ClusterSpec load_example(const std::string& name) {
  const std::string path = FRUGAL_SOURCE_DIR "/examples/clusters/" + name;
  auto text = yamlio::read_text_file(path);
  EXPECT_TRUE(text.ok()) << path;
  if (!text.ok()) return {};
  auto r = parse_cluster_yaml(text.value(), path, catalog());
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
    for (int i = 0; i < 4; ++i) seen[i] = seen[i] || n.model == catalog().find(models[i]);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(seen[i]) << models[i];
}

TEST(ClusterYaml, ExampleA100_640Loads) {
  const ClusterSpec c = load_example("a100-640.yaml");
  EXPECT_EQ(c.nodes.size(), 80u);
  EXPECT_EQ(c.total_gpus(), 640);
  for (const auto& n : c.nodes) EXPECT_EQ(n.model, catalog().find("A100-80GB"));
}

}  // namespace
}  // namespace frugal
