// `frugal report` end to end, and the report options of simulate, compare and whatif
// (--report-json, --report-jobs, --jobs-csv): the page `report` renders from a --report-json
// document is the page --html wrote, byte for byte.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../common/file_util.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using testing::slurp;

struct ReportRun {
  int code = -1;
  std::string out, err;
};

ReportRun run_frugal(const std::string& args, const fs::path& dir) {
  const std::string cmd = std::string("cd '") + FRUGAL_SOURCE_DIR + "' && '" + FRUGAL_BINARY +
                          "' " + args + " >'" + (dir / "out").string() + "' 2>'" +
                          (dir / "err").string() + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

constexpr const char* kTrace = "data/demo/itp-cluster04-first3000.csv";
constexpr const char* kInputs =
    "--trace data/demo/itp-cluster04-first3000.csv --cluster examples/clusters/two-region.yaml";

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs this suite's cases as parallel processes.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / (std::string("frugal_report_cli_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string at(const std::string& name) const { return "'" + (dir_ / name).string() + "'"; }
  fs::path dir_;
};

TEST_F(ReportCli, RendersTheSamePageAsCompareHtml) {
  const ReportRun cmp = run_frugal(std::string("compare ") + kInputs +
                                       " --policies backfill,frugal --baseline frugal --html " +
                                       at("c.html") + " --report-json " + at("c.json"),
                                   dir_);
  ASSERT_EQ(cmp.code, 0) << cmp.err;
  const ReportRun rep = run_frugal("report --json " + at("c.json") + " --html " + at("r.html") +
                                       " --baseline frugal --title 'frugal report: " + kTrace +
                                       "' --jobs-csv-link c.html.jobs.csv",
                                   dir_);
  ASSERT_EQ(rep.code, 0) << rep.err;
  const std::string page = slurp(dir_ / "c.html");
  ASSERT_GT(page.size(), 20000u);
  EXPECT_TRUE(page == slurp(dir_ / "r.html")) << "the pages differ";
  // The document is the one the page embeds.
  const size_t a = page.find("id=\"frugal-data\">") + 17;
  const nlohmann::json doc = nlohmann::json::parse(slurp(dir_ / "c.json"));
  EXPECT_EQ(nlohmann::json::parse(page.substr(a, page.find("</script>", a) - a)), doc);
  EXPECT_EQ(doc["runs"].size(), 2u);
}

TEST_F(ReportCli, ReportJsonWithoutHtmlAndTheJobOptions) {
  // simulate: the document alone, 0 job rows, and the job CSV without --html.
  const ReportRun sim =
      run_frugal(std::string("simulate ") + kInputs + " --policy backfill" + " --report-json " +
                     at("s.json") + " --report-jobs 0" + " --jobs-csv " + at("s.csv"),
                 dir_);
  ASSERT_EQ(sim.code, 0) << sim.err;
  EXPECT_FALSE(fs::exists(dir_ / "s.json.jobs.csv"));
  const nlohmann::json s = nlohmann::json::parse(slurp(dir_ / "s.json"));
  ASSERT_EQ(s["runs"].size(), 1u);
  EXPECT_EQ(s["runs"][0]["jobs"].size(), 0u);
  EXPECT_EQ(s["runs"][0]["jobs_total"], 3000);
  EXPECT_GT(s["runs"][0]["timeline"]["t"].size(), 10u);
  const std::string csv = slurp(dir_ / "s.csv");
  EXPECT_EQ(lines(csv), 1u + 3000u);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "policy,id,team,class,gpus,model,pool,submit_s,wait_s,run_s,cost_usd,waste_usd,done");
  // whatif: the same options, with a cap.
  const ReportRun wi = run_frugal(std::string("whatif ") + kInputs + " --policies fifo,backfill" +
                                      " --report-json " + at("w.json") + " --report-jobs 25",
                                  dir_);
  ASSERT_EQ(wi.code, 0) << wi.err;
  const nlohmann::json w = nlohmann::json::parse(slurp(dir_ / "w.json"));
  ASSERT_GE(w["runs"].size(), 2u);
  for (const auto& r : w["runs"]) EXPECT_EQ(r["jobs"].size(), 25u) << r["policy"];
  // Two documents: their runs in order, each policy's card once.
  const ReportRun rep = run_frugal("report --json " + at("s.json") + " --json " + at("w.json") +
                                       " --html " + at("sw.html") + " --title T",
                                   dir_);
  ASSERT_EQ(rep.code, 0) << rep.err;
  const std::string page = slurp(dir_ / "sw.html");
  EXPECT_NE(page.find("<title>T</title>"), std::string::npos);
  EXPECT_NE(page.find(std::to_string(1 + w["runs"].size()) + " run(s)"), std::string::npos);
  EXPECT_EQ(page.find("All jobs (CSV)"), std::string::npos);  // no --jobs-csv-link
}

TEST_F(ReportCli, ErrorsAreNamed) {
  std::ofstream(dir_ / "bad.json") << "{\"runs\": [1,\n 2,,]}";
  std::ofstream(dir_ / "empty.json") << "{\"runs\": []}";
  std::ofstream(dir_ / "one.json") << R"({"runs": [{"policy": "fifo", "cost": {"total_usd": 1}}]})";
  std::ofstream(dir_ / "g.json") << R"({"groups": [{"name": "a", "runs": [{"policy": "fifo"}]}]})";
  const std::string out = " --html " + at("x.html");
  struct Case {
    std::string args, message;
  } cases[] = {
      {"--json " + at("none.json") + out, (dir_ / "none.json").string() + ": cannot read"},
      {"--json " + at("bad.json") + out,
       (dir_ / "bad.json").string() + ": not JSON: parse error at line 2, column 4"},
      {"--json " + at("empty.json") + out, (dir_ / "empty.json").string() + ": holds no run"},
      {"--json " + at("one.json") + " --baseline sjf" + out,
       "--baseline sjf: no run of that policy"},
      {"--json " + at("one.json") + " --json " + at("g.json") + out, "is grouped and"},
      {"--json " + at("one.json") + " --html /nonexistent-dir/x.html",
       "/nonexistent-dir/x.html: cannot write"},
  };
  for (const Case& c : cases) {
    const ReportRun r = run_frugal("report " + c.args, dir_);
    EXPECT_EQ(r.code, 1) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("frugal report: ", 0), 0u) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "x.html"));
  EXPECT_NE(run_frugal("report --html " + at("x.html"), dir_).code, 0);  // --json is required
}

}  // namespace
}  // namespace frugal
