// Parsers of Slurm's host lists, GRES strings and JSON answers, on output recorded from the
// local test cluster (tests/data/slurm/, scripts/slurm-local.sh; Slurm 22.05.8).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "drivers/slurm_client.h"
#include "drivers/slurm_inventory.h"
#include "drivers/slurm_parse.h"
#include "io/catalog_yaml.h"

namespace frugal {
namespace {

std::string parse_data(const std::string& name) {
  std::ifstream in(std::string(FRUGAL_SOURCE_DIR) + "/tests/data/slurm/" + name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SlurmHostlist, ExpandsRangesListsAndPadding) {
  auto r = expand_hostlist("gpu[1-3,7],cpu01,n[08-10]");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value(), (std::vector<std::string>{"gpu1", "gpu2", "gpu3", "gpu7", "cpu01", "n08",
                                                 "n09", "n10"}));
  EXPECT_TRUE(expand_hostlist("(null)").value().empty());
  EXPECT_TRUE(expand_hostlist("").value().empty());
  auto bad = expand_hostlist("gpu[3-1]");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("3-1"), std::string::npos);
  EXPECT_FALSE(expand_hostlist("gpu[1-2").ok());
}

TEST(SlurmGres, ReadsTypedUntypedAndIndices) {
  auto r = parse_gres("gpu:h100:2(IDX:0-1),shard:h100:0(IDX:N/A)");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(r.value()[0].name, "gpu");
  EXPECT_EQ(r.value()[0].type, "h100");
  EXPECT_EQ(r.value()[0].count, 2);
  EXPECT_EQ(r.value()[0].indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.value()[1].count, 0);
  EXPECT_TRUE(r.value()[1].indices.empty());
  auto u = parse_gres("gres:gpu:3");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u.value()[0].type, "");
  EXPECT_EQ(u.value()[0].count, 3);
  auto idx = parse_gres("gpu:a100:3(IDX:0,2,5)");
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(idx.value()[0].indices, (std::vector<int>{0, 2, 5}));
  auto sock = parse_gres("gpu:a100:8(S:0-1)");
  ASSERT_TRUE(sock.ok());
  EXPECT_TRUE(sock.value()[0].indices.empty());
  EXPECT_FALSE(parse_gres("gpu:a100:2(IDX:0-1").ok());
  EXPECT_FALSE(parse_gres("gpu:a:b:c:4").ok());
}

