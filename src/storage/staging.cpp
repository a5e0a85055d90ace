// Staging datasets onto a node's hot tier, release, LRU eviction, locality
// (StorageManager::stage and friends).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "storage/files.h"
#include "storage/storage_db.h"
#include "storage/storage_manager.h"

namespace frugal::storage {

Status StorageManager::materialise(const std::vector<ManifestEntry>& files,
                                   const std::string& dir) {
  if (Status s = make_dirs(dir); !s.ok()) return s;
  for (const ManifestEntry& e : files) {
    const std::optional<FileSet> obj = db_->object(e.hash);
    if (!obj)
      return Error{fmt::format("dataset object {} ({}) is not recorded", e.hash, e.relpath)};
    const std::string dst = dir + "/" + e.relpath;
    if (Status s = make_dirs(parent_of(dst)); !s.ok()) return s;
    if (::link(obj->path.c_str(), dst.c_str()) == 0) continue;
    // Another file system (or no hard links): a verified copy.
    if (Status s = copy_tree(obj->path, dst); !s.ok()) return s;
    auto h = sha256_file(dst);
    if (!h.ok() || h.value() != e.hash)
      return Error{fmt::format("staged copy of {} does not match its checksum", e.relpath)};
  }
  return fsync_path(dir);
}

Status StorageManager::make_room(const std::string& node, uint64_t bytes,
                                 std::vector<std::string>& evicted, double now) {
  const TierConfig* hot = find_tier(config_, "hot");
  if (!hot || hot->capacity_bytes == 0) return {};
  uint64_t used = 0, freeable = 0;
  std::vector<FileSet> unused;
  for (const FileSet& f : db_->filesets("")) {
    if (f.tier != "hot" || f.node != node) continue;
    used += f.bytes;
    if (f.kind == "staged" && db_->users(f.id).empty()) {
      unused.push_back(f);
      freeable += f.bytes;
    }
  }
  if (used + bytes <= hot->capacity_bytes) return {};
  if (used - freeable + bytes > hot->capacity_bytes)
    return Error{fmt::format(
        "hot tier of node '{}' cannot fit {} bytes: {} of {} used, only {} in staged datasets "
        "no running job uses",
        node, bytes, used, hot->capacity_bytes, freeable)};
  std::sort(unused.begin(), unused.end(), [](const FileSet& a, const FileSet& b) {
    return a.last_use != b.last_use ? a.last_use < b.last_use : a.id < b.id;
  });
  for (const FileSet& f : unused) {
    if (used + bytes <= hot->capacity_bytes) break;
    if (Status s = db_->delete_fileset(f.id, now); !s.ok()) return s;
    (void)remove_tree(f.path);
    used -= f.bytes;
    evicted.push_back(f.path);
  }
  return {};
}

Result<StagedDataset> StorageManager::stage(const std::string& spec, const std::string& node,
                                            const std::string& job, int shard_index,
                                            int shard_count, double now) {
  if (Status s = writable("stage"); !s.ok()) return s.error();

  if (shard_count < 1 || shard_index < 0 || shard_index >= shard_count)
    return Error{
        fmt::format("stage {}: shard {} of {} is out of range", spec, shard_index, shard_count)};
  if (node.empty() || node.find('/') != std::string::npos)
    return Error{fmt::format("stage {}: bad node name '{}'", spec, node)};
  auto ds = find_dataset(spec);
  if (!ds.ok()) return ds.error();
  auto root = tier_root(Tier::hot);
  if (!root.ok()) return root.error();
  const std::string leaf =
      shard_count == 1 ? spec : fmt::format("{}.shard-{}-of-{}", spec, shard_index, shard_count);
  StagedDataset out;
  out.dir = fmt::format("{}/{}/datasets/{}", root.value(), node, leaf);
  const std::vector<ManifestEntry> files =
      shard_files(ds.value().manifest, shard_index, shard_count);
  for (const ManifestEntry& e : files) {
    out.files.push_back(e.relpath);
    out.bytes += e.bytes;
  }
  if (std::optional<FileSet> have = db_->fileset_by_path(out.dir)) {
    if (path_exists(out.dir)) {
      have->last_use = now;
      if (Status s = db_->update_fileset(*have); !s.ok()) return s.error();
      if (Status s = db_->add_user(have->id, job); !s.ok()) return s.error();
      out.reused = true;
      return out;
    }
    if (Status s = db_->delete_fileset(have->id, now); !s.ok()) return s.error();
  }
  if (Status s = make_room(node, out.bytes, out.evicted, now); !s.ok()) return s.error();
  const std::string tmp = out.dir + kTmpInfix + "stage";
  (void)remove_tree(tmp);
  (void)remove_tree(out.dir);  // unrecorded leftover of an interrupted stage
  if (Status s = materialise(files, tmp); !s.ok()) {
    (void)remove_tree(tmp);
    return s.error();
  }
  if (Status s = rename_path(tmp, out.dir); !s.ok()) return s.error();
  // Billed to the job that staged it and that job's team (storage_jobs), else the dataset's
  // first declaring team.
  FileSet f;
  f.kind = "staged";
  f.job = job;
  f.team = ds.value().teams.empty() ? "" : ds.value().teams.front();
  if (const auto known = db_->job(job); known && !known->first.empty()) f.team = known->first;
  f.tier_since = now;
  f.tier = "hot";
  f.path = out.dir;
  f.bytes = out.bytes;
  f.last_use = now;
  f.name = spec;
  f.node = node;
  f.shard_index = shard_index;
  f.shard_count = shard_count;
  // The record, its user and the transfer (warm objects -> hot, by logical bytes whether hard
  // linked or copied) in one transaction.
  if (Status s = db_->begin(); !s.ok()) return s.error();
  auto id = db_->insert_fileset(f);
  Status st = id.ok() ? db_->add_user(id.value(), job) : Status(id.error());
  if (st.ok()) st = db_->add_transfer(TransferRow{f.team, job, "warm", "hot", out.bytes, now});
  if (st.ok()) st = db_->commit();
  if (!st.ok()) {
    db_->rollback();
    return st.error();
  }
  return out;
}

Status StorageManager::release(const std::string& job, double now) {
  if (Status s = writable("release"); !s.ok()) return s;

  for (FileSet f : db_->filesets("staged")) {
    const auto users = db_->users(f.id);
    if (std::find(users.begin(), users.end(), job) == users.end()) continue;
    f.last_use = now;
    if (Status s = db_->update_fileset(f); !s.ok()) return s;
  }
  return db_->remove_users(job);
}

std::vector<std::string> StorageManager::nodes_holding(const std::string& spec) const {
  std::set<std::string> nodes;
  for (const FileSet& f : db_->filesets("staged"))
    if (f.name == spec && path_exists(f.path)) nodes.insert(f.node);
  return {nodes.begin(), nodes.end()};
}

}  // namespace frugal::storage
