// Retention of finished jobs (docs/API.md, "Retention"): their records leave memory after
// retain_jobs_s (the store keeps them: GET /v1/jobs/{id} and lists read it), their logs and
// per-run files are deleted after retain_logs_s, and a job's checkpoint folder is removed
// when it ends empty. The usage series' stored buckets go after usage_retention_s.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "service/scheduler.h"

namespace frugal {

void Scheduler::retention(double now) {
  // Once a minute (more often when an age is shorter), and only with everything stored (an
  // evicted record must be in SQLite).
  double period = 60;
  for (const double age : {config_.retain_jobs_s, config_.retain_logs_s})
    if (age > 0) period = std::min(period, std::max(1.0, age));
  if (now - retention_at_ < period || pending_writes() > 0 || commit_failing_) return;
  retention_at_ = now;
  if (config_.retain_jobs_s > 0) {
    const double before = now - config_.retain_jobs_s;
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const JobRecord& r = it->second.rec;
      if (is_final(r.state) && r.finished_at >= 0 && r.finished_at < before) {
        // The engine and the ledger keep a pointer to the spec under the job's index.
        retired_specs_.push_back(std::move(it->second.spec));
        if (r.staging_usd > 0) retired_staging_usd_[r.team] += r.staging_usd;  // staging_by_team
        it = jobs_.erase(it);
        ++evicted_;
      } else {
        ++it;
      }
    }
  }
  if (config_.retain_logs_s > 0) remove_old_logs(now - config_.retain_logs_s);
  // The usage series' buckets older than usage_retention_s (in memory, observe() prunes).
  if (store_->begin().ok()) {
    if (store_->purge_usage_samples(now - config_.usage_retention_s).ok() && store_->commit().ok())
      return;
    store_->rollback();  // tried again next time
  }
}

void Scheduler::remove_old_logs(double finished_before) {
  Result<std::vector<std::pair<int64_t, int>>> old = store_->logs_to_remove(finished_before);
  if (!old.ok() || old.value().empty()) return;
  if (!store_->begin().ok()) return;
  std::error_code ec;
  for (const auto& [id, restarts] : old.value()) {
    const std::string base = fmt::format("{}/{}", config_.log_dir, id);
    std::filesystem::remove(base + ".out", ec);
    std::filesystem::remove(base + ".err", ec);
    for (int run = 0; run <= restarts; ++run) {
      std::filesystem::remove(fmt::format("{}.{}.exit", base, run), ec);
      std::filesystem::remove(fmt::format("{}.{}.handle", base, run), ec);
    }
    if (!store_->logs_removed(id).ok()) break;
  }
  if (!store_->commit().ok()) store_->rollback();  // removed again next time: harmless
}

void Scheduler::remove_empty_checkpoint_dir(int64_t id) const {
  std::error_code ec;
  const std::filesystem::path dir = fmt::format("{}/{}", config_.checkpoint_dir, id);
  if (std::filesystem::is_directory(dir, ec) && std::filesystem::is_empty(dir, ec))
    std::filesystem::remove(dir, ec);
}

}  // namespace frugal
