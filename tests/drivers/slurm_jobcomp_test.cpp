// jobcomp/filetxt records (recorded from the local test cluster) and their accounting in
// the ledger.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "drivers/slurm_accounting.h"
#include "drivers/slurm_inventory.h"
#include "drivers/slurm_parse.h"
#include "io/catalog_yaml.h"

namespace frugal {
namespace {

std::string jobcomp_data(const std::string& name) {
  std::ifstream in(std::string(FRUGAL_SOURCE_DIR) + "/tests/data/slurm/" + name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SlurmJobcomp, ParsesRecordedRecords) {
  auto r = parse_jobcomp(jobcomp_data("jobcomp.log"), "jobcomp.log");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& v = r.value();
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0].job_id, 2);
  EXPECT_EQ(v[0].name, "shard3");
  EXPECT_EQ(v[0].user, "root");
  EXPECT_EQ(v[0].state, "COMPLETED");
  EXPECT_EQ(v[0].nodes, (std::vector<std::string>{"gpu1"}));
  EXPECT_EQ(v[0].start_unix, 1796014873);  // 2026-11-30T05:01:13 (UTC controller)
  EXPECT_EQ(v[0].end_unix - v[0].start_unix, 6);
  EXPECT_EQ(v[0].gpus_from_tres, -1);  // no gres in Tres without slurmdbd
  EXPECT_TRUE(v[0].ran());
  EXPECT_EQ(v[2].state, "CANCELLED");  // cancelled while pending: never ran
  EXPECT_FALSE(v[2].ran());
  EXPECT_EQ(v[3].state, "PENDING");  // a requeued run
  EXPECT_TRUE(v[3].ran());
  auto shifted =
      parse_jobcomp(jobcomp_data("jobcomp.log"), "jobcomp.log", 3600);  // UTC+1 controller
  ASSERT_TRUE(shifted.ok());
  EXPECT_EQ(shifted.value()[0].start_unix, 1796014873 - 3600);
}

TEST(SlurmJobcomp, ErrorsNameLineAndKey) {
  auto r = parse_jobcomp("JobId=3 StartTime=2026-13-01T00:00:00\n", "x.log");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "x.log:1: StartTime: cannot read '2026-13-01T00:00:00'");
  auto n = parse_jobcomp("\nName=a JobState=COMPLETED\n", "y.log");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().message, "y.log:2: no JobId");
}

TEST(SlurmJobcomp, TresWithGpusCountsThem) {
  auto r = parse_jobcomp(
      "JobId=9 JobState=COMPLETED StartTime=2026-11-30T05:00:00 EndTime=2026-11-30T06:00:00 "
      "NodeList=gpu[1-2] Tres=cpu=2,node=2,billing=2,gres/gpu=4,gres/gpu:a100=4\n",
      "t");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value()[0].gpus_from_tres, 4);
  EXPECT_EQ(r.value()[0].gpu_type_from_tres, "a100");
  EXPECT_EQ(r.value()[0].nodes.size(), 2u);
}

TEST(SlurmJobcomp, GresLogRoundTrip) {
  SlurmJob j;
  j.id = 12;
  j.start_time = 100;
  j.nodes = {"gpu1", "gpu2"};
  j.gres_alloc = {{"gpu", "a100", 2, {0, 3}}, {"gpu", "a100", 2, {1, 2}}};
  const std::string line = gres_log_line(j);
  EXPECT_EQ(line,
            "JobId=12 Start=100 Nodes=gpu1,gpu2 Gres=gpu:a100:2(IDX:0,3);gpu:a100:2(IDX:1,2)");
  auto log = parse_gres_log(line + "\n", "g");
  ASSERT_TRUE(log.ok()) << log.error().message;
  const auto& items = log.value().at({12, 100});
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1].indices, (std::vector<int>{1, 2}));
  EXPECT_FALSE(parse_gres_log("JobId=1 Start=5 Nodes=gpu[1-2] Gres=gpu:1\n", "g").ok());
}

