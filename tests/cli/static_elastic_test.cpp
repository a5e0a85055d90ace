// `frugal simulate` on ITP cluster03 with the evaluation's cluster for it (time-of-use
// off-peak discounts, on-demand pools), classes, tiers and half the training jobs elastic,
// under --static-capacity and the default profile: it ends, every job completed. (It used
// to run forever: tou_shrink and elastic_grow undid each other; src/policy/tou_sizing.cpp.)
// Skipped without ../shared (the trace and the acceptance checks' cluster file).

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../common/file_util.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;

using testing::slurp;

TEST(CliStaticElastic, Cluster03WithStaticCapacityEnds) {
  const fs::path data = FRUGAL_SHARED_DATA;
  const fs::path trace = data / "traces/itp/raw/cluster03.csv";
  const fs::path cluster_in = data / "../checks/data/eval-c3.yaml";
  if (!fs::is_regular_file(trace) || !fs::is_regular_file(cluster_in))
    GTEST_SKIP() << "no shared data at " << data;
  std::string yaml = slurp(cluster_in);
  for (size_t at; (at = yaml.find("@ROOT@")) != std::string::npos;)
    yaml.replace(at, 6, FRUGAL_SOURCE_DIR);
  const fs::path dir = fs::temp_directory_path() / "frugal_static_elastic";
  fs::create_directories(dir);
  std::ofstream(dir / "c3.yaml") << yaml;
  const std::string cmd =
      std::string("timeout 300 '") + FRUGAL_BINARY + "' simulate --trace '" + trace.string() +
      "' --cluster '" + (dir / "c3.yaml").string() +
      "' --assign-classes 1 --assign-tiers 1 --elastic-share 0.5 --elastic-seed 1"
      " --static-capacity --format json --out '" +
      (dir / "out.json").string() + "' 2>'" + (dir / "err.txt").string() + "'";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << slurp(dir / "err.txt");
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "out.json"));
  EXPECT_GT(j["jobs"]["submitted"].get<int>(), 3000);
  EXPECT_EQ(j["jobs"]["completed"], j["jobs"]["submitted"]);
  EXPECT_FALSE(j.contains("stopped"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace frugal
