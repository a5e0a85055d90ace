// The ElasticFlow reader on the real files, and its deadline semantics.

#include <gtest/gtest.h>

#include "io/trace_reader.h"
#include "reader_test_util.h"

namespace frugal {
namespace {

using testing::options;
using testing::shared_data;
using testing::TempDir;

TEST(TraceElasticflow, Reads195JobTestbedTrace) {
  FRUGAL_REQUIRE_SHARED_DATA();
  auto trace =
      read_trace((shared_data() / "traces/itp/elasticflow/195job.csv").string(), options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const Trace& t = trace.value();
  EXPECT_EQ(t.format, "elasticflow");
  ASSERT_EQ(t.jobs.size(), 195u);
  const JobSpec& j = t.jobs.front();
  EXPECT_EQ(j.id, "bdd640fb-0667-1ad1-1c80-317fa3b1799d");
  EXPECT_EQ(j.name, "deepspeech2");
  EXPECT_DOUBLE_EQ(j.submit, 3715485);
  EXPECT_DOUBLE_EQ(j.deadline, 3716178);  // absolute
  EXPECT_DOUBLE_EQ(j.duration, 1075);
  EXPECT_EQ(j.gpus, 1);
  const JobSpec& last = t.jobs.back();
  EXPECT_EQ(last.name, "bert");
  EXPECT_DOUBLE_EQ(last.deadline, 3888513);
  EXPECT_DOUBLE_EQ(last.duration, 1016);
}

TEST(TraceElasticflow, DeadlinesAreAbsoluteOnRealCluster04) {
  FRUGAL_REQUIRE_SHARED_DATA();
  auto trace =
      read_trace((shared_data() / "traces/itp/elasticflow/cluster04.csv").string(), options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace.value().jobs.size(), 15802u);
  size_t unmeetable = 0;
  for (const JobSpec& j : trace.value().jobs) {
    ASSERT_GT(j.deadline, j.submit) << j.id;
    const double slack = (j.deadline - j.submit) / j.duration;
    EXPECT_GE(slack, 0.49) << j.id;
    EXPECT_LE(slack, 1.51) << j.id;
    if (j.deadline < j.submit + j.duration) ++unmeetable;
  }
  // About half the deadlines cannot be met at the requested size (the paper's jobs may scale).
  EXPECT_GT(unmeetable, 7000u);
  EXPECT_LT(unmeetable, 9000u);
  // Same jobs as the raw trace.
  auto raw = read_trace((shared_data() / "traces/itp/raw/cluster04.csv").string(), options());
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw.value().jobs[100].id, trace.value().jobs[100].id);
  EXPECT_DOUBLE_EQ(raw.value().jobs[100].duration, trace.value().jobs[100].duration);
}

TEST(TraceElasticflow, BadDeadlineNamesTheField) {
  TempDir dir;
  const std::string header =
      "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n";
  auto bad = read_trace(dir.write("e.csv", header + "a,100,10,bert,50,32,1,10\n"), options());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("e.csv:2: field 'deadline'"), std::string::npos)
      << bad.error().message;
  auto garbage = read_trace(dir.write("g.csv", header + "a,100,10,bert,soon,32,1,10\n"), options());
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.error().message.find("expected a number, got 'soon'"), std::string::npos);
}

}  // namespace
}  // namespace frugal
