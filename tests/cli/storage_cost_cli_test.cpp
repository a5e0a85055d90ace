// `frugal storage-cost` and `simulate --storage-lifecycle` end to end: the checkpoint
// lifecycle's simulated cost (src/storage/plan/checkpoint_storage.h) from the command line.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../common/file_util.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using testing::slurp;

struct StorageCostRun {
  int code = -1;
  std::string out, err;
};

class StorageCostCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("frugal_storage_cost_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  StorageCostRun frugal(const std::string& args) const {
    const std::string cmd = std::string("cd '") + FRUGAL_SOURCE_DIR + "' && '" + FRUGAL_BINARY +
                            "' " + args + " >'" + (dir_ / "out").string() + "' 2>'" +
                            (dir_ / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out"), slurp(dir_ / "err")};
  }
  // The ledger's storage USD of a simulate --format json run of `trace`.
  double storage_usd(const std::string& extra) const {
    const StorageCostRun r = frugal("simulate --trace '" + (dir_ / "t.csv").string() +
                                    "' --cluster examples/clusters/a100-640.yaml --policy fifo "
                                    "--format json " +
                                    extra);
    EXPECT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded() || !j.contains("cost")) {
      ADD_FAILURE() << "no cost in: " << r.out.substr(0, 200);
      return -1;
    }
    return j["cost"]["storage_usd"].get<double>();
  }
  fs::path dir_;
};

TEST_F(StorageCostCli, ThirtyDayRunWithAndWithoutTheLifecycle) {
  const StorageCostRun r = frugal(
      "storage-cost --lifecycle examples/lifecycle/llm.yaml --checkpoint-gb 1000 --interval-h 2 "
      "--run-days 30 --write-min 10");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("(360 written)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("17958.33"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ratio with/without: 0.0242"), std::string::npos) << r.out;
}

TEST_F(StorageCostCli, BadPolicyFileIsAClearError) {
  std::ofstream(dir_ / "bad.yaml") << "lifecycle: {keep_hot: 2, warm_after: 60}\n";
  const StorageCostRun r =
      frugal("storage-cost --lifecycle '" + (dir_ / "bad.yaml").string() + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("unknown key(s) 'warm_after'"), std::string::npos) << r.err;
}

TEST_F(StorageCostCli, SimulatePricesCheckpointSeriesOnlyWhenAsked) {
  std::ofstream(dir_ / "t.csv")
      << "id,team,submit,gpus,duration,checkpoint_interval,checkpoint_gb\n"
         "a,t,0,8,864000,7200,1000\n";
  const double plain = storage_usd("");
  const double all_hot = storage_usd("--storage-lifecycle examples/lifecycle/keep-everything.yaml");
  const double policy = storage_usd("--storage-lifecycle examples/lifecycle/llm.yaml");
  // One copy of 1 TB hot for 10 days: $33.33.
  EXPECT_NEAR(plain, 1000 * 0.10 / 3, 1e-6);
  // 120 checkpoints, all kept hot: sum over k of (10 d - 2k h) x 1 TB.
  EXPECT_NEAR(all_hot, 1000 * 0.10 * (119 * 120 / 2.0) * 2 / 720, 1e-6);
  EXPECT_LT(policy, all_hot / 10);
  EXPECT_GT(policy, 0);
}

}  // namespace
}  // namespace frugal