// The recorded runs on the recorded inventory: GPU-hours by hand, every dollar once.
TEST(SlurmAccounting, RecordedRunsFeedTheLedger) {
  auto catalog = load_builtin_catalog();
  ASSERT_TRUE(catalog.ok());
  auto nodes = parse_nodes_json(jobcomp_data("nodes.json"), "nodes.json");
  ASSERT_TRUE(nodes.ok());
  SlurmConfig cfg;
  auto cluster = cluster_from_slurm(nodes.value(), cfg, catalog.value());
  ASSERT_TRUE(cluster.ok());
  auto records = parse_jobcomp(jobcomp_data("jobcomp.log"), "jobcomp.log");
  ASSERT_TRUE(records.ok());
  auto gres = parse_gres_log(jobcomp_data("gres.log"), "gres.log");
  ASSERT_TRUE(gres.ok()) << gres.error().message;
  auto a = attribute_jobcomp(records.value(), gres.value(), cluster.value(), catalog.value(), cfg);
  ASSERT_TRUE(a.ok()) << a.error().message;
  const SlurmAttribution& r = a.value();
  EXPECT_EQ(r.records, 7u);
  EXPECT_EQ(r.runs, 5u);               // jobs 2, 1, 6 (requeued run), 3, 5
  EXPECT_EQ(r.runs_without_gpus, 1u);  // job 3: no GRES anywhere
  EXPECT_TRUE(r.warnings.empty());
  // h100 2 x 6 s + shard 3/8 x 6 s + a100 1 x 2 s + h100 2 x 3 s
  const double gpu_s = 12 + 2.25 + 2 + 6;
  EXPECT_NEAR(r.gpu_hours, gpu_s / 3600, 1e-9);
  EXPECT_EQ(r.last_unix - r.first_unix, 12);  // 05:01:13 .. 05:01:25
  ASSERT_EQ(r.ledger.by_team.count("root"), 1u);
  EXPECT_NEAR(r.ledger.by_team.at("root").gpu_hours, gpu_s / 3600, 1e-9);
  EXPECT_NEAR(r.ledger.unattributed.gpu_hours, (24 * 12 - gpu_s) / 3600, 1e-9);
  EXPECT_GT(r.ledger.by_team.at("root").total_usd(), 0);
  EXPECT_NEAR(r.ledger.total.total_usd(),
              r.ledger.by_team.at("root").total_usd() + r.ledger.unattributed.total_usd(), 1e-9);
  // Without the GRES log the records alone say nothing about GPUs.
  auto none = attribute_jobcomp(records.value(), {}, cluster.value(), catalog.value(), cfg);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none.value().runs_without_gpus, 5u);
  EXPECT_EQ(none.value().gpu_hours, 0);
}

// The recorded test cluster's nodes (tests/data/slurm/nodes.json) as a cluster.
Result<ClusterSpec> recorded_cluster(const GpuCatalog& catalog) {
  auto nodes = parse_nodes_json(jobcomp_data("nodes.json"), "nodes.json");
  if (!nodes.ok()) return nodes.error();
  return cluster_from_slurm(nodes.value(), SlurmConfig{}, catalog);
}

TEST(SlurmAccounting, UnknownNodeIsAnError) {
  auto catalog = load_builtin_catalog();
  ASSERT_TRUE(catalog.ok());
  auto cluster = recorded_cluster(catalog.value());
  ASSERT_TRUE(cluster.ok());
  auto rec = parse_jobcomp(
      "JobId=4 StartTime=2026-11-30T05:00:00 EndTime=2026-11-30T05:00:09 NodeList=gpu9\n", "j");
  ASSERT_TRUE(rec.ok());
  auto a = attribute_jobcomp(rec.value(), {}, cluster.value(), catalog.value(), SlurmConfig{});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message, "jobcomp record of job 4: node 'gpu9' is not in the cluster");
}

// Records given as jobcomp text, accounted on `cluster` (no GRES log); fails the test on a
// parse or accounting error.
SlurmAttribution attribute_text(const std::string& text, const ClusterSpec& cluster,
                                const GpuCatalog& catalog) {
  auto rec = parse_jobcomp(text, "j");
  EXPECT_TRUE(rec.ok()) << rec.error().message;
  if (!rec.ok()) return {};
  auto a = attribute_jobcomp(rec.value(), {}, cluster, catalog, SlurmConfig{});
  EXPECT_TRUE(a.ok()) << a.error().message;
  return a.ok() ? a.value() : SlurmAttribution{};
}

