// bench/evaluate end to end on the quick set (ITP clusters 01 and 03): every policy on
// every trace, baselines and frugal under "results" and frugal's components (ablations)
// under "ablations" only, the JSON keys the acceptance check reads, the RESULTS page rendered, and
// the sanity relations that hold by construction (fifo-static keeps the whole peak provisioned, so
// it costs more and allocates a smaller share than any autoscaled run). Skipped when the shared
// traces are absent.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
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
  // The owned-cluster setting: every baseline and frugal at 1.0× (--quick's one size) on both
  // traces, and no run beyond the setting's bounds (work per dollar, the mean-JCT bound, itself
  // never below the floor).
  const nlohmann::json& owned = j.at("owned");
  std::map<std::string, std::set<std::string>> owned_runs;
  for (const auto& r : owned.at("results")) {
    const std::string trace = r.at("trace");
    const double size = r.at("size");
    SCOPED_TRACE(trace + " " + std::to_string(size) + " " + r.at("policy").get<std::string>());
    owned_runs[trace + "@" + std::to_string(size)].insert(r.at("policy"));
    const auto& setting = owned.at("settings").at(trace).at(nlohmann::json(size).dump());
    EXPECT_GT(r.at("work_per_usd").get<double>(), 0);
    EXPECT_LE(r.at("work_per_usd").get<double>(),
              setting.at("work_per_usd_bound").get<double>() * (1 + 1e-9));
    EXPECT_GE(r.at("jct_s").at("mean").get<double>(),
              r.at("jct_bound_s").get<double>() * (1 - 1e-9));
    EXPECT_GE(r.at("jct_bound_s").get<double>(), r.at("jct_floor_s").get<double>() * (1 - 1e-9));
    EXPECT_TRUE(r.at("by_tier").contains("core"));
    EXPECT_EQ(r.at("jobs").at("unschedulable"), 0);
  }
  EXPECT_EQ(owned_runs.size(), 2u);  // 2 traces × 1 size
  EXPECT_EQ(owned.at("sizes"), nlohmann::json::array({1.0}));
  for (const auto& [k, ps] : owned_runs)
    EXPECT_EQ(ps, (std::set<std::string>{"fifo", "backfill", "sjf", "las", "gavel", "frugal"}))
        << k;
  // The consolidation ablation (frugal:consolidate=0) beside them, not among the results.
  std::set<std::string> ablated;
  for (const auto& r : owned.at("consolidation")) {
    EXPECT_EQ(r.at("policy"), "frugal-noconsolidate");
    EXPECT_EQ(r.at("profile").get<std::string>().find("consolidate"), std::string::npos);
    ablated.insert(r.at("trace").get<std::string>() + "@" +
                   std::to_string(r.at("size").get<double>()));
  }
  EXPECT_EQ(ablated.size(), owned_runs.size());
  const std::string page = slurp(md);
  for (const char* s :
       {"## Targets", "## itp-cluster01", "## itp-cluster03", "fifo-static",
        "## Time-shifting alone", "### The issue's energy line, per shifter",
        "Ablations (frugal's components alone; not baselines)", "## Owned-cluster setting",
        "### Targets at 1.0×", "### Consolidation: `frugal` with / without it"})
    EXPECT_NE(page.find(s), std::string::npos) << s;
  fs::remove_all(dir);
}

// --html: one page by `frugal report`, a section per trace with the runs under "results" (no
// ablation), the same figures as the JSON, and every job of those runs in FILE.jobs.csv.
TEST(CliEvaluate, HtmlReportsEveryTraceInItsOwnSection) {
  const fs::path data = fs::path(FRUGAL_SHARED_DATA) / "traces";
  if (!fs::exists(data / "itp/raw/cluster01.csv")) GTEST_SKIP() << "no shared data at " << data;
  const fs::path dir = fs::temp_directory_path() / "frugal_cli_evaluate_html";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path json = dir / "e.json", html = dir / "e.html";
  const std::string cmd =
      std::string("FRUGAL_BIN='") + FRUGAL_BINARY + "' FRUGAL_DATA='" + data.string() +
      "' python3 '" + FRUGAL_SOURCE_DIR +
      "/bench/evaluate' --quick --setting autoscaled --policies fifo --ablations tiers --json '" +
      json.string() + "' --html '" + html.string() + "' 2>'" + (dir / "log").string() + "'";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << slurp(dir / "log");
  const std::string page = slurp(html);
  const auto at = [&](const std::string& s, size_t from = 0) { return page.find(s, from); };
  const size_t g1 = at("<section class=\"group\" data-group=\"itp-cluster01\"");
  const size_t g3 = at("<section class=\"group\" data-group=\"itp-cluster03\"");
  ASSERT_NE(g1, std::string::npos);
  ASSERT_NE(g3, std::string::npos);
  ASSERT_LT(g1, g3);
  EXPECT_NE(at("<title>frugal evaluation</title>"), std::string::npos);
  EXPECT_NE(at("href=\"e.html.jobs.csv\""), std::string::npos);
  EXPECT_EQ(at("data-policy=\"tiers\""), std::string::npos);  // ablations are left out
  // The cards of cluster03 in order, each with the JSON's total.
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  size_t from = g3, jobs = 0;
  for (const char* p : {"fifo", "frugal", "fifo-static"}) {
    SCOPED_TRACE(p);
    from = at(std::string("<section class=\"card\" data-policy=\"") + p + "\"", from);
    ASSERT_NE(from, std::string::npos);
    const size_t v = at("data-value=\"", at("data-metric=\"total_usd\"", from)) + 12;
    for (const auto& r : j.at("results")) {
      if (r.at("trace") != "itp-cluster03" || r.at("policy") != p) continue;
      EXPECT_DOUBLE_EQ(std::stod(page.substr(v, at("\"", v) - v)),
                       r.at("cost").at("total_usd").get<double>());
    }
  }
  for (const auto& r : j.at("results")) jobs += r.at("jobs").at("submitted").get<size_t>();
  const std::string csv = slurp(dir / "e.html.jobs.csv");
  EXPECT_EQ(csv.substr(0, csv.find(',')), "trace");
  EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), 1 + jobs);
  EXPECT_NE(csv.find("\nitp-cluster03,fifo-static,"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace frugal
