// The ITP raw reader, and read_trace's dispatch, detection and error handling.

#include <gtest/gtest.h>

#include <chrono>

#include "io/trace_reader.h"
#include "reader_test_util.h"

namespace frugal {
namespace {

using testing::options;
using testing::shared_data;
using testing::TempDir;

bool itp_contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

TEST(TraceItp, ReadsRealCluster04) {
  FRUGAL_REQUIRE_SHARED_DATA();
  const auto path = (shared_data() / "traces/itp/raw/cluster04.csv").string();
  const auto t0 = std::chrono::steady_clock::now();
  auto trace = read_trace(path, options());
  const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const Trace& t = trace.value();
  EXPECT_EQ(t.format, "itp");
  // 15,802 newlines, no trailing newline: header + 15,802 jobs.
  ASSERT_EQ(t.jobs.size(), 15802u);
  EXPECT_EQ(t.skipped_rows, 0u);
  const JobSpec& first = t.jobs.front();
  EXPECT_EQ(first.id, "c9c620ea-4336-c1a9-8abe-e26bd13076b8");
  EXPECT_DOUBLE_EQ(first.submit, 5810);
  EXPECT_DOUBLE_EQ(first.duration, 288476);
  EXPECT_EQ(first.gpus, 16);
  EXPECT_EQ(first.gpu_milli, kMilliPerGpu);
  EXPECT_EQ(first.job_class, JobClass::kPretrain);
  EXPECT_EQ(first.tier, Tier::kGeneral);
  EXPECT_EQ(first.team, "default");
  const JobSpec& last = t.jobs.back();  // the line without a newline
  EXPECT_EQ(last.id, "7d4fa4db-d71c-077c-b82a-1c6f87e4cc5c");
  EXPECT_DOUBLE_EQ(last.submit, 5142627);
  EXPECT_DOUBLE_EQ(last.duration, 33740);
  EXPECT_EQ(last.gpus, 8);
  EXPECT_FALSE(t.cluster.has_value());
  RecordProperty("read_ms", std::to_string(ms.count()));
}

TEST(TraceItp, ReadsEveryRealCluster) {
  FRUGAL_REQUIRE_SHARED_DATA();
  const std::pair<const char*, size_t> files[] = {
      {"cluster01.csv", 1595}, {"cluster02.csv", 5778}, {"cluster03.csv", 3011},
      {"cluster05.csv", 3629}, {"cluster06.csv", 2396}, {"cluster07.csv", 12699}};
  for (const auto& [name, jobs] : files) {
    auto trace = read_trace((shared_data() / "traces/itp/raw" / name).string(), options());
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    EXPECT_EQ(trace.value().jobs.size(), jobs) << name;
  }
}

const char* kItp =
    "job_id,submission_time,duration,num_gpu\n"
    "a,0,100,1\n"
    "b,10,200,2\n"
    "c,20,300,4\n";

TEST(TraceItp, NonNumericFieldNamesLineAndField) {
  TempDir dir;
  const auto path = dir.write("bad.csv",
                              "job_id,submission_time,duration,num_gpu\n"
                              "a,0,100,1\n"
                              "b,10,abc,2\n");
  auto trace = read_trace(path, options());
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().message, path + ":3: field 'duration': expected a number, got 'abc'");
}

TEST(TraceItp, BrokenRealCopyReportsTheLine) {
  FRUGAL_REQUIRE_SHARED_DATA();
  TempDir dir;
  const auto path = testing::copy_with_line(dir, shared_data() / "traces/itp/raw/cluster04.csv",
                                            "cluster04.csv", 1234, "x,5810,288476,sixteen");
  auto trace = read_trace(path, options());
  ASSERT_FALSE(trace.ok());
  EXPECT_TRUE(itp_contains(trace.error().message, ":1234: field 'num_gpu'"))
      << trace.error().message;
  EXPECT_TRUE(itp_contains(trace.error().message, "sixteen"));
}

TEST(TraceItp, TruncatedAndExtraColumnRows) {
  TempDir dir;
  auto truncated = read_trace(dir.write("t.csv",
                                        "job_id,submission_time,duration,num_gpu\n"
                                        "a,0,100\n"),
                              options());
  ASSERT_FALSE(truncated.ok());
  EXPECT_TRUE(itp_contains(truncated.error().message, "t.csv:2: truncated row: expected 4 fields"))
      << truncated.error().message;
  auto extra = read_trace(dir.write("e.csv",
                                    "job_id,submission_time,duration,num_gpu\n"
                                    "a,0,100,1\n"
                                    "b,0,100,1,9\n"),
                          options());
  ASSERT_FALSE(extra.ok());
  EXPECT_TRUE(itp_contains(extra.error().message, "e.csv:3: extra columns"))
      << extra.error().message;
}

TEST(TraceItp, NegativeDurationAndHugeGpuCounts) {
  TempDir dir;
  auto neg = read_trace(dir.write("n.csv",
                                  "job_id,submission_time,duration,num_gpu\n"
                                  "a,0,-5,1\n"),
                        options());
  ASSERT_FALSE(neg.ok());
  EXPECT_TRUE(itp_contains(neg.error().message, "n.csv:2: field 'duration': must be >= 0"))
      << neg.error().message;
  auto huge = read_trace(dir.write("h.csv",
                                   "job_id,submission_time,duration,num_gpu\n"
                                   "a,0,5,5000\n"),
                         options());
  ASSERT_FALSE(huge.ok());
  // Named by the file's column, not JobSpec's field.
  EXPECT_TRUE(itp_contains(huge.error().message, "h.csv:2: field 'num_gpu': 5000 GPUs"))
      << huge.error().message;
  auto nan = read_trace(dir.write("x.csv",
                                  "job_id,submission_time,duration,num_gpu\n"
                                  "a,nan,5,1\n"),
                        options());
  ASSERT_FALSE(nan.ok());
  EXPECT_TRUE(itp_contains(nan.error().message, "field 'submission_time'"));
}

TEST(TraceItp, SkipBadRowsCountsAndKeepsFirstMessages) {
  TempDir dir;
  std::string text = "job_id,submission_time,duration,num_gpu\n";
  for (int i = 0; i < 10; ++i) text += "good" + std::to_string(i) + ",0,10,1\n";
  for (int i = 0; i < 7; ++i) text += "bad" + std::to_string(i) + ",0,x,1\n";
  text += "good0,0,10,1\n";  // duplicate id
  text += "short,0\n";
  auto trace = read_trace(dir.write("s.csv", text), options("", /*skip=*/true));
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace.value().jobs.size(), 10u);
  EXPECT_EQ(trace.value().skipped_rows, 9u);
  ASSERT_EQ(trace.value().warnings.size(), 5u);
  EXPECT_TRUE(itp_contains(trace.value().warnings[0], "s.csv:12: field 'duration'"))
      << trace.value().warnings[0];
}

