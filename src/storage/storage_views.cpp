// What the manager holds, per tier, team and dataset (StorageManager::view, view_json).
#include <nlohmann/json.hpp>

#include "storage/storage_db.h"
#include "storage/storage_manager.h"

namespace frugal::storage {

StorageView StorageManager::view() const {
  StorageView v;
  const std::vector<FileSet> all = db_->filesets("");
  for (const TierConfig& t : config_.tiers) {
    TierUsage u;
    u.name = t.name;
    u.path = t.path;
    Tier tier{};
    if (parse_tier(t.name, tier))
      if (auto root = tier_root(tier); root.ok()) u.active_path = root.value();
    u.capacity_bytes = t.capacity_bytes;
    u.usd_per_gb_month = t.usd_per_gb_month;
    for (const FileSet& f : all) {
      if (f.tier != t.name) continue;
      u.used_bytes += f.bytes;
      ++u.file_sets[f.kind];
    }
    v.tiers.push_back(std::move(u));
  }
  for (const FileSet& f : all) {
    if (f.kind == "checkpoint") {
      v.team_bytes[f.team] += f.bytes;
      ++v.checkpoints;
    } else if (f.kind == "dataset-object") {
      v.dataset_stored_bytes += f.bytes;
      ++v.objects;
    } else if (f.kind == "staged") {
      ++v.staged;
    }
  }
  for (const DatasetRow& d : db_->datasets()) {
    ++v.datasets;
    uint64_t bytes = 0;
    for (const auto& entry : db_->manifest(d.spec)) bytes += std::get<2>(entry);
    v.dataset_logical_bytes += bytes;
    for (const std::string& team : db_->teams(d.spec)) v.team_bytes[team] += bytes;
  }
  if (v.dataset_stored_bytes > 0)
    v.dedup_ratio =
        static_cast<double>(v.dataset_logical_bytes) / static_cast<double>(v.dataset_stored_bytes);
  v.alerts = tier_alerts();
  return v;
}

std::string view_json(const StorageView& v) {
  nlohmann::json j;
  j["tiers"] = nlohmann::json::array();
  for (const TierUsage& t : v.tiers)
    j["tiers"].push_back({{"name", t.name},
                          {"path", t.path},
                          {"active_path", t.active_path},
                          {"used_bytes", t.used_bytes},
                          {"capacity_bytes", t.capacity_bytes},
                          {"usd_per_gb_month", t.usd_per_gb_month},
                          {"file_sets", t.file_sets}});
  j["team_bytes"] = v.team_bytes;
  j["dedup"] = {{"logical_bytes", v.dataset_logical_bytes},
                {"stored_bytes", v.dataset_stored_bytes},
                {"ratio", v.dedup_ratio}};
  j["counts"] = {{"datasets", v.datasets},
                 {"objects", v.objects},
                 {"checkpoints", v.checkpoints},
                 {"staged", v.staged}};
  j["alerts"] = v.alerts;
  return j.dump(2);
}

}  // namespace frugal::storage
