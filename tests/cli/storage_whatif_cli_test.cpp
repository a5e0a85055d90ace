// `frugal whatif --storage-lifecycle FILE` end to end: the recorded run and every policy's run
// price jobs' checkpoint series per tier as `simulate --storage-lifecycle` does (the same
// ledger option, the same output field: cost.storage_usd); a bad file is a clear error.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "../common/file_util.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using testing::slurp;

struct StorageWhatifRun {
  int code = -1;
  std::string out, err;
};

class StorageWhatifCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("frugal_storage_whatif_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // One 8-GPU job of 10 days writing 1 TB every 2 h, with its recorded start: a `recorded`
    // row beside the policies'.
    std::ofstream(dir_ / "t.csv")
        << "id,team,submit,gpus,duration,checkpoint_interval,checkpoint_gb,first_start\n"
           "a,t,0,8,864000,7200,1000,0\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  StorageWhatifRun frugal(const std::string& args) const {
    const std::string cmd = std::string("cd '") + FRUGAL_SOURCE_DIR + "' && '" + FRUGAL_BINARY +
                            "' " + args + " >'" + (dir_ / "out").string() + "' 2>'" +
                            (dir_ / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out"), slurp(dir_ / "err")};
  }
  std::string inputs() const {
    return "--trace '" + (dir_ / "t.csv").string() +
           "' --cluster examples/clusters/a100-640.yaml --format json ";
  }
  // (policy, actual, storage USD) of each run of a whatif --format json.
  std::vector<std::tuple<std::string, bool, double>> whatif(const std::string& extra) const {
    const StorageWhatifRun r = frugal("whatif " + inputs() + "--policies fifo,backfill " + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    std::vector<std::tuple<std::string, bool, double>> out;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded() || !j.contains("runs")) {
      ADD_FAILURE() << "no runs in: " << r.out.substr(0, 200);
      return out;
    }
    for (const auto& run : j["runs"])
      out.emplace_back(run["policy"].get<std::string>(), run["actual"].get<bool>(),
                       run["cost"]["storage_usd"].get<double>());
    return out;
  }
  double simulate(const std::string& extra) const {
    const StorageWhatifRun r = frugal("simulate " + inputs() + "--policy fifo " + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded() || !j.contains("cost")) {
      ADD_FAILURE() << "no cost in: " << r.out.substr(0, 200);
      return -1;
    }
    return j["cost"]["storage_usd"].get<double>();
  }
  fs::path dir_;
};

TEST_F(StorageWhatifCli, EveryRunPricesTheCheckpointSeriesAsSimulateDoes) {
  const std::string keep = "--storage-lifecycle examples/lifecycle/keep-everything.yaml";
  const std::string llm = "--storage-lifecycle examples/lifecycle/llm.yaml";
  const auto plain = whatif("");
  const auto all_hot = whatif(keep);
  const auto policy = whatif(llm);
  ASSERT_EQ(plain.size(), 3u);
  ASSERT_EQ(all_hot.size(), 3u);
  ASSERT_EQ(policy.size(), 3u);
  EXPECT_EQ(std::get<0>(all_hot[0]), "recorded");
  EXPECT_TRUE(std::get<1>(all_hot[0]));
  const double sim_keep = simulate(keep), sim_llm = simulate(llm);
  for (size_t i = 0; i < 3; ++i) {
    const std::string& name = std::get<0>(plain[i]);
    // Without the option: one copy of 1 TB hot for 10 days ($33.33), as before.
    EXPECT_NEAR(std::get<2>(plain[i]), 1000 * 0.10 / 3, 1e-6) << name;
    // 120 checkpoints, all kept hot: sum over k of (10 d - 2k h) x 1 TB; simulate's figure.
    EXPECT_NEAR(std::get<2>(all_hot[i]), 1000 * 0.10 * (119 * 120 / 2.0) * 2 / 720, 1e-6) << name;
    EXPECT_DOUBLE_EQ(std::get<2>(all_hot[i]), sim_keep) << name;
    EXPECT_DOUBLE_EQ(std::get<2>(policy[i]), sim_llm) << name;
    EXPECT_LT(std::get<2>(policy[i]), std::get<2>(all_hot[i]) / 10) << name;
    EXPECT_GT(std::get<2>(policy[i]), 0) << name;
  }
}

TEST_F(StorageWhatifCli, ABadPolicyFileIsAClearError) {
  std::ofstream(dir_ / "bad.yaml") << "lifecycle: {keep_hot: 2, warm_after: 60}\n";
  StorageWhatifRun r =
      frugal("whatif " + inputs() + "--storage-lifecycle '" + (dir_ / "bad.yaml").string() + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--storage-lifecycle"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown key(s) 'warm_after'"), std::string::npos) << r.err;
  r = frugal("whatif " + inputs() + "--storage-lifecycle '" + (dir_ / "none.yaml").string() + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--storage-lifecycle"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace frugal
