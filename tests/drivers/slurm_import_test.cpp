// `frugal import slurm`: Slurm accounting (hand-written sacct --json fixtures in 22.05's schema,
// jobcomp records recorded from the local test cluster) as trace jobs.
#include "drivers/slurm_import.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "drivers/sacct_json.h"
#include "drivers/slurm_parse.h"
#include "io/catalog_yaml.h"
#include "io/trace_reader.h"
#include "io/trace_writer.h"

namespace frugal {
namespace {

constexpr double kT = 1796018400;  // 2026-11-30T06:00:00Z: the sacct fixture's hour

std::string import_data(const std::string& name) {
  std::ifstream in(std::string(FRUGAL_SOURCE_DIR) + "/tests/data/slurm/" + name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class SlurmImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = load_builtin_catalog();
    ASSERT_TRUE(c.ok()) << c.error().message;
    catalog = std::move(c).value();
    opts.reference = *catalog.find("A100-80GB");
  }
  GpuModelId model(const char* name) const { return *catalog.find(name); }
  double speed(const char* name, JobClass cls = JobClass::kPretrain) const {
    return catalog.relative_speed(model(name), opts.reference, cls);
  }
  Result<SlurmImport> sacct(const std::string& file) const {
    auto records = parse_sacct_json(import_data(file), file);
    if (!records.ok()) return records.error();
    return import_slurm(records.value(), catalog, map, opts);
  }
  Result<SlurmImport> jobcomp(const std::string& text, const GresLog& gres = {}) const {
    auto records = parse_jobcomp(text, "jobcomp.log");
    if (!records.ok()) return records.error();
    return import_slurm(records_from_jobcomp(records.value(), gres, "jobcomp.log"), catalog, map,
                        opts);
  }
  static std::map<std::string, JobSpec> by_id(const SlurmImport& got) {
    std::map<std::string, JobSpec> out;
    for (const JobSpec& j : got.jobs) out[j.id] = j;
    return out;
  }

  GpuCatalog catalog;
  SlurmImportMap map;
  SlurmImportOptions opts;
};

TEST_F(SlurmImportTest, SacctJobsKeepGpusTimesTiersAndCountWhatIsLeftOut) {
  auto got = sacct("sacct_2205.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  const SlurmImport& r = got.value();
  EXPECT_EQ(r.records, 10u);
  EXPECT_EQ(r.epoch_unix_s, kT);  // first submission (T+10) floored to the hour
  EXPECT_EQ(r.never_started, 2);  // cancelled while pending: 103 (start 0), 107 (start = end)
  EXPECT_EQ(r.unfinished, 1);     // 104: running (no end)
  EXPECT_EQ(r.without_gpus, 1);   // 105: CPU-only
  auto jobs = by_id(r);
  ASSERT_EQ(jobs.size(), 5u);
  ASSERT_EQ(r.jobs.front().id, "101");  // by submission
  const JobSpec& j = jobs.at("101");
  EXPECT_EQ(j.name, "train-llm");
  EXPECT_EQ(j.team, "nlp");
  EXPECT_EQ(j.tier, Tier::kCore);  // QOS high
  EXPECT_EQ(j.gpus, 8);
  EXPECT_EQ(j.gpu_milli, kMilliPerGpu);
  EXPECT_DOUBLE_EQ(j.submit, 10);
  EXPECT_DOUBLE_EQ(j.recorded_start, 70);
  EXPECT_DOUBLE_EQ(j.recorded_end, 3670);
  EXPECT_EQ(j.recorded_restarts, 0);
  EXPECT_DOUBLE_EQ(j.duration, 3600 * speed("H100"));  // converted to A100-80GB
  EXPECT_DOUBLE_EQ(j.estimate, 120 * 60 * speed("H100"));
  EXPECT_TRUE(j.allowed_models.empty());  // no --sinfo, no map: any model
  EXPECT_EQ(r.final_states.at("COMPLETED"), 3);
  EXPECT_EQ(r.final_states.at("TIMEOUT"), 1);
  EXPECT_EQ(r.final_states.at("FAILED"), 1);
}

TEST_F(SlurmImportTest, SacctRequeuedJobIsOneJob) {
  auto got = sacct("sacct_2205.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  const JobSpec j = by_id(got.value()).at("102");
  EXPECT_EQ(j.recorded_restarts, 1);
  EXPECT_DOUBLE_EQ(j.submit, 100);  // the first record's, not the requeue's
  EXPECT_DOUBLE_EQ(j.recorded_start, 200);
  EXPECT_DOUBLE_EQ(j.recorded_end, 1600);
  EXPECT_DOUBLE_EQ(j.duration, 600 + 600);  // both runs, on A100-80GB (the reference)
  EXPECT_EQ(j.name, "finetune");            // ended COMPLETED
  EXPECT_EQ(j.team, "vision");
  EXPECT_EQ(j.tier, Tier::kGeneral);  // QOS normal, partition not mapped
}

TEST_F(SlurmImportTest, ArrayTasksAreJobsAndFinalStateIsInTheName) {
  auto m = parse_import_map_yaml(
      "classes: {partition: {debug: eval}}\ntiers: {partition: {debug: important}}\n"
      "teams: user\n",
      "map.yaml", catalog);
  ASSERT_TRUE(m.ok()) << m.error().message;
  map = m.value();
  auto got = sacct("sacct_2205.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  auto jobs = by_id(got.value());
  ASSERT_TRUE(jobs.count("200_0") && jobs.count("200_1"));
  EXPECT_EQ(jobs.at("200_0").name, "sweep");
  EXPECT_EQ(jobs.at("200_1").name, "sweep [TIMEOUT]");
  EXPECT_EQ(jobs.at("200_1").job_class, JobClass::kEval);
  EXPECT_EQ(jobs.at("200_1").tier, Tier::kImportant);
  EXPECT_EQ(jobs.at("200_1").team, "dave");  // teams: user
  EXPECT_DOUBLE_EQ(jobs.at("200_1").duration, 7200 * speed("L4", JobClass::kEval));
  EXPECT_EQ(jobs.at("101").tier, Tier::kCore);  // QOS high wins over the partition table
}

TEST_F(SlurmImportTest, ShardsAreGpuFractions) {
  auto got = sacct("sacct_2205.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  const JobSpec j = by_id(got.value()).at("106");
  EXPECT_EQ(j.gpus, 1);
  EXPECT_EQ(j.gpu_milli, 500);  // 4 of 8 shards
  EXPECT_EQ(j.name, "notebook [FAILED]");
  EXPECT_EQ(j.team, "gina");  // no account: the user
  EXPECT_EQ(j.tier, Tier::kGeneral);
}

TEST_F(SlurmImportTest, UnknownGresTypeIsAnErrorOrTheDocumentedDefaultNeverA100) {
  auto got = sacct("sacct_unknown_gres.json");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find("sacct_unknown_gres.json: jobs[1] (job 301): tres.allocated: "
                                     "GRES type 'quantum9' is not a GPU model"),
            std::string::npos)
      << got.error().message;
  opts.default_model = model("L4");
  got = sacct("sacct_unknown_gres.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got.value().default_model, 1);
  // 60 s on L4, converted to the A100-80GB reference: not 60 (as if it ran on an A100).
  EXPECT_DOUBLE_EQ(by_id(got.value()).at("301").duration, 60 * speed("L4"));
  EXPECT_NE(speed("L4"), 1.0);
  // A mapping makes it known.
  opts.default_model = kNoGpuModel;
  opts.gpu_map.insert(opts.gpu_map.begin(), GresMapping{"H200", "quantum9", ""});
  got = sacct("sacct_unknown_gres.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_DOUBLE_EQ(by_id(got.value()).at("301").duration, 60 * speed("H200"));
}

TEST_F(SlurmImportTest, SacctBadInputNamesFileJobFieldAndLine) {
  auto missing =
      parse_sacct_json(import_data("sacct_missing_field.json"), "sacct_missing_field.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "sacct_missing_field.json: jobs[1] (job 302): time.start: missing");
  // A comma removed after "name": "train-llm" on line 86: the parser stops on line 87.
  auto malformed = parse_sacct_json(import_data("sacct_malformed.json"), "sacct_malformed.json");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(
      malformed.error().message.rfind("sacct_malformed.json:87: not valid JSON (line 87, ", 0), 0u)
      << malformed.error().message;
  auto wrong_type = parse_sacct_json(
      R"({"jobs": [{"job_id": 5, "state": {"current": "COMPLETED"},
                    "time": {"submission": 1, "start": "soon", "end": 3}}]})",
      "t.json");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.error().message,
            "t.json: jobs[0] (job 5): time.start: expected an integer, got \"soon\"");
  auto no_id = parse_sacct_json(R"({"jobs": [{"name": "x"}]})", "t.json");
  ASSERT_FALSE(no_id.ok());
  EXPECT_EQ(no_id.error().message, "t.json: jobs[0]: job_id: missing");
  auto errors = parse_sacct_json(R"({"errors": [{"error": "Unable to connect to slurmdbd"}],
                                     "jobs": []})",
                                 "t.json");
  ASSERT_FALSE(errors.ok());
  EXPECT_NE(errors.error().message.find("Unable to connect to slurmdbd"), std::string::npos);
  auto bad_tres = parse_sacct_json(
      R"({"jobs": [{"job_id": 5, "state": {"current": "COMPLETED"},
                    "time": {"submission": 1, "start": 2, "end": 3},
                    "tres": {"allocated": [{"type": "gres", "name": "gpu", "count": "two"}]}}]})",
      "t.json");
  ASSERT_FALSE(bad_tres.ok());
  EXPECT_NE(bad_tres.error().message.find("t.json: jobs[0] (job 5): tres.allocated[0].count"),
            std::string::npos)
      << bad_tres.error().message;
}

