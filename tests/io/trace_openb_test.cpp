// The openb pod reader (both layouts) and the openb node list.

#include <gtest/gtest.h>

#include <algorithm>

#include "io/cluster_yaml.h"
#include "io/trace_reader.h"
#include "reader_test_util.h"

namespace frugal {
namespace {

using testing::options;
using testing::shared_data;
using testing::TempDir;
using testing::test_catalog;

const JobSpec* find_job(const Trace& t, const std::string& id) {
  for (const auto& j : t.jobs)
    if (j.id == id) return &j;
  return nullptr;
}

TEST(TraceOpenb, ReadsRealDefaultPodListAndItsNodeList) {
  FRUGAL_REQUIRE_SHARED_DATA();
  auto trace =
      read_trace((shared_data() / "traces/openb/openb_pod_list_default.csv").string(), options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const Trace& t = trace.value();
  EXPECT_EQ(t.format, "openb");
  ASSERT_EQ(t.jobs.size(), 8152u);

  const JobSpec* frac = find_job(t, "openb-pod-0001");
  ASSERT_NE(frac, nullptr);
  EXPECT_EQ(frac->gpus, 1);
  EXPECT_EQ(frac->gpu_milli, 460);
  EXPECT_TRUE(frac->fractional());
  EXPECT_EQ(frac->cpu_milli, 6000);
  EXPECT_EQ(frac->memory_mib, 12288);
  EXPECT_EQ(frac->tier, Tier::kImportant);  // qos LS
  EXPECT_DOUBLE_EQ(frac->submit, 427061);
  EXPECT_DOUBLE_EQ(frac->duration, 12902960 - 427061);
  EXPECT_TRUE(frac->allowed_models.empty());

  const JobSpec* pending = find_job(t, "openb-pod-0061");  // no scheduled_time
  ASSERT_NE(pending, nullptr);
  EXPECT_DOUBLE_EQ(pending->duration, 10001403 - 10001278);
  EXPECT_EQ(pending->tier, Tier::kGeneral);  // qos BE

  const JobSpec* cpu = find_job(t, "openb-pod-0005");  // num_gpu 0, gpu_milli 0
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->gpus, 0);
  EXPECT_EQ(cpu->total_milli(), 0);

  const JobSpec* gang = find_job(t, "openb-pod-0017");
  ASSERT_NE(gang, nullptr);
  EXPECT_EQ(gang->gpus, 8);
  EXPECT_EQ(gang->gpu_milli, kMilliPerGpu);

  const size_t cpu_only = static_cast<size_t>(
      std::count_if(t.jobs.begin(), t.jobs.end(), [](const JobSpec& j) { return j.gpus == 0; }));
  EXPECT_EQ(cpu_only, 1088u);

  ASSERT_TRUE(t.cluster.has_value());
  EXPECT_EQ(t.cluster->nodes.size(), 1213u);
  EXPECT_EQ(t.cluster->regions.size(), 1u);
  EXPECT_EQ(t.cluster->nodes[0].name, "openb-node-0000");
  EXPECT_EQ(t.cluster->nodes[0].model, *test_catalog().find("P100"));
  EXPECT_EQ(t.cluster->nodes[0].gpus, 2);
  EXPECT_EQ(t.cluster->nodes[0].cpu_milli, 64000);
}

TEST(TraceOpenb, ResolvesGpuSpecListsWithDuplicates) {
  FRUGAL_REQUIRE_SHARED_DATA();
  auto trace =
      read_trace((shared_data() / "traces/openb/openb_pod_list_gpuspec20.csv").string(), options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const JobSpec* j = find_job(trace.value(), "openb-pod-0630");  // V100M16|V100M32|V100M32
  ASSERT_NE(j, nullptr);
  const auto& cat = test_catalog();
  EXPECT_EQ(j->allowed_models,
            (std::vector<GpuModelId>{*cat.find("V100M16"), *cat.find("V100M32")}));
}

TEST(TraceOpenb, ReadsEveryRealVariant) {
  FRUGAL_REQUIRE_SHARED_DATA();
  const std::pair<const char*, size_t> files[] = {
      {"cpu050", 7439},     {"cpu100", 7853},    {"gpushare20", 8152}, {"gpushare40", 8152},
      {"gpushare60", 8152}, {"gpuspec10", 8152}, {"multigpu20", 8324}, {"multigpu30", 8508}};
  for (const auto& [name, jobs] : files) {
    const auto path =
        shared_data() / "traces/openb" / ("openb_pod_list_" + std::string(name) + ".csv");
    auto trace = read_trace(path.string(), options());
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    EXPECT_EQ(trace.value().jobs.size(), jobs) << name;
  }
}

TEST(TraceOpenb, FiveColumnVariantHasRowIndexArrivalsAndNoEnd) {
  FRUGAL_REQUIRE_SHARED_DATA();
  auto trace = read_trace((shared_data() / "traces/openb/openb_pod_list_multigpu20.csv").string(),
                          options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const Trace& t = trace.value();
  ASSERT_EQ(t.jobs.size(), 8324u);
  EXPECT_DOUBLE_EQ(t.jobs[0].submit, 0);
  EXPECT_DOUBLE_EQ(t.jobs[1].submit, 1);
  EXPECT_EQ(t.jobs[1].gpu_milli, 460);
  EXPECT_DOUBLE_EQ(t.jobs[1].duration, 1e9);
  EXPECT_TRUE(t.cluster.has_value());
}

const char* kHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

TEST(TraceOpenb, UnknownGpuModelNamesFieldAndValue) {
  TempDir dir;
  auto trace = read_trace(
      dir.write("p.csv", std::string(kHeader) + "p0,1000,1024,1,1000,T4,LS,Running,0,10,0\n"
                                                "p1,1000,1024,1,1000,T4|B200,LS,Running,0,10,0\n"),
      options());
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("p.csv:3: field 'gpu_spec': unknown GPU model 'B200'"),
            std::string::npos)
      << trace.error().message;
}

TEST(TraceOpenb, RejectsBadSharesAndEndsBeforeStart) {
  TempDir dir;
  auto zero =
      read_trace(dir.write("z.csv", std::string(kHeader) + "p0,1000,1024,1,0,,LS,Running,0,10,0\n"),
                 options());
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("field 'gpu_milli'"), std::string::npos);
  auto back = read_trace(
      dir.write("b.csv", std::string(kHeader) + "p0,1000,1024,1,1000,,LS,Running,50,10,50\n"),
      options());
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("field 'deletion_time'"), std::string::npos);
  auto skip = read_trace(
      dir.write("s.csv", std::string(kHeader) + "p0,1000,1024,1,1000,,LS,Running,50,10,50\n" +
                             "p1,1000,1024,1,1000,,LS,Running,0,10,0\n"),
      options("", true));
  ASSERT_TRUE(skip.ok());
  EXPECT_EQ(skip.value().jobs.size(), 1u);
  EXPECT_EQ(skip.value().skipped_rows, 1u);
  EXPECT_FALSE(skip.value().cluster.has_value());  // no node list beside s.csv
}

TEST(OpenbNodes, ReadsAllNodesIncludingCpuOnly) {
  FRUGAL_REQUIRE_SHARED_DATA();
  auto spec = read_openb_nodes(
      (shared_data() / "traces/openb/openb_node_list_all_node.csv").string(), test_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec.value().nodes.size(), 1523u);
  const size_t cpu_only = static_cast<size_t>(
      std::count_if(spec.value().nodes.begin(), spec.value().nodes.end(),
                    [](const NodeSpec& n) { return n.gpus == 0 && n.model == kNoGpuModel; }));
  EXPECT_EQ(cpu_only, 310u);
  EXPECT_EQ(spec.value().pools.size(), 1u);
  EXPECT_EQ(spec.value().regions[0].name, "default");
  EXPECT_EQ(spec.value().regions[0].timezone, "UTC");
}

TEST(OpenbNodes, UnknownModelIsAnError) {
  TempDir dir;
  auto spec = read_openb_nodes(dir.write("n.csv",
                                         "sn,cpu_milli,memory_mib,gpu,model\n"
                                         "n0,1000,1024,8,G2\n"
                                         "n1,1000,1024,8,TPU\n"),
                               test_catalog());
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().message.find("n.csv:3: field 'model': unknown GPU model 'TPU'"),
            std::string::npos)
      << spec.error().message;
}

}  // namespace
}  // namespace frugal