// Records whose times or GPUs cannot be a run are warned about and skipped: an Unknown or
// missing start (read as 1970, it costed a 56-year run), an end before the start (dropped
// without a word), more GPUs on a node than it has (reported as overlapping records).
TEST(SlurmAccounting, ImpossibleRecordsAreWarnedAndSkipped) {
  auto catalog = load_builtin_catalog();
  ASSERT_TRUE(catalog.ok());
  auto cluster = recorded_cluster(catalog.value());
  ASSERT_TRUE(cluster.ok());
  const SlurmAttribution r = attribute_text(
      "JobId=4 StartTime=Unknown EndTime=2026-11-30T05:00:09 NodeList=gpu1\n"
      "JobId=5 EndTime=2026-11-30T05:00:09 NodeList=gpu1\n"
      "JobId=6 StartTime=2026-11-30T05:00:09 EndTime=2026-11-30T05:00:00 NodeList=gpu1\n"
      "JobId=7 StartTime=2026-11-30T05:00:00 EndTime=2026-11-30T05:00:09 NodeList=gpu1 "
      "Tres=cpu=1,gres/gpu=99\n"
      "JobId=8 StartTime=2026-11-30T05:00:00 EndTime=2026-11-30T05:00:09 NodeList=gpu1 "
      "Tres=cpu=1,gres/gpu=1\n"
      "JobId=9 JobState=CANCELLED StartTime=Unknown EndTime=Unknown NodeList=(null)\n",
      cluster.value(), catalog.value());
  ASSERT_EQ(r.warnings.size(), 4u);
  EXPECT_EQ(r.warnings[0], "job 4: no StartTime in its record: run skipped");
  EXPECT_EQ(r.warnings[1], "job 5: no StartTime in its record: run skipped");
  EXPECT_EQ(r.warnings[2], "job 6: EndTime before StartTime in its record: run skipped");
  EXPECT_TRUE(r.warnings[3].find("job 7 run at") == 0 &&
              r.warnings[3].find("it holds 99 GPUs on gpu1, which has") != std::string::npos)
      << r.warnings[3];
  EXPECT_EQ(r.last_unix - r.first_unix, 9);  // job 8 (and 7's span) only
  EXPECT_NEAR(r.gpu_hours, 9.0 / 3600, 1e-12);
  // A GRES type that is not the node's GPU (gpu1 has A100s) is warned about and the run is
  // priced as the node's GPUs; an unmapped type says so too.
  const SlurmAttribution t = attribute_text(
      "JobId=10 StartTime=2026-11-30T05:00:00 EndTime=2026-11-30T05:00:09 NodeList=gpu1 "
      "Tres=cpu=1,gres/gpu=1,gres/gpu:h100=1\n"
      "JobId=11 StartTime=2026-11-30T05:00:00 EndTime=2026-11-30T05:00:09 NodeList=gpu2 "
      "Tres=cpu=1,gres/gpu=1,gres/gpu:k80=1\n"
      "JobId=12 StartTime=2026-11-30T05:00:00 EndTime=2026-11-30T05:00:09 NodeList=gpu2 "
      "Tres=cpu=1,gres/gpu=1,gres/gpu:a100=1\n",
      cluster.value(), catalog.value());
  ASSERT_EQ(t.warnings.size(), 2u);
  EXPECT_NE(t.warnings[0].find("job 10 run at"), std::string::npos);
  EXPECT_NE(t.warnings[0].find("GRES type 'h100' is not the GPU of gpu1 (A100-80GB)"),
            std::string::npos)
      << t.warnings[0];
  EXPECT_NE(t.warnings[1].find("'k80' is not the GPU of gpu2 (A100-80GB, and not in the "
                               "GPU map)"),
            std::string::npos)
      << t.warnings[1];
  EXPECT_NEAR(t.gpu_hours, 3 * 9.0 / 3600, 1e-12);  // all three priced
  // A negative GPU count in Tres is an error naming the line, not "no GPU information".
  auto neg = parse_jobcomp("JobId=3 NodeList=gpu1 Tres=cpu=1,gres/gpu=-4\n", "n.log");
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.error().message, "n.log:1: Tres: cannot read 'cpu=1,gres/gpu=-4'");
}

}  // namespace
}  // namespace frugal