TEST_F(SlurmImportTest, JobcompRequeuedJobIsOneJob) {
  // Job 8 ran, was requeued (its run logged as PENDING), ran again and completed; job 9 ran,
  // was requeued and is waiting again (not ended).
  const std::string text =
      "JobId=8 UserId=ann(1) Name=long JobState=PENDING Partition=gpu QOS=high TimeLimit=60 "
      "StartTime=2026-11-30T06:10:00 EndTime=2026-11-30T06:20:00 NodeList=gpu3 "
      "Tres=cpu=1,gres/gpu=2,gres/gpu:h100=2 Account=ml SubmitTime=2026-11-30T06:05:00\n"
      "JobId=9 UserId=ann(1) Name=wait JobState=REQUEUED Partition=gpu "
      "StartTime=2026-11-30T06:10:00 EndTime=2026-11-30T06:11:00 NodeList=gpu4 "
      "Tres=cpu=1,gres/gpu=1,gres/gpu:h100=1 SubmitTime=2026-11-30T06:05:00\n"
      "JobId=8 UserId=ann(1) Name=long JobState=COMPLETED Partition=gpu QOS=high TimeLimit=60 "
      "StartTime=2026-11-30T06:30:00 EndTime=2026-11-30T07:00:00 NodeList=gpu3 "
      "Tres=cpu=1,gres/gpu=2,gres/gpu:h100=2 Account=ml SubmitTime=2026-11-30T06:20:00\n";
  auto got = jobcomp(text);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got.value().unfinished, 1);
  ASSERT_EQ(got.value().jobs.size(), 1u);
  const JobSpec& j = got.value().jobs[0];
  EXPECT_EQ(j.id, "8");
  EXPECT_EQ(j.recorded_restarts, 1);
  EXPECT_DOUBLE_EQ(j.submit, 300);
  EXPECT_DOUBLE_EQ(j.recorded_start, 600);
  EXPECT_DOUBLE_EQ(j.recorded_end, 3600);
  EXPECT_DOUBLE_EQ(j.duration, (600 + 1800) * speed("H100"));
  EXPECT_EQ(j.gpus, 2);
  EXPECT_EQ(j.tier, Tier::kCore);
  EXPECT_EQ(j.team, "ml");
  EXPECT_DOUBLE_EQ(j.estimate, 3600 * speed("H100"));
}

