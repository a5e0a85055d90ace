// Garbage collection: checkpoints the lifecycle policy deletes, dataset objects no manifest
// references, unrecorded files in the object area (StorageManager::gc).
#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "storage/files.h"
#include "storage/storage_db.h"
#include "storage/storage_manager.h"

namespace frugal::storage {
namespace fs = std::filesystem;

namespace {

void orphan_objects(const StorageDb& db, const std::string& warm, std::vector<GcItem>& out) {
  std::error_code ec;
  const std::string root = warm + "/objects";
  if (!fs::is_directory(root, ec)) return;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string name = it->path().filename().string();
    if (name.find(kTmpInfix) != std::string::npos || !db.object(name))
      out.push_back(GcItem{"orphan", it->path().string(), it->file_size(ec),
                           "in the object area but not recorded"});
  }
}

}  // namespace

Result<std::vector<GcItem>> StorageManager::gc(
    bool dry_run, double now, const std::function<bool(const std::string&)>& can_restart) {
  if (!dry_run) {
    if (Status s = writable("gc"); !s.ok()) return s.error();
  }
  std::vector<GcItem> items;
  std::vector<int64_t> ids;     // records to drop, parallel to items (0: none)
  size_t checkpoint_items = 0;  // the first ones
  std::vector<CheckpointRecord> recs = checkpoints();
  std::vector<CheckpointInfo> infos;
  for (const CheckpointRecord& c : recs)
    infos.push_back(CheckpointInfo{c.job, c.team, c.name, c.step, c.completed_at, c.tier, c.bytes});
  const auto policy = [this](const std::string& team) -> const LifecyclePolicy& {
    return policy_for(config_, team);
  };
  for (const LifecycleAction& a : plan_lifecycle(infos, policy, now, can_restart)) {
    if (a.kind != ActionKind::remove) continue;
    const CheckpointRecord& c = recs.at(a.index);
    items.push_back(GcItem{"checkpoint", c.path, c.bytes, a.reason});
    ids.push_back(c.id);
    ++checkpoint_items;
  }
  for (const FileSet& f : db_->filesets("dataset-object")) {
    if (f.refcount > 0) continue;
    items.push_back(GcItem{"dataset-object", f.path, f.bytes, "no dataset references it"});
    ids.push_back(f.id);
  }
  if (const TierConfig* warm = find_tier(config_, "warm")) {
    const size_t before = items.size();
    orphan_objects(*db_, warm->path, items);
    ids.resize(ids.size() + items.size() - before, 0);
  }
  if (dry_run) return items;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i < checkpoint_items) {
      if (Status s = delete_checkpoint(ids[i], items[i].path, now); !s.ok()) return s.error();
      continue;
    }
    if (ids[i] != 0)
      if (Status s = db_->delete_fileset(ids[i], now); !s.ok()) return s.error();
    if (Status s = remove_tree(items[i].path); !s.ok()) return s.error();
  }
  return items;
}

}  // namespace frugal::storage
