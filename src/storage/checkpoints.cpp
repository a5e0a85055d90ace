// Checkpoints: registration from a job's checkpoint dir, the lifecycle carried out on disk,
// restore of the newest complete one (StorageManager::scan_checkpoints and friends).
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <system_error>

#include "storage/files.h"
#include "storage/storage_db.h"
#include "storage/storage_manager.h"

namespace frugal::storage {
namespace fs = std::filesystem;

namespace {

// The last run of digits in `name` (0 when none): "step-000100" -> 100.
int64_t step_of(const std::string& name) {
  size_t end = name.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1]))) --begin;
  if (begin == end) return 0;
  const std::string digits = name.substr(begin, std::min<size_t>(end - begin, 18));
  return std::stoll(digits);
}

// The marker's mtime (seconds since the epoch), or -1 when absent.
double completed_at(const std::string& folder, const std::string& marker) {
  struct stat st {};
  if (::stat((folder + "/" + marker).c_str(), &st) != 0) return -1;
  return static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) * 1e-9;
}

CheckpointRecord to_record(const FileSet& f) {
  Tier t = Tier::hot;
  (void)parse_tier(f.tier, t);
  return CheckpointRecord{f.id,           f.job, f.team, f.name,  f.step,
                          f.completed_at, t,     f.path, f.bytes, f.checksum};
}

bool newer(const CheckpointRecord& a, const CheckpointRecord& b) {
  if (a.step != b.step) return a.step > b.step;
  if (a.completed_at != b.completed_at) return a.completed_at > b.completed_at;
  return a.name > b.name;
}

}  // namespace

Result<std::vector<CheckpointRecord>> StorageManager::scan_checkpoints(const std::string& job,
                                                                       const std::string& team,
                                                                       const std::string& dir,
                                                                       double now) {
  if (Status s = writable("scan_checkpoints"); !s.ok()) return s.error();

  if (Status s = db_->put_job(job, team, dir); !s.ok()) return s.error();
  std::error_code ec;
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory() && it->path().filename().string().find(kTmpInfix) == std::string::npos)
      folders.push_back(it->path());
  for (const fs::path& p : folders) {
    const std::string path = p.string();
    auto sig = tree_signature(path);
    if (!sig.ok()) continue;  // vanished meanwhile
    FileSet f = db_->fileset_by_path(path).value_or(FileSet{});
    f.kind = "checkpoint";
    f.job = job;
    f.team = team;
    f.path = path;
    f.name = p.filename().string();
    f.step = step_of(f.name);
    f.completed_at = completed_at(path, config_.marker);
    if (f.bytes != sig.value().bytes) f.checksum.clear();  // rewritten: hashed again when needed
    f.bytes = sig.value().bytes;
    if (f.id == 0) {
      f.tier = "hot";
      f.tier_since = now;
      if (auto id = db_->insert_fileset(f); !id.ok()) return id.error();
    } else if (Status s = db_->update_fileset(f); !s.ok()) {
      return s.error();
    }
  }
  return checkpoints(job);
}

std::vector<CheckpointRecord> StorageManager::checkpoints(const std::string& job) const {
  std::vector<CheckpointRecord> out;
  for (const FileSet& f : db_->filesets("checkpoint", job)) out.push_back(to_record(f));
  std::sort(out.begin(), out.end(), [](const CheckpointRecord& a, const CheckpointRecord& b) {
    if (a.job != b.job) return a.job < b.job;
    if (a.step != b.step) return a.step < b.step;
    return a.name < b.name;
  });
  return out;
}

Status StorageManager::execute(const CheckpointRecord& c, const LifecycleAction& a, double now,
                               LifecycleReport& report) {
  const std::string label = fmt::format("checkpoint {}/{}", c.job, c.name);
  // Right before acting: the folder must be there and still complete.
  if (completed_at(c.path, config_.marker) < 0) {
    report.skipped.push_back(
        fmt::format("{}: {} is missing or being written (no {})", label, c.path, config_.marker));
    return {};
  }
  ExecutedAction done{a.kind, c.job, c.name, c.tier, a.to, c.path, c.bytes, a.reason};
  if (a.kind == ActionKind::remove) {
    if (Status s = delete_checkpoint(c.id, c.path, now); !s.ok()) return s;
  } else {
    if (Status s = move_checkpoint(c.id, a.to, now); !s.ok()) return s;
    if (auto f = db_->fileset(c.id)) done.path = f->path;
  }
  report.done.push_back(std::move(done));
  return {};
}