TEST_F(SlurmImportTest, JobcompFromTheLocalClusterWithItsGresLog) {
  auto gres = parse_gres_log(import_data("gres.log"), "gres.log");
  ASSERT_TRUE(gres.ok()) << gres.error().message;
  auto got = jobcomp(import_data("jobcomp.log"), gres.value());
  ASSERT_TRUE(got.ok()) << got.error().message;
  const SlurmImport& r = got.value();
  EXPECT_EQ(r.never_started, 1);  // 4: cancelled while pending
  EXPECT_EQ(r.without_gpus, 1);   // 3: not in the GRES log, no gres in Tres
  auto jobs = by_id(r);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs.at("1").gpus, 2);
  EXPECT_DOUBLE_EQ(jobs.at("1").duration, 6 * speed("H100"));
  EXPECT_EQ(jobs.at("2").gpu_milli, 375);  // 3 of 8 shards
  EXPECT_EQ(jobs.at("2").team, "root");
  // 6 ran once, was requeued, and was cancelled while pending again.
  EXPECT_EQ(jobs.at("6").name, "requeued [CANCELLED]");
  EXPECT_EQ(jobs.at("6").recorded_restarts, 0);
  EXPECT_DOUBLE_EQ(jobs.at("6").recorded_end - jobs.at("6").recorded_start, 2);
  EXPECT_EQ(r.epoch_unix_s, 1796014800);  // 05:01:13 floored to 05:00
}

