// The storage configuration (src/storage/storage_config.h, storage_yaml.h): bad tier folders
// and bad YAML fields are clear errors naming the tier and field.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "storage/storage_yaml.h"
#include "storage_fixture.h"

namespace frugal::storage::testing {
namespace {

class StorageConfigCheck : public StorageTest {};

TEST_F(StorageConfigCheck, MissingOrUnusableTierPathNamesTheTier) {
  EXPECT_TRUE(validate(config).ok());
  tier("warm").path = root + "/nowhere";
  Status s = validate(config);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "storage.tiers.warm.path: " + root + "/nowhere does not exist");
  auto m = StorageManager::open(config, db_path);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("storage.tiers.warm.path"), std::string::npos);

  tier("warm").path = root + "/warm";
  write_file(root + "/afile", "x");
  tier("cold").standby_path = root + "/afile";
  s = validate(config);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("storage.tiers.cold.standby_path"), std::string::npos);
  EXPECT_NE(s.error().message.find("is not a directory"), std::string::npos);
  tier("cold").standby_path.clear();

  if (::geteuid() != 0) {  // root writes anywhere
    ::chmod((root + "/hot").c_str(), 0555);
    s = validate(config);
    ::chmod((root + "/hot").c_str(), 0755);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("storage.tiers.hot.path"), std::string::npos);
    EXPECT_NE(s.error().message.find("is not writable"), std::string::npos);
  }
}

TEST_F(StorageConfigCheck, YamlSectionParsesAndNamesBadFields) {
  const YAML::Node n = YAML::Load(R"(
tiers:
  hot: {path: /nvme, capacity_gb: 2, usd_per_gb_month: 0.1, standby_path: /nvme2}
  warm: {path: /shared}
  cold: {path: /archive, mover_command: "cp -r {src} /mnt/{rel}"}
lifecycle: {keep_hot: 1, warm_after_s: 60}
team_policies: {nlp: {retain_count: 5}}
checkpoint_marker: DONE
dataset_roots: [/shared/datasets, /scratch]
)");
  auto c = parse_storage_yaml(n, "serve.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c.value().enabled);
  ASSERT_EQ(c.value().tiers.size(), 3u);
  const TierConfig* hot = find_tier(c.value(), "hot");
  ASSERT_TRUE(hot);
  EXPECT_EQ(hot->capacity_bytes, 2000000000u);
  EXPECT_EQ(hot->standby_path, "/nvme2");
  EXPECT_EQ(find_tier(c.value(), "cold")->mover_command, "cp -r {src} /mnt/{rel}");
  EXPECT_EQ(c.value().default_policy.keep_hot, 1);
  EXPECT_EQ(policy_for(c.value(), "nlp").retain_count, 5);
  EXPECT_EQ(policy_for(c.value(), "nlp").keep_hot, 1);  // inherits the default
  EXPECT_EQ(policy_for(c.value(), "other").retain_count, 0);
  EXPECT_EQ(c.value().marker, "DONE");
  EXPECT_EQ(c.value().dataset_roots, (std::vector<std::string>{"/shared/datasets", "/scratch"}));
  auto roots = parse_storage_yaml(YAML::Load("dataset_roots: /one"), "s.yaml");
  ASSERT_FALSE(roots.ok());
  EXPECT_EQ(roots.error().message, "s.yaml: storage.dataset_roots: expected a list of folders");

  auto bad =
      parse_storage_yaml(YAML::Load("tiers: {hot: {path: /x, capacity_gb: lots}}"), "serve.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "serve.yaml: storage.tiers.hot.capacity_gb: expected a number");
  auto unknown = parse_storage_yaml(YAML::Load("tiers: {lukewarm: {path: /x}}"), "s.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("storage.tiers.lukewarm: unknown tier"),
            std::string::npos);
}

}  // namespace
}  // namespace frugal::storage::testing
