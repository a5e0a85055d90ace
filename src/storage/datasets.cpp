// Datasets: content-addressed objects on the warm tier, manifests and refcounts
// (StorageManager::add_dataset and friends; staging is in staging.cpp).
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "storage/files.h"
#include "storage/storage_db.h"
#include "storage/storage_manager.h"

namespace frugal::storage {
namespace fs = std::filesystem;

Result<std::pair<std::string, std::string>> parse_dataset_spec(const std::string& spec) {
  const size_t at = spec.find('@');
  if (at == std::string::npos || at == 0 || at + 1 == spec.size() ||
      spec.find('@', at + 1) != std::string::npos)
    return Error{fmt::format("dataset '{}': expected NAME@VERSION", spec)};
  for (char c : spec)
    if (c == '/' || c == '\0' || c == ' ' || c == '\\')
      return Error{
          fmt::format("dataset '{}': NAME@VERSION may not hold '/', '\\' or spaces", spec)};
  return std::make_pair(spec.substr(0, at), spec.substr(at + 1));
}

namespace {

Result<std::vector<ManifestEntry>> hash_tree(const std::string& path) {
  auto files = list_files(path);
  if (!files.ok()) return Error{fmt::format("dataset path {}", files.error().message)};
  if (files.value().empty()) return Error{fmt::format("dataset path {} holds no files", path)};
  std::error_code ec;
  const bool single = fs::is_regular_file(path, ec);
  std::vector<ManifestEntry> out;
  for (const std::string& rel : files.value()) {
    const std::string src = single ? path : path + "/" + rel;
    auto h = sha256_file(src);
    if (!h.ok()) return h.error();
    out.push_back(ManifestEntry{rel, h.value(), static_cast<uint64_t>(fs::file_size(src, ec))});
  }
  return out;
}

// Copies `src` into the object store at `dst` (tmp, verify, read-only, rename) unless a
// verified copy is already there (an unrecorded object left by an interrupted add).
Status store_object(const std::string& src, const std::string& hash, const std::string& dst) {
  if (path_exists(dst)) {
    auto h = sha256_file(dst);
    if (h.ok() && h.value() == hash) return {};
    if (Status s = remove_tree(dst); !s.ok()) return s;
  }
  if (Status s = make_dirs(parent_of(dst)); !s.ok()) return s;
  const std::string tmp = dst + kTmpInfix + "obj";
  (void)remove_tree(tmp);
  if (Status s = copy_tree(src, tmp); !s.ok()) return s;
  auto h = sha256_file(tmp);
  if (!h.ok() || h.value() != hash) {
    (void)remove_tree(tmp);
    return Error{fmt::format("dataset file {} was modified while adding it", src)};
  }
  ::chmod(tmp.c_str(), 0444);
  return rename_path(tmp, dst);
}

bool same_manifest(const std::vector<ManifestEntry>& a, const std::vector<ManifestEntry>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const ManifestEntry& x, const ManifestEntry& y) {
                      return x.relpath == y.relpath && x.hash == y.hash;
                    });
}

// Closes the open intervals of the objects `manifest` shares at `now`: their split among teams
// is about to change (a dataset declared or dropped), so the bill stays exact per team.
Status close_shared(StorageDb& db, const std::vector<ManifestEntry>& manifest, double now) {
  for (const ManifestEntry& e : manifest) {
    std::optional<FileSet> obj = db.object(e.hash);
    if (!obj || obj->tier_since >= now) continue;
    if (Status s = db.add_usage(*obj, now); !s.ok()) return s;
    obj->tier_since = now;
    if (Status s = db.update_fileset(*obj); !s.ok()) return s;
  }
  return {};
}

Status record_dataset(StorageDb& db, const DatasetRow& row, const std::string& team,
                      const std::vector<ManifestEntry>& manifest,
                      const std::map<std::string, std::string>& object_paths, double now) {
  if (Status s = close_shared(db, manifest, now); !s.ok()) return s;
  if (Status s = db.insert_dataset(row); !s.ok()) return s;
  if (Status s = db.add_team(row.spec, team); !s.ok()) return s;
  for (const ManifestEntry& e : manifest) {
    if (Status s = db.add_manifest(row.spec, e.relpath, e.hash, e.bytes); !s.ok()) return s;
    std::optional<FileSet> obj = db.object(e.hash);
    if (obj) {
      ++obj->refcount;
      obj->last_use = now;
      if (Status s = db.update_fileset(*obj); !s.ok()) return s;
      continue;
    }
    FileSet f;
    f.kind = "dataset-object";
    f.team = team;
    f.tier = "warm";
    f.path = object_paths.at(e.hash);
    f.bytes = e.bytes;
    f.checksum = e.hash;
    f.refcount = 1;
    f.last_use = now;
    f.tier_since = now;
    f.name = e.hash;
    if (auto id = db.insert_fileset(f); !id.ok()) return id.error();
  }
  return {};
}

}  // namespace