TEST_F(SlurmImportTest, JobcompUntypedGpusTakeTheModelOfTheirNodeOrFail) {
  const std::string text =
      "JobId=7 JobState=COMPLETED Partition=gpu StartTime=2026-11-30T05:00:00 "
      "EndTime=2026-11-30T05:10:00 NodeList=gpu3 Tres=cpu=1,gres/gpu=2 "
      "SubmitTime=2026-11-30T05:00:00\n";
  auto got = jobcomp(text);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find("jobcomp.log:1 (job 7): Tres: untyped GPUs"),
            std::string::npos)
      << got.error().message;
  auto nodes = parse_nodes_json(import_data("nodes.json"), "nodes.json");
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  opts.nodes = nodes.value();
  got = jobcomp(text);
  ASSERT_TRUE(got.ok()) << got.error().message;
  const JobSpec& j = got.value().jobs.at(0);
  EXPECT_DOUBLE_EQ(j.duration, 600 * speed("H100"));  // gpu3 has H100s
  // Partition gpu holds A100 and H100 nodes: its jobs may run on either.
  EXPECT_EQ(j.allowed_models, (std::vector<GpuModelId>{model("A100-80GB"), model("H100")}));
  // An unknown type in Tres names the line and field.
  auto bad = jobcomp(
      "\nJobId=9 JobState=COMPLETED StartTime=2026-11-30T05:00:00 EndTime=2026-11-30T05:10:00 "
      "NodeList=gpu3 Tres=cpu=1,gres/gpu=2,gres/gpu:weird=2\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("jobcomp.log:2 (job 9): Tres: GRES type 'weird'"),
            std::string::npos)
      << bad.error().message;
}

