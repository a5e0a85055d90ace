// frugal's native format, CSV and JSONL.

#include <gtest/gtest.h>

#include "io/trace_reader.h"
#include "reader_test_util.h"

namespace frugal {
namespace {

using testing::options;
using testing::TempDir;
using testing::test_catalog;

bool native_contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

TEST(TraceNative, CsvWithEveryColumnInAnyOrder) {
  TempDir dir;
  const auto path = dir.write(
      "n.csv",
      "duration,id,submit,team,name,class,tier,gpus,gpu_milli,gpu_memory_mib,cpu_milli,"
      "memory_mib,allowed_models,preferred_model,estimate,min_gpus,max_gpus,deadline,deferrable,"
      "checkpoint_interval\n"
      "3600,j1,10,vision,resnet,finetune,core,4,1000,20000,8000,65536,A100|h100,H100,4000,2,8,"
      "9000,true,600\n"
      "60,j2,20,,,,,1,250,,,,,,,,,,,\n");
  auto trace = read_trace(path, options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace.value().format, "native");
  ASSERT_EQ(trace.value().jobs.size(), 2u);
  const JobSpec& a = trace.value().jobs[0];
  const auto& cat = test_catalog();
  EXPECT_EQ(a.id, "j1");
  EXPECT_EQ(a.team, "vision");
  EXPECT_EQ(a.name, "resnet");
  EXPECT_EQ(a.job_class, JobClass::kFinetune);
  EXPECT_EQ(a.tier, Tier::kCore);
  EXPECT_DOUBLE_EQ(a.submit, 10);
  EXPECT_EQ(a.gpus, 4);
  EXPECT_EQ(a.gpu_memory_mib, 20000);
  EXPECT_EQ(a.cpu_milli, 8000);
  EXPECT_EQ(a.memory_mib, 65536);
  EXPECT_EQ(a.allowed_models, (std::vector<GpuModelId>{*cat.find("A100-80GB"), *cat.find("H100")}));
  EXPECT_EQ(a.preferred_model, *cat.find("H100"));
  EXPECT_DOUBLE_EQ(a.duration, 3600);
  EXPECT_DOUBLE_EQ(a.estimate, 4000);
  EXPECT_EQ(a.min_gpus, 2);
  EXPECT_EQ(a.max_gpus, 8);
  EXPECT_DOUBLE_EQ(a.deadline, 9000);
  EXPECT_TRUE(a.deferrable);
  EXPECT_DOUBLE_EQ(a.checkpoint_interval, 600);
  const JobSpec& b = trace.value().jobs[1];  // empty cells keep the defaults
  EXPECT_EQ(b.team, "default");
  EXPECT_EQ(b.job_class, JobClass::kPretrain);
  EXPECT_EQ(b.tier, Tier::kGeneral);
  EXPECT_EQ(b.gpu_milli, 250);
  EXPECT_EQ(b.deadline, kNever);
  EXPECT_DOUBLE_EQ(b.estimate, -1);
  EXPECT_FALSE(b.deferrable);
}

TEST(TraceNative, MinimalCsvUsesDefaults) {
  TempDir dir;
  auto trace = read_trace(dir.write("m.csv", "id,submit,duration\nx,0,5\n"), options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace.value().jobs[0].gpus, 1);
  EXPECT_EQ(trace.value().jobs[0].gpu_milli, kMilliPerGpu);
}

TEST(TraceNative, CsvErrorsNameColumnClassTierAndRange) {
  TempDir dir;
  auto col = read_trace(dir.write("c.csv", "id,submit,duration,colour\nx,0,5,red\n"), options());
  ASSERT_FALSE(col.ok());
  EXPECT_TRUE(native_contains(col.error().message, "c.csv:1: unknown column 'colour'"))
      << col.error().message;
  auto cls =
      read_trace(dir.write("k.csv", "id,submit,duration,class\nx,0,5,training\n"), options());
  ASSERT_FALSE(cls.ok());
  EXPECT_TRUE(
      native_contains(cls.error().message, "k.csv:2: field 'class': unknown job class 'training'"))
      << cls.error().message;
  auto tier = read_trace(dir.write("t.csv", "id,submit,duration,tier\nx,0,5,gold\n"), options());
  ASSERT_FALSE(tier.ok());
  EXPECT_TRUE(native_contains(tier.error().message, "field 'tier': unknown tier 'gold'"));
  auto frac =
      read_trace(dir.write("f.csv", "id,submit,duration,gpus,gpu_milli\nx,0,5,2,500\n"), options());
  ASSERT_FALSE(frac.ok());
  EXPECT_TRUE(native_contains(frac.error().message, "f.csv:2: field 'gpu_milli'"))
      << frac.error().message;
  auto elastic = read_trace(dir.write("e.csv", "id,submit,duration,min_gpus,max_gpus\nx,0,5,8,2\n"),
                            options());
  ASSERT_FALSE(elastic.ok());
  EXPECT_TRUE(native_contains(elastic.error().message, "e.csv:2: field 'min_gpus'"));
  auto missing = read_trace(dir.write("r.csv", "id,submit,duration\nx,,5\n"), options());
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(native_contains(missing.error().message, "r.csv:2: field 'submit'"));
  auto model =
      read_trace(dir.write("p.csv", "id,submit,duration,preferred_model\nx,0,5,K80\n"), options());
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(native_contains(model.error().message, "unknown GPU model 'K80'"));
  // A column named twice (which one counted was arbitrary).
  auto twice = read_trace(dir.write("2.csv", "id,submit,duration,id\nx,0,5,y\n"), options());
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(native_contains(twice.error().message,
                              "2.csv:1: column 'id' appears twice (columns 1 and 4)"))
      << twice.error().message;
  // An absolute deadline before the submit (it was accepted and counted as a miss).
  auto early =
      read_trace(dir.write("d.csv", "id,submit,duration,deadline\nx,100,5,50\n"), options());
  ASSERT_FALSE(early.ok());
  EXPECT_TRUE(
      native_contains(early.error().message,
                      "d.csv:2: field 'deadline': absolute deadline 50 is before submit 100"))
      << early.error().message;
  EXPECT_TRUE(
      read_trace(dir.write("o.csv", "id,submit,duration,deadline\nx,100,5,100\n"), options()).ok());
}

TEST(TraceNative, MovableAndDataRegion) {
  TempDir dir;
  const auto path = dir.write("m.csv",
                              "id,submit,duration,movable,data_region\n"
                              "a,0,60,true,us-west\n"
                              "b,0,60,,\n"
                              "c,0,60,0,\n");
  auto trace = read_trace(path, options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const auto& jobs = trace.value().jobs;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_TRUE(jobs[0].movable);
  EXPECT_EQ(jobs[0].data_region, "us-west");
  EXPECT_FALSE(jobs[1].movable);  // default
  EXPECT_EQ(jobs[1].data_region, "");
  EXPECT_FALSE(jobs[2].movable);
  const auto bad = dir.write("bad.csv", "id,submit,duration,movable\na,0,60,maybe\n");
  EXPECT_FALSE(read_trace(bad, options()).ok());
  const auto jl = dir.write("m.jsonl",
                            "{\"id\": \"a\", \"submit\": 0, \"duration\": 60, \"movable\": true, "
                            "\"data_region\": \"south\"}\n");
  auto t2 = read_trace(jl, options());
  ASSERT_TRUE(t2.ok()) << t2.error().message;
  EXPECT_TRUE(t2.value().jobs[0].movable);
  EXPECT_EQ(t2.value().jobs[0].data_region, "south");
}

TEST(TraceNative, QuotedCsvFields) {
  TempDir dir;
  auto trace = read_trace(
      dir.write("q.csv", "id,submit,duration,name\n\"a,1\",0,5,\"my \"\"model\"\"\"\n"), options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace.value().jobs[0].id, "a,1");
  EXPECT_EQ(trace.value().jobs[0].name, "my \"model\"");
}

TEST(TraceNative, Jsonl) {
  TempDir dir;
  const auto path = dir.write(
      "j.jsonl",
      "{\"id\": \"a\", \"submit\": 0, \"duration\": 3600.5, \"gpus\": 8, \"class\": \"eval\",\n"
      "  \"allowed_models\": [\"T4\", \"G2\"]}\n");
  // A JSON object must sit on one line: the above is deliberately broken at line 1.
  auto broken = read_trace(path, options());
  ASSERT_FALSE(broken.ok());
  EXPECT_TRUE(native_contains(broken.error().message, "j.jsonl:1:")) << broken.error().message;

  const auto good = dir.write(
      "g.jsonl",
      "{\"id\": \"a\", \"submit\": 0, \"duration\": 3600.5, \"gpus\": 8, \"class\": \"eval\", "
      "\"allowed_models\": [\"T4\", \"G2\"], \"deferrable\": true, \"deadline\": null}\n"
      "\n"
      "{\"id\": \"b\", \"submit\": 7, \"duration\": 1, \"gpu_milli\": 300, "
      "\"allowed_models\": \"V100|P100\", \"tier\": \"important\"}\n");
  auto trace = read_trace(good, options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace.value().format, "native");
  ASSERT_EQ(trace.value().jobs.size(), 2u);
  const JobSpec& a = trace.value().jobs[0];
  EXPECT_DOUBLE_EQ(a.duration, 3600.5);
  EXPECT_EQ(a.gpus, 8);
  EXPECT_EQ(a.job_class, JobClass::kEval);
  EXPECT_TRUE(a.deferrable);
  EXPECT_EQ(a.deadline, kNever);
  EXPECT_EQ(a.allowed_models.size(), 2u);
  const JobSpec& b = trace.value().jobs[1];
  EXPECT_EQ(b.gpu_milli, 300);
  EXPECT_EQ(b.tier, Tier::kImportant);
  EXPECT_EQ(b.allowed_models, (std::vector<GpuModelId>{*test_catalog().find("V100M16"),
                                                       *test_catalog().find("P100")}));
}

TEST(TraceNative, JsonlGarbageLineAndSkipping) {
  TempDir dir;
  const std::string text =
      "{\"id\": \"a\", \"submit\": 0, \"duration\": 1}\n"
      "{\"id\": \"b\", \"submit\": 0, \"duration\": 1}\n"
      "this is not json\n"
      "{\"id\": \"c\", \"submit\": 0}\n"
      "{\"id\": \"d\", \"submit\": 0, \"duration\": \"long\"}\n"
      "{\"id\": \"e\", \"submit\": 0, \"duration\": 1, \"colour\": 1}\n"
      "[1, 2]\n"
      "{\"id\": \"a\", \"submit\": 0, \"duration\": 1}\n";
  const auto path = dir.write("x.jsonl", text);
  auto strict = read_trace(path, options());
  ASSERT_FALSE(strict.ok());
  EXPECT_TRUE(native_contains(strict.error().message, "x.jsonl:3: not a valid JSON object"))
      << strict.error().message;
  auto skipped = read_trace(path, options("native", true));
  ASSERT_TRUE(skipped.ok()) << skipped.error().message;
  EXPECT_EQ(skipped.value().jobs.size(), 2u);
  EXPECT_EQ(skipped.value().skipped_rows, 6u);
  ASSERT_EQ(skipped.value().warnings.size(), 5u);
  EXPECT_TRUE(native_contains(skipped.value().warnings[1], "x.jsonl:4: missing key 'duration'"));
  EXPECT_TRUE(native_contains(skipped.value().warnings[2], "x.jsonl:5: field 'duration'"));
  EXPECT_TRUE(
      native_contains(skipped.value().warnings[3], "x.jsonl:6: field 'colour': unknown field"));
}

}  // namespace
}  // namespace frugal