Result<LifecycleReport> StorageManager::run_lifecycle(
    double now, const std::function<bool(const std::string&)>& can_restart) {
  if (Status s = writable("run_lifecycle"); !s.ok()) return s.error();

  std::vector<CheckpointRecord> recs = checkpoints();
  std::vector<CheckpointInfo> infos;
  for (CheckpointRecord& c : recs) {
    c.completed_at = completed_at(c.path, config_.marker);  // completion as it is now
    infos.push_back(CheckpointInfo{c.job, c.team, c.name, c.step, c.completed_at, c.tier, c.bytes});
  }
  const auto policy = [this](const std::string& team) -> const LifecyclePolicy& {
    return policy_for(config_, team);
  };
  LifecycleReport report;
  for (const LifecycleAction& a : plan_lifecycle(infos, policy, now, can_restart)) {
    const CheckpointRecord& c = recs.at(a.index);
    if (Status s = execute(c, a, now, report); !s.ok())
      report.errors.push_back(
          fmt::format("checkpoint {}/{}: {}", c.job, c.name, s.error().message));
  }
  return report;
}

Status StorageManager::delete_checkpoint(int64_t id, const std::string& path, double now) {
  // Folder out of the way first (a crash here: recover_deletions renames it back), then the
  // record (a crash after it: the temporary is swept at open), then the bytes.
  const std::string doomed = path + kTmpInfix + "delete";
  (void)remove_tree(doomed);
  if (Status s = rename_path(path, doomed); !s.ok()) return s;
  (void)fsync_parent(path);
  if (Status s = db_->delete_fileset(id, now); !s.ok()) {
    (void)rename_path(doomed, path);
    return s;
  }
  if (Status s = remove_tree(doomed); !s.ok()) return s;
  (void)fsync_parent(doomed);
  return {};
}

void StorageManager::recover_deletions(std::vector<std::string>& done) {
  for (const FileSet& f : db_->filesets("checkpoint")) {
    const std::string doomed = f.path + kTmpInfix + "delete";
    if (path_exists(f.path) || !path_exists(doomed)) continue;
    if (rename_path(doomed, f.path).ok())
      done.push_back(fmt::format("rolled back deletion of {}", f.path));
  }
  // The rest (a deletion whose record went, an interrupted restore's copy) are temporaries:
  // the tier sweep does not reach jobs' checkpoint dirs, so they are swept here.
  for (const std::string& dir : db_->checkpoint_dirs()) {
    std::error_code ec;
    std::vector<fs::path> found;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().find(kTmpInfix) != std::string::npos)
        found.push_back(it->path());
    for (const fs::path& p : found)
      if (remove_tree(p.string()).ok()) done.push_back("removed orphan " + p.string());
  }
}

Result<RestoreResult> StorageManager::restore_newest(const std::string& job, double now) {
  if (Status s = writable("restore_newest"); !s.ok()) return s.error();

  std::vector<CheckpointRecord> recs = checkpoints(job);
  const CheckpointRecord* best = nullptr;
  for (const CheckpointRecord& c : recs)
    if (completed_at(c.path, config_.marker) >= 0 && (!best || newer(c, *best))) best = &c;
  if (!best)
    return Error{fmt::format("job {} has no complete checkpoint ({} recorded)", job, recs.size())};
  RestoreResult r{best->path, best->name, best->tier, best->bytes, 0};
  if (best->tier == Tier::hot) return r;
  const auto t0 = std::chrono::steady_clock::now();
  if (Status s = move_checkpoint(best->id, Tier::hot, now); !s.ok())
    return Error{fmt::format("restore of {}/{}: {}", job, best->name, s.error().message)};
  r.staging_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (auto f = db_->fileset(best->id)) r.path = f->path;
  return r;
}

Result<int> StorageManager::forget_missing_checkpoints(const std::string& job, double now) {
  if (Status s = writable("forget_missing_checkpoints"); !s.ok()) return s.error();

  int n = 0;
  for (const FileSet& f : db_->filesets("checkpoint", job)) {
    if (path_exists(f.path)) continue;
    if (Status s = db_->delete_fileset(f.id, now); !s.ok()) return s.error();
    ++n;
  }
  return n;
}

}  // namespace frugal::storage