TEST_F(SlurmImportTest, PinModelsKeepsEachJobOnTheModelsItRanOn) {
  // Job 5 ran on an A100 node, was requeued and ran again on an H100 node; job 6 ran on H100.
  const std::string text =
      "JobId=5 JobState=PENDING Partition=gpu StartTime=2026-11-30T05:00:00 "
      "EndTime=2026-11-30T05:01:00 NodeList=gpu1 Tres=cpu=1,gres/gpu=4,gres/gpu:a100=4 "
      "SubmitTime=2026-11-30T05:00:00\n"
      "JobId=6 JobState=COMPLETED Partition=gpu StartTime=2026-11-30T05:00:00 "
      "EndTime=2026-11-30T05:10:00 NodeList=gpu3 Tres=cpu=1,gres/gpu=2,gres/gpu:h100=2 "
      "SubmitTime=2026-11-30T05:00:00\n"
      "JobId=5 JobState=COMPLETED Partition=gpu StartTime=2026-11-30T05:02:00 "
      "EndTime=2026-11-30T05:03:00 NodeList=gpu3 Tres=cpu=1,gres/gpu=4,gres/gpu:h100=4 "
      "SubmitTime=2026-11-30T05:01:00\n";
  auto nodes = parse_nodes_json(import_data("nodes.json"), "nodes.json");
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  opts.nodes = nodes.value();
  auto any = jobcomp(text);
  ASSERT_TRUE(any.ok()) << any.error().message;
  const std::vector<GpuModelId> both{model("A100-80GB"), model("H100")};
  for (const JobSpec& j : any.value().jobs) EXPECT_EQ(j.allowed_models, both) << j.id;
  opts.pin_models = true;
  auto pinned = jobcomp(text);
  ASSERT_TRUE(pinned.ok()) << pinned.error().message;
  auto jobs = by_id(pinned.value());
  EXPECT_EQ(jobs.at("5").allowed_models, both);  // in the order it ran on them
  EXPECT_EQ(jobs.at("6").allowed_models, std::vector<GpuModelId>{model("H100")});
  EXPECT_DOUBLE_EQ(jobs.at("5").duration, 60 + 60 * speed("H100"));  // durations unchanged
}

TEST_F(SlurmImportTest, MapFileErrorsNameKeyAndLine) {
  auto r = parse_import_map_yaml("tiers:\n  qos:\n    high: urgentest\n", "map.yaml", catalog);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("map.yaml: tiers.qos.high: unknown tier 'urgentest'"),
            std::string::npos)
      << r.error().message;
  r = parse_import_map_yaml("partitions: {h100: {models: [Z80]}}\n", "map.yaml", catalog);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("partitions.h100.models[0]"), std::string::npos)
      << r.error().message;
  r = parse_import_map_yaml("teams: group\n", "map.yaml", catalog);
  ASSERT_FALSE(r.ok());
  r = parse_import_map_yaml("tier: {}\n", "map.yaml", catalog);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("tier"), std::string::npos);
  // A QOS table given replaces the default one.
  r = parse_import_map_yaml("tiers: {qos: {normal: important}, default: core}\n", "m", catalog);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().tier("normal", "x"), Tier::kImportant);
  EXPECT_EQ(r.value().tier("high", "x"), Tier::kCore);  // the default tier, not the table's
  EXPECT_EQ(SlurmImportMap{}.tier("low", "x"), Tier::kGeneral);
}

TEST_F(SlurmImportTest, TraceWrittenReadsBackToTheSameJobs) {
  auto got = sacct("sacct_2205.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  const std::string path =
      (std::filesystem::temp_directory_path() / "frugal_slurm_import_test.csv").string();
  ASSERT_TRUE(write_history_csv(got.value().jobs, catalog, path).ok());
  TraceOptions to;
  to.catalog = &catalog;
  auto trace = read_trace(path, to);
  std::filesystem::remove(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace.value().jobs.size(), got.value().jobs.size());
  for (size_t i = 0; i < trace.value().jobs.size(); ++i) {
    const JobSpec &a = got.value().jobs[i], &b = trace.value().jobs[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.gpus, b.gpus);
    EXPECT_EQ(a.gpu_milli, b.gpu_milli);
    EXPECT_EQ(a.tier, b.tier);
    EXPECT_DOUBLE_EQ(a.duration, b.duration);
    EXPECT_DOUBLE_EQ(a.recorded_start, b.recorded_start);
    EXPECT_DOUBLE_EQ(a.recorded_end, b.recorded_end);
    EXPECT_EQ(a.recorded_restarts, b.recorded_restarts);
  }
}

}  // namespace
}  // namespace frugal
