// The scheduler and its disks: the group commit that retries instead of exiting when SQLite
// cannot write (a full disk: SQLITE_FULL), and the free-space guard that stops new work
// before that happens (docs/API.md, "Disk space").

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <chrono>
#include <filesystem>

#include "service/scheduler.h"

namespace frugal {

bool Scheduler::commit_group(bool now_or_never) {
  const double now = wall_now();
  if (commit_failing_ && !now_or_never && now < commit_retry_at_) return false;
  const auto t0 = std::chrono::steady_clock::now();
  Status st = store_->begin();
  if (st.ok()) st = flush();
  if (st.ok()) st = store_->commit();
  if (!st.ok()) {
    store_->rollback();
    const std::string why = st.error().message;
    if (!commit_failing_) {
      log_(fmt::format("commit: {}; retrying every second; reads still answer", why));
      alerts_.raise("commit_failing", "database",
                    fmt::format("the database cannot be written ({}); changes are refused "
                                "(507) until it can",
                                why),
                    now);
    }
    commit_failing_ = true;
    commit_retry_at_ = now + 1.0;
    return false;
  }
  flushed();
  if (commit_failing_) {
    commit_failing_ = false;
    alerts_.clear("commit_failing", "database", now);
    log_("commit: the database is writable again");
  }
  ++commits_;
  commit_latency_.record(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return true;
}

std::optional<ApiReply> Scheduler::refuse_change() const {
  if (commit_failing_)
    return error_reply(507, "insufficient storage: the database cannot be written; retry later");
  if (!disk_low_.empty())
    return error_reply(507, "insufficient storage: " + disk_low_ + "; retry later");
  return std::nullopt;
}

namespace {

// Free bytes on the file system holding `path` (the nearest existing ancestor), or -1.
int64_t free_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  while (!p.empty() && !std::filesystem::exists(p, ec)) p = p.parent_path();
  struct statvfs st {};
  if (p.empty() || statvfs(p.c_str(), &st) != 0) return -1;
  return static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_frsize);
}

}  // namespace

void Scheduler::check_disk(double now) {
  if (now - disk_checked_at_ < 1.0) return;
  disk_checked_at_ = now;
  const int64_t need = static_cast<int64_t>(config_.min_free_mb) << 20;
  std::string low;
  for (const std::filesystem::path& p :
       {std::filesystem::path(config_.db).parent_path(), std::filesystem::path(config_.log_dir)}) {
    const std::filesystem::path where = p.empty() ? std::filesystem::path(".") : p;
    const int64_t free = free_bytes(where);
    if (free >= 0 && free < need && low.empty())
      low = fmt::format("{} has {} MiB free, under min_free_mb {}", where.string(), free >> 20,
                        config_.min_free_mb);
  }
  if (!low.empty() && disk_low_.empty()) {
    alerts_.raise("disk_low", "disk",
                  low + ": submissions are refused (507) and nothing new is launched", now);
  } else if (low.empty() && !disk_low_.empty()) {
    alerts_.clear("disk_low", "disk", now);
    log_("disk: free space is back above min_free_mb; launching again");
    engine_dirty_ = true;  // a cycle now starts what waited
  }
  disk_low_ = low;
}

}  // namespace frugal
