// parse_lifecycle_yaml (src/io/lifecycle_yaml.h): the simulator's lifecycle policies file.
#include "io/lifecycle_yaml.h"

#include <gtest/gtest.h>

#include <string>

namespace frugal {
namespace {

TEST(StorageLifecycleYaml, DefaultsTeamsAndInterval) {
  auto r = parse_lifecycle_yaml(R"(
lifecycle: {keep_hot: 3, warm_after_s: 3600, cold_after_s: 86400, retain_count: 20}
team_policies:
  nlp: {keep_hot: 1, retain_age_s: 604800}
lifecycle_interval_s: 600
)",
                                "p.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& p = r.value();
  EXPECT_EQ(p.default_policy.keep_hot, 3);
  EXPECT_EQ(p.default_policy.warm_after_s, 3600);
  EXPECT_EQ(p.default_policy.cold_after_s, 86400);
  EXPECT_EQ(p.default_policy.retain_count, 20);
  EXPECT_EQ(p.default_policy.retain_age_s, 0);
  EXPECT_EQ(p.sweep_s, 600);
  // A team's fields not given are the default policy's.
  EXPECT_EQ(p.for_team("nlp").keep_hot, 1);
  EXPECT_EQ(p.for_team("nlp").retain_count, 20);
  EXPECT_EQ(p.for_team("nlp").retain_age_s, 604800);
  EXPECT_EQ(p.for_team("vision").keep_hot, 3);
}

TEST(StorageLifecycleYaml, ReadsAServeConfigsStorageSection) {
  auto r = parse_lifecycle_yaml(R"(
storage:
  tiers: {hot: {path: /nvme}, warm: {path: /shared}}
  checkpoint_marker: DONE
  lifecycle: {keep_hot: 4, warm_after_s: -1}
)",
                                "serve.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().default_policy.keep_hot, 4);
  EXPECT_EQ(r.value().default_policy.warm_after_s, -1);
  EXPECT_EQ(r.value().sweep_s, 300);
}

TEST(StorageLifecycleYaml, BadInputNamesTheField) {
  auto err = [](const std::string& text) {
    auto r = parse_lifecycle_yaml(text, "p.yaml");
    return r.ok() ? std::string("ok") : r.error().message;
  };
  EXPECT_NE(err("lifecycle: {keep_hot: -1}").find("p.yaml: lifecycle.keep_hot: must be between"),
            std::string::npos);
  EXPECT_NE(err("lifecycle: {keep_hot: 2, warm_after: 5}").find("unknown key(s) 'warm_after'"),
            std::string::npos);
  EXPECT_NE(err("lifecycle_interval_s: 0").find("lifecycle_interval_s: must be > 0"),
            std::string::npos);
  EXPECT_NE(err("team_policies: {a: {retain_age_s: -5}}")
                .find("team_policies.a.retain_age_s: must be >= 0"),
            std::string::npos);
  EXPECT_NE(err("policies: {}").find("unknown key(s) 'policies'"), std::string::npos);
  EXPECT_NE(err("lifecycle: [1, 2]").find("lifecycle: expected a map"), std::string::npos);
  EXPECT_NE(err("lifecycle: {keep_hot: two}").find("lifecycle.keep_hot"), std::string::npos);
}

}  // namespace
}  // namespace frugal
