// `frugal storage` (src/cli/cmd_storage.cpp) on a serve config with temporary tier folders.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "storage_fixture.h"

namespace frugal::storage::testing {
namespace {

class StorageCli : public StorageTest {
 protected:
  // Runs `frugal storage ARGS`; returns the exit code, stdout and stderr in out/err.
  int run(const std::string& args) {
    const std::string cmd = fmt::format("cd '{}' && '{}' storage {} >'{}/out' 2>'{}/err'", root,
                                        FRUGAL_BINARY, args, root, root);
    const int status = std::system(cmd.c_str());
    out = read_file(root + "/out");
    err = read_file(root + "/err");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string out, err;
};

TEST_F(StorageCli, DatasetAddLsDuAndClearErrors) {
  write_file(root + "/serve.yaml",
             "db: state.db\nstorage:\n  tiers:\n    hot: {path: hot}\n    warm: {path: warm}\n"
             "    cold: {path: cold}\n");
  write_file(root + "/src/d/a.txt", "same");
  write_file(root + "/src/d/b.txt", "same");
  ASSERT_EQ(run("--config serve.yaml dataset add d@1 src/d --team nlp"), 0) << err;
  EXPECT_NE(out.find("d@1"), std::string::npos);
  ASSERT_EQ(run("dataset ls --json --config serve.yaml"), 0) << err;
  const auto ls = nlohmann::json::parse(out);
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0]["files"], 2);
  ASSERT_EQ(run("--config serve.yaml du --json"), 0) << err;
  const auto du = nlohmann::json::parse(out);
  EXPECT_EQ(du["dedup"]["logical_bytes"], 8);
  EXPECT_EQ(du["dedup"]["stored_bytes"], 4);
  ASSERT_EQ(run("--config serve.yaml gc --dry-run"), 0) << err;
  EXPECT_NE(out.find("would delete 0 item(s)"), std::string::npos);

  EXPECT_EQ(run("--config serve.yaml dataset add nameonly src/d"), 1);
  EXPECT_NE(err.find("expected NAME@VERSION"), std::string::npos) << err;
  write_file(root + "/serve.yaml",
             "storage:\n  tiers:\n    hot: {path: hot}\n    warm: {path: gone}\n");
  EXPECT_EQ(run("--config serve.yaml du"), 1);
  EXPECT_NE(err.find("storage.tiers.warm.path: " + root + "/gone does not exist"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace frugal::storage::testing
