#include "storage/storage_manager.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "storage/files.h"
#include "storage/mover.h"
#include "storage/storage_db.h"

namespace frugal::storage {
namespace fs = std::filesystem;

StorageManager::StorageManager(StorageConfig config, std::unique_ptr<StorageDb> db, FaultHook hook)
    : config_(std::move(config)),
      db_(std::move(db)),
      mover_(std::make_unique<Mover>(*db_, std::move(hook))) {}

StorageManager::~StorageManager() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the writer lock
}

namespace {

// Takes the exclusive writer lock on `path` without waiting; the descriptor, or an error.
Result<int> take_writer_lock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error{fmt::format("storage writer lock {}: {}", path, std::strerror(errno))};
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
      return Error{fmt::format(
          "storage writer lock {} is held by another process (a running frugal serve?): "
          "change storage through its API, or use the read-only commands",
          path)};
    return Error{fmt::format("storage writer lock {}: {}", path, std::strerror(err))};
  }
  return fd;
}

}  // namespace

Status StorageManager::writable(const char* what) const {
  if (lock_fd_ >= 0) return Status::Ok();
  return Error{fmt::format("storage: {} needs a writer; this manager was opened read-only", what)};
}

Result<std::unique_ptr<StorageManager>> StorageManager::open(const StorageConfig& config,
                                                             const std::string& db_path,
                                                             FaultHook hook, Access access) {
  // A tier whose path is down while its standby is usable opens (writes go to the standby and
  // tier_alerts() says so); everything else as validate().
  StorageConfig check = config;
  for (TierConfig& t : check.tiers)
    if (!check_folder(t.path).empty() && !t.standby_path.empty() &&
        check_folder(t.standby_path).empty())
      t.path = t.standby_path;
  if (Status s = validate(check); !s.ok()) return s.error();
  auto db = StorageDb::open(db_path);
  if (!db.ok()) return db.error();
  std::unique_ptr<StorageManager> m(
      new StorageManager(config, std::move(db).value(), std::move(hook)));
  if (access == Access::reader) return m;
  auto lock = take_writer_lock(db_path + ".storage-lock");
  if (!lock.ok()) return lock.error();
  m->lock_fd_ = lock.value();
  auto r = m->recover();
  if (!r.ok()) return Error{fmt::format("storage recovery: {}", r.error().message)};
  return m;
}

namespace {

// Removes names holding kTmpInfix up to 4 levels below `root`.
void sweep_temporaries(const std::string& root, std::vector<std::string>& done) {
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec)) return;
  std::vector<fs::path> found;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().find(kTmpInfix) != std::string::npos) {
      found.push_back(it->path());
      it.disable_recursion_pending();
    } else if (it.depth() >= 3) {
      it.disable_recursion_pending();
    }
  }
  for (const fs::path& p : found) {
    if (remove_tree(p.string()).ok()) done.push_back("removed orphan " + p.string());
  }
}

}  // namespace

Result<std::vector<std::string>> StorageManager::recover() {
  if (Status s = writable("recover"); !s.ok()) return s.error();
  auto done = mover_->recover();
  if (!done.ok()) return done.error();
  recover_deletions(done.value());
  for (const TierConfig& t : config_.tiers) {
    sweep_temporaries(t.path, done.value());
    sweep_temporaries(t.standby_path, done.value());
  }
  return done;
}

Result<std::string> StorageManager::tier_root(Tier tier) const {
  const TierConfig* t = find_tier(config_, tier_name(tier));
  if (!t) return Error{fmt::format("storage tier {} is not configured", tier_name(tier))};
  const std::string why = check_folder(t->path);
  if (why.empty()) return t->path;
  if (!t->standby_path.empty() && check_folder(t->standby_path).empty()) return t->standby_path;
  return Error{fmt::format("storage tier {} unavailable ({}){}", t->name, why,
                           t->standby_path.empty() ? "; no standby_path configured"
                                                   : "; its standby_path is unavailable too")};
}

std::vector<std::string> StorageManager::tier_alerts() const {
  std::vector<std::string> out;
  for (const TierConfig& t : config_.tiers) {
    const std::string why = check_folder(t.path);
    if (why.empty()) continue;
    const bool standby = !t.standby_path.empty() && check_folder(t.standby_path).empty();
    out.push_back(
        standby ? fmt::format("storage tier {} unavailable ({}): writing to standby {}", t.name,
                              why, t.standby_path)
                : fmt::format("storage tier {} unavailable ({}): no usable standby", t.name, why));
  }
  return out;
}

Status StorageManager::move_checkpoint(int64_t id, Tier to, double now) {
  if (Status s = writable("move_checkpoint"); !s.ok()) return s;
  const std::optional<FileSet> f = db_->fileset(id);
  if (!f || f->kind != "checkpoint") return Error{fmt::format("no checkpoint with id {}", id)};
  std::string dst;
  const auto job = db_->job(f->job);
  if (to == Tier::hot && job && !job->second.empty()) {
    dst = job->second + "/" + f->name;
  } else {
    auto root = tier_root(to);
    if (!root.ok()) return root.error();
    dst = fmt::format("{}/checkpoints/{}/{}", root.value(), f->job, f->name);
  }
  if (Status s = mover_->move(id, dst, tier_name(to), now); !s.ok()) return s;
  const TierConfig* cold = find_tier(config_, "cold");
  if (to == Tier::cold && cold && !cold->mover_command.empty()) {
    std::string cmd = cold->mover_command;
    const std::string rel = fmt::format("checkpoints/{}/{}", f->job, f->name);
    for (const auto& [key, val] :
         {std::pair<std::string, std::string>{"{src}", dst}, {"{rel}", rel}})
      for (size_t p = cmd.find(key); p != std::string::npos; p = cmd.find(key, p + val.size()))
        cmd.replace(p, key.size(), val);
    if (std::system(cmd.c_str()) != 0)  // NOLINT(cert-env33-c): the operator's configured command
      return Error{fmt::format("storage.tiers.cold.mover_command failed for {}: {}", dst, cmd)};
  }
  return {};
}

}  // namespace frugal::storage
