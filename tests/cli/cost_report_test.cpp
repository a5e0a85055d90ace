// `frugal compare` on the real ITP cluster04 trace and the two-region example cluster: the
// JSON report carries the ledger (cost, waste, by_team, by_class, by_region) for every run,
// both regions appear, and the ledger balances. Skipped without ../shared/data.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace frugal {
namespace {

namespace fs = std::filesystem;

double sum_of(const nlohmann::json& accounts, const char* key) {
  double s = 0;
  for (const auto& [name, a] : accounts.items()) s += a.at(key).get<double>();
  return s;
}

TEST(CliCost, CompareTwoRegionReportsABalancedLedger) {
  const fs::path data = FRUGAL_SHARED_DATA;
  const fs::path trace = data / "traces/itp/raw/cluster04.csv";
  if (!fs::is_regular_file(trace)) GTEST_SKIP() << "no shared data at " << data;
  const fs::path cluster = fs::path(FRUGAL_SOURCE_DIR) / "examples/clusters/two-region.yaml";
  const fs::path out = fs::temp_directory_path() / "frugal_cli_cost_report.json";
  const std::string cmd = std::string("'") + FRUGAL_BINARY + "' compare --trace '" +
                          trace.string() + "' --cluster '" + cluster.string() +
                          "' --policies fifo,backfill --threads 2 --format json --out '" +
                          out.string() + "' 2>/dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(out);
  const nlohmann::json j = nlohmann::json::parse(text.str());
  ASSERT_TRUE(j.contains("runs"));
  ASSERT_EQ(j["runs"].size(), 2u);
  for (const auto& run : j["runs"]) {
    const std::string policy = run.at("policy").get<std::string>();
    for (const char* key : {"cost", "waste", "by_team", "by_class", "by_region"})
      ASSERT_TRUE(run.contains(key)) << policy << ": no " << key;
    const auto& cost = run["cost"];
    for (const char* key :
         {"total_usd", "unattributed_usd", "rental_usd", "energy_usd", "energy_kwh", "co2_kg",
          "storage_usd", "series_wrapped", "booting_usd", "booting_gpu_hours"})
      EXPECT_TRUE(cost.contains(key)) << policy << ": no cost." << key;
    for (const char* key :
         {"idle_allocated_usd", "idle_unallocated_usd", "stranded_usd", "rework_usd",
          "peak_premium_usd", "oversized_usd", "storage_tier_usd", "duplicate_storage_usd"})
      EXPECT_TRUE(run["waste"].contains(key)) << policy << ": no waste." << key;
    EXPECT_TRUE(run["by_region"].contains("us-west")) << policy;
    EXPECT_TRUE(run["by_region"].contains("us-south")) << policy;
    EXPECT_EQ(run["by_region"].size(), 2u) << policy;
    const double total = cost["total_usd"].get<double>();
    const double tol = 1e-6 * std::abs(total);
    EXPECT_GT(total, 0) << policy;
    EXPECT_GT(cost["rental_usd"].get<double>(), 0) << policy;
    EXPECT_GT(cost["energy_kwh"].get<double>(), 0) << policy;
    EXPECT_GT(cost["co2_kg"].get<double>(), 0) << policy;
    // total = Σ teams + unattributed = Σ regions; Σ classes = Σ teams
    const double teams = sum_of(run["by_team"], "total_usd");
    EXPECT_NEAR(total, teams + cost["unattributed_usd"].get<double>(), tol) << policy;
    EXPECT_NEAR(sum_of(run["by_region"], "total_usd"), total, tol) << policy;
    EXPECT_NEAR(sum_of(run["by_class"], "total_usd"), teams, tol) << policy;
    EXPECT_NEAR(sum_of(run["by_region"], "rental_usd"), cost["rental_usd"].get<double>(), tol)
        << policy;
    for (const auto& [k, v] : run["waste"].items()) EXPECT_GE(v.get<double>(), 0) << k;
  }
}

}  // namespace
}  // namespace frugal
