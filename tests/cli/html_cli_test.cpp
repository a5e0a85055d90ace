// `frugal compare --html` end to end on the bundled demo trace.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "../common/file_util.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using testing::slurp;

struct CliRun {
  int code = -1;
  std::string out, err;
};

CliRun frugal(const std::string& args, const fs::path& dir) {
  const std::string cmd = std::string("cd '") + FRUGAL_SOURCE_DIR + "' && '" + FRUGAL_BINARY +
                          "' " + args + " >'" + (dir / "out").string() + "' 2>'" +
                          (dir / "err").string() + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

// The JSON report without its wall-clock figures.
nlohmann::json steady(const std::string& text) {
  auto j = nlohmann::json::parse(text);
  for (auto& r : j["runs"]) r.erase("sim");
  return j;
}

class HtmlCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs this suite's cases as parallel processes.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / (std::string("frugal_html_cli_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

constexpr const char* kCompare =
    "compare --trace data/demo/itp-cluster04-first3000.csv --cluster "
    "examples/clusters/two-region.yaml --policies backfill,frugal --format json";

TEST_F(HtmlCli, CompareWritesAReportAndTheJobCsv) {
  const fs::path html = dir_ / "r.html";
  const CliRun with = frugal(std::string(kCompare) + " --html '" + html.string() + "'", dir_);
  ASSERT_EQ(with.code, 0) << with.err;
  const CliRun without = frugal(kCompare, dir_);
  ASSERT_EQ(without.code, 0) << without.err;
  EXPECT_EQ(steady(with.out), steady(without.out));  // stdout as without --html
  const std::string page = slurp(html);
  EXPECT_GT(page.size(), 20000u);
  for (const char* c : {"gpus", "queue", "cost-per-hour", "price", "waste", "cost-by-team",
                        "cost-by-class", "cost-by-region", "cost-by-pool"})
    EXPECT_NE(page.find(std::string("<svg data-chart=\"") + c + "\""), std::string::npos) << c;
  EXPECT_NE(page.find("data-series=\"frugal:cost_usd_per_h\" d=\"M"), std::string::npos);
  EXPECT_NE(page.find("href=\"r.html.jobs.csv\""), std::string::npos);
  const std::string csv = slurp(dir_ / "r.html.jobs.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 3000);
  // The cards carry the JSON's numbers.
  const auto runs = steady(with.out)["runs"];
  const double total = runs[1]["cost"]["total_usd"].get<double>();
  const std::string card = page.substr(page.find("class=\"card\" data-policy=\"frugal\""));
  const size_t v = card.find("data-value=\"", card.find("data-metric=\"total_usd\"")) + 12;
  EXPECT_DOUBLE_EQ(std::stod(card.substr(v, card.find('"', v) - v)), total);
}

TEST_F(HtmlCli, UnwritableFileIsNamed) {
  const CliRun r = frugal(std::string(kCompare) + " --html /nonexistent-dir/x.html", dir_);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("/nonexistent-dir/x.html"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace frugal
