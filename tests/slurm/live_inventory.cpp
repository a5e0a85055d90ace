// The local cluster's inventory as frugal reads it, against deploy/slurm-local/.
#include "drivers/command.h"
#include "drivers/slurm_inventory.h"
#include "io/catalog_yaml.h"
#include "slurm/live_util.h"

namespace frugal {
namespace {

TEST(SlurmLive, InventoryMatchesConfig) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  ASSERT_TRUE(c.ping().ok()) << c.ping().error().message;
  auto nodes = c.nodes();
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  // gpu1-gpu4 always on; gpu5, gpu6 cloud nodes, powered down (listed: PrivateData=cloud).
  ASSERT_EQ(nodes.value().size(), 6u);
  for (const SlurmNode& n : nodes.value()) {
    const bool cloud = n.name == "gpu5" || n.name == "gpu6";
    const bool a100 = n.name == "gpu1" || n.name == "gpu2" || cloud;
    EXPECT_EQ(n.gpu_type, a100 ? "a100" : "h100") << n.name;
    EXPECT_EQ(n.gpus, a100 ? 8 : 4) << n.name;
    EXPECT_EQ(n.shards, a100 ? 64 : 32) << n.name;
    EXPECT_EQ(n.cpus, 16);
    const std::vector<std::string> features =
        cloud ? std::vector<std::string>{"a100", "cloud"} : std::vector<std::string>{n.gpu_type};
    EXPECT_EQ(n.features, features) << n.name;
    EXPECT_EQ(n.usable(), !cloud) << n.name << " " << n.state;
  }
  auto parts = c.partitions();
  ASSERT_TRUE(parts.ok()) << parts.error().message;
  ASSERT_EQ(parts.value().size(), 2u);
  for (const SlurmPartition& p : parts.value()) {
    if (p.name == "gpu") {
      EXPECT_EQ(p.nodes, (std::vector<std::string>{"gpu1", "gpu2", "gpu3", "gpu4"}));
    } else {
      EXPECT_EQ(p.name, "cloud");
      EXPECT_EQ(p.nodes, (std::vector<std::string>{"gpu5", "gpu6"}));
    }
  }
  auto catalog = load_builtin_catalog();
  ASSERT_TRUE(catalog.ok());
  auto spec = cluster_from_slurm(nodes.value(), c.config(), catalog.value(), "gpu");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec.value().total_gpus(), 24);
  EXPECT_EQ(catalog.value().at(spec.value().nodes[2].model).name, "H100");
}

// A drained node is seen as unusable (and its reason read) until it is resumed.
TEST(SlurmLive, DrainedNodeIsNotUsable) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  auto drain =
      run_checked({"scontrol", "update", "nodename=gpu4", "state=drain", "reason=frugal-test"});
  ASSERT_TRUE(drain.ok()) << drain.error().message;
  auto nodes = c.nodes();
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  const SlurmNode& n4 = nodes.value()[3];
  EXPECT_EQ(n4.name, "gpu4");
  EXPECT_FALSE(n4.usable());
  EXPECT_EQ(n4.reason, "frugal-test");
  auto resume = run_checked({"scontrol", "update", "nodename=gpu4", "state=resume"});
  ASSERT_TRUE(resume.ok()) << resume.error().message;
  EXPECT_TRUE(live::wait_until(
      [&] {
        auto again = c.nodes();
        return again.ok() && again.value()[3].usable();
      },
      10));
}

}  // namespace
}  // namespace frugal
