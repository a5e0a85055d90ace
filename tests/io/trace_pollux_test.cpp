// The Pollux workload reader.

#include <gtest/gtest.h>

#include "io/trace_reader.h"
#include "reader_test_util.h"

namespace frugal {
namespace {

using testing::options;
using testing::shared_data;
using testing::TempDir;

TEST(TracePollux, ReadsRealWorkload6) {
  FRUGAL_REQUIRE_SHARED_DATA();
  auto trace =
      read_trace((shared_data() / "traces/pollux/workloads/workload-6.csv").string(), options());
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const Trace& t = trace.value();
  EXPECT_EQ(t.format, "pollux");
  ASSERT_EQ(t.jobs.size(), 160u);
  const JobSpec& j = t.jobs.front();
  EXPECT_EQ(j.id, "cifar10-0");
  EXPECT_EQ(j.name, "cifar10");
  EXPECT_DOUBLE_EQ(j.submit, 53);
  EXPECT_EQ(j.gpus, 6);
  EXPECT_DOUBLE_EQ(j.duration, 0.5 * 3600 / 6);  // 0.5 GPU-hours over 6 replicas
  EXPECT_EQ(j.job_class, JobClass::kFinetune);
  EXPECT_EQ(t.jobs.back().id, "cifar10-159");
  EXPECT_EQ(t.jobs.back().gpus, 8);
}

TEST(TracePollux, ReadsEveryRealWorkload) {
  FRUGAL_REQUIRE_SHARED_DATA();
  for (const char* dir : {"workloads", "workloads-realistic"}) {
    for (int i = 1; i <= 8; ++i) {
      const auto path =
          shared_data() / "traces/pollux" / dir / ("workload-" + std::to_string(i) + ".csv");
      auto trace = read_trace(path.string(), options());
      ASSERT_TRUE(trace.ok()) << trace.error().message;
      EXPECT_EQ(trace.value().jobs.size(), 160u) << path;
      for (const JobSpec& j : trace.value().jobs) {
        EXPECT_GT(j.duration, 0) << j.id;
        EXPECT_GE(j.gpus, 1) << j.id;
      }
    }
  }
}

TEST(TracePollux, UnknownApplicationAndZeroReplicas) {
  TempDir dir;
  const std::string header = "name,time,application,num_replicas,batch_size\n";
  auto app = read_trace(dir.write("a.csv", header + "x-0,1,gpt5,1,32\n"), options());
  ASSERT_FALSE(app.ok());
  EXPECT_NE(app.error().message.find("a.csv:2: field 'application': unknown application 'gpt5'"),
            std::string::npos)
      << app.error().message;
  auto zero = read_trace(dir.write("z.csv", header + "x-0,1,bert,0,32\n"), options());
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("field 'num_replicas'"), std::string::npos);
}

}  // namespace
}  // namespace frugal
