// The `slurm:` block of the serve config (examples/slurm.yaml) and its validation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "service/config.h"

namespace frugal {
namespace {

std::string write_config(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p) << text;
  return p.string();
}

const char* kTeams =
    "teams:\n  alpha: {token_sha256: "
    "96b19de18b9c05f8b1befddab64f030fe3203ba6f76814ce9b690eec08f5f8ce}\n";

TEST(SlurmServeConfig, ExampleLoads) {
  auto c = load_service_config(std::string(FRUGAL_SOURCE_DIR) + "/examples/slurm.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().backend, "slurm");
  EXPECT_EQ(c.value().slurm.rest_url, "http://127.0.0.1:6820");
  EXPECT_EQ(c.value().slurm.partition, "gpu");
  EXPECT_EQ(c.value().slurm_stale_after_s, 10);
  ASSERT_EQ(c.value().slurm.gpu_map.size(), 2u);
  ASSERT_NE(c.value().slurm.by_gres_type("h100"), nullptr);
  EXPECT_EQ(c.value().slurm.by_gres_type("h100")->model, "H100");
  EXPECT_EQ(c.value().slurm.by_gres_type("a100")->model, "A100-80GB");
  EXPECT_EQ(c.value().slurm.by_gres_type("l4"), nullptr);  // the map replaces the defaults
}

TEST(SlurmServeConfig, ErrorsNameTheKey) {
  auto unknown = load_service_config(write_config(
      "frugal_slurm_cfg1.yaml", std::string("backend: slurm\nslurm: {rest_ur: x}\n") + kTeams));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("slurm: unknown key 'rest_ur'"), std::string::npos)
      << unknown.error().message;
  auto stale = load_service_config(write_config(
      "frugal_slurm_cfg2.yaml",
      std::string("backend: slurm\nslurm: {poll_interval_s: 5, stale_after_s: 2}\n") + kTeams));
  ASSERT_FALSE(stale.ok());
  EXPECT_NE(stale.error().message.find("stale_after_s > poll_interval_s"), std::string::npos)
      << stale.error().message;
  auto backend = load_service_config(
      write_config("frugal_slurm_cfg3.yaml", std::string("backend: lsf\n") + kTeams));
  ASSERT_FALSE(backend.ok());
  EXPECT_NE(backend.error().message.find("not local, dry-run or slurm"), std::string::npos);
}

TEST(SlurmServeConfig, ManageExternalIsRefusedNamingTheField) {
  auto c = load_service_config(
      write_config("frugal_slurm_cfg4.yaml",
                   std::string("backend: slurm\nslurm: {manage_external: true}\n") + kTeams));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("slurm.manage_external: true is not supported"),
            std::string::npos)
      << c.error().message;
  auto off = load_service_config(
      write_config("frugal_slurm_cfg5.yaml",
                   std::string("backend: slurm\nslurm: {manage_external: false}\n") + kTeams));
  EXPECT_TRUE(off.ok()) << off.error().message;
}

TEST(SlurmServeConfig, ExternalTeamNameIsReserved) {
  auto c = load_service_config(
      write_config("frugal_slurm_cfg6.yaml",
                   "teams:\n  external: {token_sha256: "
                   "96b19de18b9c05f8b1befddab64f030fe3203ba6f76814ce9b690eec08f5f8ce}\n"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("teams.external: reserved"), std::string::npos)
      << c.error().message;
}

TEST(SlurmServeConfig, TierPrioritiesCoreHighestAndConfigurable) {
  SlurmConfig d;
  EXPECT_GT(d.priority_for_tier("core"), d.priority_for_tier("important"));
  EXPECT_GT(d.priority_for_tier("important"), d.priority_for_tier("general"));
  EXPECT_EQ(d.priority_for_tier("unknown"), d.priority_for_tier("general"));
  auto c = load_service_config(write_config(
      "frugal_slurm_cfg7.yaml",
      std::string("backend: slurm\nslurm: {priority_core: 900, priority_important: 500, "
                  "priority_general: 7}\n") +
          kTeams));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().slurm.priority_for_tier("core"), 900);
  EXPECT_EQ(c.value().slurm.priority_for_tier("important"), 500);
  EXPECT_EQ(c.value().slurm.priority_for_tier("general"), 7);
  auto bad = load_service_config(write_config(
      "frugal_slurm_cfg8.yaml",
      std::string("backend: slurm\nslurm: {priority_core: 5, priority_important: 500}\n") +
          kTeams));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("core > important > general"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace frugal