TEST(TraceItp, DuplicateIdIsAnError) {
  TempDir dir;
  auto trace = read_trace(dir.write("d.csv",
                                    "job_id,submission_time,duration,num_gpu\n"
                                    "a,0,1,1\n"
                                    "a,1,1,1\n"),
                          options());
  ASSERT_FALSE(trace.ok());
  EXPECT_TRUE(itp_contains(trace.error().message, "d.csv:3: field 'job_id': duplicate job id 'a'"))
      << trace.error().message;
}

TEST(TraceReader, CrlfBomAndBlankLinesKeepFileLineNumbers) {
  TempDir dir;
  auto ok = read_trace(
      dir.write("c.csv", std::string("\xEF\xBB\xBF") + "job_id,submission_time,duration,num_gpu\r\n"
                                                       "\r\n"
                                                       "a,0,1,1\r\n"
                                                       "b,0,1,1"),
      options());
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value().jobs.size(), 2u);
  auto bad = read_trace(dir.write("c2.csv",
                                  "job_id,submission_time,duration,num_gpu\r\n"
                                  "\r\n"
                                  "a,0,1,1\r\n"
                                  "b,0,?,1\r\n"),
                        options());
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(itp_contains(bad.error().message, "c2.csv:4: field 'duration'"))
      << bad.error().message;
}

TEST(TraceReader, EmptyMissingAndUnknownFormat) {
  TempDir dir;
  auto empty = read_trace(dir.write("empty.csv", ""), options());
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(itp_contains(empty.error().message, "empty.csv: empty file"));
  auto blank = read_trace(dir.write("blank.csv", "\n \r\n"), options());
  EXPECT_FALSE(blank.ok());
  auto missing = read_trace((dir.path() / "nope.csv").string(), options());
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(itp_contains(missing.error().message, "nope.csv"));
  auto unknown = read_trace(dir.write("a.csv", kItp), options("philly"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(itp_contains(unknown.error().message, "philly"));
  for (const auto& f : trace_formats()) EXPECT_TRUE(itp_contains(unknown.error().message, f)) << f;
}

TEST(TraceReader, HeaderlessFileNeedsForcedFormat) {
  TempDir dir;
  const auto path = dir.write("noheader.csv", "a,0,100,1\nb,5,200,2\n");
  auto detected = read_trace(path, options());
  ASSERT_FALSE(detected.ok());
  EXPECT_TRUE(itp_contains(detected.error().message, "--trace-format")) << detected.error().message;
  EXPECT_TRUE(itp_contains(detected.error().message, "noheader.csv:1:"));
  auto forced = read_trace(path, options("itp"));
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  ASSERT_EQ(forced.value().jobs.size(), 2u);
  EXPECT_EQ(forced.value().jobs[1].id, "b");
  EXPECT_EQ(forced.value().jobs[1].gpus, 2);
  // Line numbers still count from the first line of the file.
  auto bad = read_trace(dir.write("nh2.csv", "a,0,100,1\nb,5,zz,2\n"), options("itp"));
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(itp_contains(bad.error().message, "nh2.csv:2: field 'duration'"))
      << bad.error().message;
}

TEST(TraceReader, UnknownHeaderSuggestsForcing) {
  TempDir dir;
  auto trace = read_trace(dir.write("u.csv", "foo,bar\n1,2\n"), options());
  ASSERT_FALSE(trace.ok());
  EXPECT_TRUE(itp_contains(trace.error().message, "unrecognised header 'foo,bar'"));
  EXPECT_TRUE(itp_contains(trace.error().message, "--trace-format"));
}

TEST(TraceReader, ForcedFormatWithWrongHeaderNamesMissingColumn) {
  TempDir dir;
  auto trace = read_trace(dir.write("p.csv", kItp), options("pollux"));
  ASSERT_FALSE(trace.ok());
  EXPECT_TRUE(itp_contains(trace.error().message, "missing column 'name'"))
      << trace.error().message;
}

}  // namespace
}  // namespace frugal