Result<DatasetInfo> StorageManager::add_dataset(const std::string& spec, const std::string& path,
                                                const std::string& team, double now) {
  if (Status s = writable("add_dataset"); !s.ok()) return s.error();

  auto parts = parse_dataset_spec(spec);
  if (!parts.ok()) return parts.error();
  auto manifest = hash_tree(path);
  if (!manifest.ok()) return manifest.error();
  if (auto have = find_dataset(spec); have.ok()) {
    if (!same_manifest(have.value().manifest, manifest.value()))
      return Error{fmt::format(
          "dataset {} is already registered with different content; register a new version", spec)};
    if (Status s = db_->begin(); !s.ok()) return s.error();
    Status s = close_shared(*db_, have.value().manifest, now);
    if (s.ok()) s = db_->add_team(spec, team);
    if (s.ok()) s = db_->commit();
    if (!s.ok()) {
      db_->rollback();
      return s.error();
    }
    return find_dataset(spec);
  }
  auto warm = tier_root(Tier::warm);
  if (!warm.ok()) return warm.error();
  std::error_code ec;
  const bool single = fs::is_regular_file(path, ec);
  std::map<std::string, std::string> object_paths;  // hash -> path, new objects only
  for (const ManifestEntry& e : manifest.value()) {
    if (db_->object(e.hash) || object_paths.count(e.hash)) continue;
    const std::string dst =
        fmt::format("{}/objects/{}/{}", warm.value(), e.hash.substr(0, 2), e.hash);
    const std::string src = single ? path : path + "/" + e.relpath;
    if (Status s = store_object(src, e.hash, dst); !s.ok()) return s.error();
    object_paths[e.hash] = dst;
  }
  if (Status s = db_->begin(); !s.ok()) return s.error();
  const DatasetRow row{spec, parts.value().first, parts.value().second, now};
  if (Status s = record_dataset(*db_, row, team, manifest.value(), object_paths, now); !s.ok()) {
    db_->rollback();
    return s.error();
  }
  if (Status s = db_->commit(); !s.ok()) return s.error();
  return find_dataset(spec);
}

Result<DatasetInfo> StorageManager::find_dataset(const std::string& spec) const {
  const std::optional<DatasetRow> row = db_->dataset(spec);
  if (!row) {
    std::string known;
    for (const DatasetRow& d : db_->datasets()) known += (known.empty() ? "" : ", ") + d.spec;
    return Error{
        fmt::format("unknown dataset '{}' (registered: {})", spec, known.empty() ? "none" : known)};
  }
  DatasetInfo info{row->spec, row->name, row->version, db_->teams(spec), {}, 0, row->added_at};
  for (const auto& [rel, hash, bytes] : db_->manifest(spec)) {
    info.manifest.push_back(ManifestEntry{rel, hash, bytes});
    info.logical_bytes += bytes;
  }
  return info;
}

std::vector<DatasetInfo> StorageManager::list_datasets() const {
  std::vector<DatasetInfo> out;
  for (const DatasetRow& d : db_->datasets())
    if (auto info = find_dataset(d.spec); info.ok()) out.push_back(std::move(info).value());
  return out;
}

Status StorageManager::remove_dataset(const std::string& spec, double now) {
  if (Status s = writable("remove_dataset"); !s.ok()) return s;

  auto info = find_dataset(spec);
  if (!info.ok()) return info.error();
  std::vector<FileSet> staged;
  for (const FileSet& f : db_->filesets("staged")) {
    if (f.name != spec) continue;
    if (const auto users = db_->users(f.id); !users.empty())
      return Error{fmt::format("dataset {} is in use by job {} (staged at {})", spec, users.front(),
                               f.path)};
    staged.push_back(f);
  }
  if (Status s = db_->begin(); !s.ok()) return s;
  Status s = close_shared(*db_, info.value().manifest, now);
  for (const FileSet& f : staged)
    if (s.ok()) s = db_->delete_fileset(f.id, now);
  for (const ManifestEntry& e : info.value().manifest) {
    std::optional<FileSet> obj = db_->object(e.hash);
    if (!obj || !s.ok()) continue;
    obj->refcount = std::max<int64_t>(0, obj->refcount - 1);
    s = db_->update_fileset(*obj);
  }
  if (s.ok()) s = db_->delete_dataset(spec);
  if (s.ok()) s = db_->commit();
  if (!s.ok()) {
    db_->rollback();
    return s;
  }
  for (const FileSet& f : staged) (void)remove_tree(f.path);
  return {};
}

std::vector<ManifestEntry> shard_files(const std::vector<ManifestEntry>& manifest, int index,
                                       int count) {
  if (count <= 1) return manifest;
  std::vector<ManifestEntry> order = manifest;
  std::sort(order.begin(), order.end(), [](const ManifestEntry& a, const ManifestEntry& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.relpath < b.relpath;
  });
  std::vector<uint64_t> load(static_cast<size_t>(count), 0);
  std::vector<ManifestEntry> out;
  for (const ManifestEntry& e : order) {
    const auto it = std::min_element(load.begin(), load.end());
    *it += e.bytes;
    if (it - load.begin() == index) out.push_back(e);
  }
  std::sort(out.begin(), out.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.relpath < b.relpath; });
  return out;
}

}  // namespace frugal::storage