TEST(SlurmJson, NodesFromRecordedAnswer) {
  auto r = parse_nodes_json(parse_data("nodes.json"), "nodes.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& n = r.value();
  ASSERT_EQ(n.size(), 4u);
  EXPECT_EQ(n[0].name, "gpu1");
  EXPECT_EQ(n[0].gpu_type, "a100");
  EXPECT_EQ(n[0].gpus, 8);
  EXPECT_EQ(n[0].shards, 64);
  EXPECT_EQ(n[0].state, "mixed");  // a shard job ran there
  EXPECT_EQ(n[0].gpus_used, 0);    // GPUs carrying shards are not counted as used
  EXPECT_EQ(n[2].gpu_type, "h100");
  EXPECT_EQ(n[2].gpus, 4);
  EXPECT_EQ(n[2].gpus_used, 2);
  EXPECT_EQ(n[0].cpus, 16);
  EXPECT_EQ(n[0].memory_mb, 64000);
  EXPECT_EQ(n[0].features, (std::vector<std::string>{"a100"}));
  EXPECT_EQ(n[0].partitions, (std::vector<std::string>{"gpu"}));
  EXPECT_TRUE(n[2].usable());
  EXPECT_FALSE(n[3].usable());  // drained for "maintenance"
  EXPECT_EQ(n[3].reason, "maintenance");
}

TEST(SlurmJson, JobsFromRecordedAnswer) {
  auto r = parse_jobs_json(parse_data("jobs.json"), "jobs.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& j = r.value();
  ASSERT_EQ(j.size(), 5u);
  EXPECT_EQ(j[0].id, 1);
  EXPECT_EQ(j[0].name, "run-h100");
  EXPECT_TRUE(j[0].running());
  EXPECT_EQ(j[0].nodes, (std::vector<std::string>{"gpu3"}));
  ASSERT_EQ(j[0].gres_alloc.size(), 1u);
  EXPECT_EQ(j[0].gres_alloc[0].type, "h100");
  EXPECT_EQ(j[0].gres_alloc[0].count, 2);
  EXPECT_EQ(j[0].gres_alloc[0].indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(j[1].gres_alloc[0].name, "shard");
  EXPECT_EQ(j[1].gres_alloc[0].count, 3);
  EXPECT_TRUE(j[2].pending());
  EXPECT_TRUE(j[2].held());
  EXPECT_EQ(j[3].reason, "BeginTime");
  EXPECT_EQ(j[3].eligible_time - j[3].submit_time, 3600);  // sbatch --begin=now+3600
  EXPECT_FALSE(j[3].held());
  EXPECT_EQ(j[4].name, "rest-held");
  EXPECT_EQ(j[4].user, "root");
  EXPECT_TRUE(j[4].requeue);
}

TEST(SlurmJson, PartitionsAndErrors) {
  auto p = parse_partitions_json(parse_data("partitions.json"), "partitions.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p.value().size(), 1u);
  EXPECT_EQ(p.value()[0].name, "gpu");
  EXPECT_TRUE(p.value()[0].is_default);
  EXPECT_EQ(p.value()[0].nodes.size(), 4u);
  auto e = parse_jobs_json(
      R"({"errors":[{"error_code":2017,"error":"Invalid job id specified"}],"jobs":[]})",
      "GET /job/99");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("GET /job/99: Slurm error 2017: Invalid job id"),
            std::string::npos);
  EXPECT_FALSE(parse_nodes_json("not json", "x").ok());
  EXPECT_FALSE(parse_nodes_json(R"({"nodes": 3})", "x").ok());
}

TEST(SlurmInventory, MapsGresTypesToCatalogModels) {
  auto catalog = load_builtin_catalog();
  ASSERT_TRUE(catalog.ok());
  auto nodes = parse_nodes_json(parse_data("nodes.json"), "nodes.json");
  ASSERT_TRUE(nodes.ok());
  SlurmConfig cfg;
  auto spec = cluster_from_slurm(nodes.value(), cfg, catalog.value(), "gpu");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ASSERT_EQ(spec.value().nodes.size(), 4u);
  EXPECT_EQ(catalog.value().at(spec.value().nodes[0].model).name, "A100-80GB");
  EXPECT_EQ(catalog.value().at(spec.value().nodes[3].model).name, "H100");
  EXPECT_EQ(spec.value().total_gpus(), 24);
  cfg.gpu_map = {{"H100", "h100", ""}};
  auto unmapped = cluster_from_slurm(nodes.value(), cfg, catalog.value());
  ASSERT_FALSE(unmapped.ok());
  EXPECT_NE(unmapped.error().message.find("gpu1: GPU type 'a100'"), std::string::npos);
  EXPECT_FALSE(cluster_from_slurm(nodes.value(), SlurmConfig{}, catalog.value(), "nope").ok());
}

// Unreachable slurmrestd: an error naming the request, not an exception or a hang.
TEST(SlurmClientErrors, UnreachableRestNamesTheRequest) {
  SlurmConfig cfg;
  cfg.rest_url = "http://127.0.0.1:9";  // discard port: nothing listens
  cfg.jwt = "token-not-needed";
  cfg.timeout_s = 2;
  SlurmClient c(cfg);
  auto n = c.nodes();
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("slurmrestd GET /slurm/v0.0.38/nodes"), std::string::npos)
      << n.error().message;
  EXPECT_NE(n.error().message.find("127.0.0.1:9"), std::string::npos);
  const Status s = c.release(42);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("job/42"), std::string::npos);
  SlurmConfig no_scontrol = cfg;
  no_scontrol.scontrol = "/nonexistent/scontrol";
  SlurmClient c2(no_scontrol);
  const Status rq = c2.requeue(42);
  ASSERT_FALSE(rq.ok());
  EXPECT_NE(rq.error().message.find("/nonexistent/scontrol requeue 42"), std::string::npos)
      << rq.error().message;
}

}  // namespace
}  // namespace frugal
