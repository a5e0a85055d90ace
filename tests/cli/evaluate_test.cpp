// bench/evaluate end to end on the quick set (ITP clusters 01 and 03): every policy on
// every trace, baselines and frugal under "results" and frugal's components (ablations)
// under "ablations" only, the JSON keys the acceptance check reads, the RESULTS page rendered, and
// the sanity relations that hold by construction (fifo-static keeps the whole peak provisioned, so
// it costs more and allocates a smaller share than any autoscaled run). Skipped when the shared
// traces are absent.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "../common/file_util.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;

using testing::slurp;

TEST(CliEvaluate, QuickRunsEveryPolicyOnBothTraces) {
  const fs::path data = fs::path(FRUGAL_SHARED_DATA) / "traces";
  if (!fs::exists(data / "itp/raw/cluster01.csv")) GTEST_SKIP() << "no shared data at " << data;
  const fs::path dir = fs::temp_directory_path() / "frugal_cli_evaluate";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path json = dir / "e.json", md = dir / "R.md";
  const std::string cmd = std::string("FRUGAL_BIN='") + FRUGAL_BINARY + "' FRUGAL_DATA='" +
                          data.string() + "' python3 '" + FRUGAL_SOURCE_DIR +
                          "/bench/evaluate' --quick --jobs 2 --json '" + json.string() +
                          "' --md '" + md.string() + "' 2>'" + (dir / "log").string() + "'";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << slurp(dir / "log");
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  std::map<std::string, std::map<std::string, nlohmann::json>> by;
  for (const char* key : {"results", "ablations"})
    for (const auto& r : j.at(key)) by[r.at("trace")][r.at("policy")] = r;
  ASSERT_EQ(by.size(), 2u);
  // Baselines, frugal and fifo-static under "results"; the ablations under "ablations".
  std::set<std::string> in_results, in_ablations;
  for (const auto& r : j.at("results")) in_results.insert(r.at("policy"));
  for (const auto& r : j.at("ablations")) in_ablations.insert(r.at("policy"));
  EXPECT_EQ(in_results, (std::set<std::string>{"fifo", "backfill", "sjf", "las", "gavel", "frugal",
                                               "fifo-static"}));
  EXPECT_EQ(in_ablations,
            (std::set<std::string>{"tiers", "timeshift", "timeshift-energy", "frugal-place"}));
  const std::set<std::string> policies = {
      "fifo",      "backfill",         "sjf",          "las",    "gavel",      "tiers",
      "timeshift", "timeshift-energy", "frugal-place", "frugal", "fifo-static"};
  for (const auto& [trace, rs] : by) {
    SCOPED_TRACE(trace);
    std::set<std::string> seen;
    for (const auto& [p, r] : rs) seen.insert(p);
    EXPECT_EQ(seen, policies);
    for (const auto& [p, r] : rs) {
      SCOPED_TRACE(p);
      EXPECT_EQ(r.at("jobs").at("completed"), r.at("jobs").at("submitted"));
      for (const char* k : {"mean", "p99"}) EXPECT_GT(r.at("jct_s").at(k).get<double>(), 0);
      EXPECT_GT(r.at("cost").at("total_usd").get<double>(), 0);
      EXPECT_TRUE(r.at("waste").contains("idle_unallocated_usd"));
      EXPECT_GE(r.at("deadline_misses").get<int>(), 0);
      const double share = r.at("provisioned_allocated_share");
      EXPECT_GT(share, 0);
      EXPECT_LE(share, 1 + 1e-9);
      EXPECT_GT(r.at("co2_kg").get<double>(), 0);
      if (p != "fifo-static") {
        EXPECT_LT(r.at("cost").at("total_usd").get<double>(),
                  rs.at("fifo-static").at("cost").at("total_usd").get<double>());
        EXPECT_GT(share, rs.at("fifo-static").at("provisioned_allocated_share").get<double>());
      }
    }
    EXPECT_NE(rs.at("timeshift-energy").at("profile").get<std::string>().find("time-shift"),
              std::string::npos);
    for (const char* p : {"backfill", "timeshift", "timeshift-energy", "frugal"}) {
      EXPECT_TRUE(rs.at(p).at("offline_bound").contains("deferrable_cost_usd")) << p;
      EXPECT_TRUE(rs.at(p).at("offline_bound").contains("energy_optimal_usd")) << p;
    }
  }
  const std::string page = slurp(md);
  for (const char* s : {"## Targets", "## itp-cluster01", "## itp-cluster03", "fifo-static",
                        "## Time-shifting alone", "### The issue's energy line, per shifter",
                        "Ablations (frugal's components alone; not baselines)"})
    EXPECT_NE(page.find(s), std::string::npos) << s;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace frugal
