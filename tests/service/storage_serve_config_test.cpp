// The serve config's `storage:` section (service/config.h) and a job's `datasets`
// (service/job_request.h): read with tier folders relative to the config file; refused with
// the file and the field at fault; absent means storage off.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "../io/reader_test_util.h"
#include "service/config.h"
#include "service/job_request.h"

namespace frugal {
namespace {

struct Loader {
  testing::TempDir dir;
  std::string base = "admin: {token_sha256: " + std::string(64, 'a') +
                     "}\nteams:\n  alpha: {token_sha256: " + std::string(64, 'b') + "}\n";
  std::string path;
  Loader() {
    for (const char* t : {"hot", "warm", "cold"})
      std::filesystem::create_directories(std::filesystem::path(dir.path()) / t);
  }
  Result<ServiceConfig> operator()(const std::string& extra) {
    path = dir.write("serve.yaml", base + extra);
    return load_service_config(path);
  }
};

constexpr const char* kTiers =
    "storage:\n  tiers:\n    hot: {path: hot, capacity_gb: 2, usd_per_gb_month: 0.1}\n"
    "    warm: {path: warm}\n    cold: {path: cold}\n";

TEST(StorageServeConfig, AbsentSectionIsStorageOff) {
  Loader load;
  auto c = load("");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c.value().storage.enabled);
  auto off = load("storage: {enabled: false}\n");
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_FALSE(off.value().storage.enabled);
}

TEST(StorageServeConfig, TiersAreReadBesideTheConfigFile) {
  Loader load;
  auto c = load(std::string(kTiers) + "  lifecycle: {keep_hot: 3}\n  lifecycle_interval_s: 60\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const storage::StorageConfig& s = c.value().storage;
  EXPECT_TRUE(s.enabled);
  ASSERT_EQ(s.tiers.size(), 3u);
  const storage::TierConfig* hot = storage::find_tier(s, "hot");
  ASSERT_NE(hot, nullptr);
  EXPECT_EQ(std::filesystem::path(hot->path),
            std::filesystem::path(load.path).parent_path() / "hot");
  EXPECT_EQ(hot->capacity_bytes, 2'000'000'000u);
  EXPECT_EQ(s.default_policy.keep_hot, 3);
  EXPECT_DOUBLE_EQ(s.lifecycle_interval_s, 60);
}

TEST(StorageServeConfig, MissingTierFolderNamesTheField) {
  Loader load;
  auto c = load("storage:\n  tiers:\n    hot: {path: hot}\n    warm: {path: no-such-folder}\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("serve.yaml"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("storage.tiers.warm.path"), std::string::npos)
      << c.error().message;
  auto unknown = load(std::string(kTiers) + "  tier_speed: 3\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("tier_speed"), std::string::npos);
  auto slurm = load(std::string(kTiers) + "backend: slurm\n");
  ASSERT_FALSE(slurm.ok());
  EXPECT_NE(slurm.error().message.find("storage"), std::string::npos);
}

TEST(StorageServeConfig, TierAlertMayPauseTheGeneralTierOnlyWithStorage) {
  Loader load;
  const std::string pause = "pause_general: {on: [storage_tier_unavailable]}\n";
  EXPECT_TRUE(load(std::string(kTiers) + pause).ok());
  auto off = load(pause);
  ASSERT_FALSE(off.ok());
  EXPECT_NE(off.error().message.find("storage_tier_unavailable"), std::string::npos);
}

TEST(StorageJobRequest, DatasetsAreParsedAndStored) {
  const GpuCatalog catalog;
  const RequestLimits limits;
  auto ok = parse_job_request(
      nlohmann::json{{"command", "true"}, {"datasets", {"corpus@v1", "tok@2024-01"}}}, catalog,
      limits);
  ASSERT_TRUE(std::holds_alternative<JobRequest>(ok));
  const JobRequest& r = std::get<JobRequest>(ok);
  EXPECT_EQ(r.datasets, (std::vector<std::string>{"corpus@v1", "tok@2024-01"}));
  auto stored = job_request_from_stored(to_json(r));
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored.value().datasets, r.datasets);
  for (const nlohmann::json& bad :
       {nlohmann::json{{"command", "true"}, {"datasets", "corpus@v1"}},
        nlohmann::json{{"command", "true"}, {"datasets", {"corpus"}}},
        nlohmann::json{{"command", "true"}, {"datasets", {"a@1", "a@1"}}},
        nlohmann::json{{"command", "true"}, {"datasets", {"../x@1"}}}}) {
    auto e = parse_job_request(bad, catalog, limits);
    ASSERT_TRUE(std::holds_alternative<FieldError>(e)) << bad.dump();
    EXPECT_EQ(std::get<FieldError>(e).field, "datasets") << bad.dump();
  }
  for (const char* sim : {"dataset", "storage_tier"}) {
    auto e = parse_job_request(nlohmann::json{{"command", "true"}, {sim, "x"}}, catalog, limits);
    ASSERT_TRUE(std::holds_alternative<FieldError>(e));
    EXPECT_EQ(std::get<FieldError>(e).field, sim);
  }
}

}  // namespace
}  // namespace frugal
