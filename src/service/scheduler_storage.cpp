// Scheduler: the storage manager in the job lifecycle (config `storage:`; docs/API.md
// "Storage"). Before a run starts its datasets are staged onto this host's hot tier and, for
// a restart, its newest complete checkpoint is restored into its checkpoint folder — on the
// storage worker (service/live_storage.h), so the decision loop never waits for a copy: the
// run is decided (the job is `running`, its GPUs held) and launched on the turn after its
// preparation is done. When a run segment closes its datasets are released and its checkpoint
// folder scanned; every storage.lifecycle_interval_s the lifecycle moves and deletes
// checkpoints by the policy, also on the worker (one lifecycle at a time).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "service/scheduler.h"

namespace frugal {

std::optional<ApiReply> Scheduler::check_datasets(const JobRequest& r) const {
  if (r.datasets.empty()) return std::nullopt;
  if (!storage_)
    return error_reply(400,
                       "storage is not configured (the service's `storage:` section): a job "
                       "cannot declare datasets",
                       kDatasetsField);
  if (const auto unknown = storage_->unknown_dataset(r.datasets))
    return error_reply(400,
                       fmt::format("dataset '{}' is not registered (POST /v1/datasets): {}",
                                   unknown->first, unknown->second),
                       kDatasetsField);
  return std::nullopt;
}

bool Scheduler::storage_ready(Live& l, double now) {
  if (!storage_) return true;
  const int segment = l.rec.restart_count;
  const bool needs = !l.rec.request.datasets.empty() || segment > 0;
  if (!needs) return true;
  if (const auto it = prepared_.find(l.rec.id);
      it != prepared_.end() && it->second.segment == segment) {
    if (it->second.error.empty()) return true;
    const std::string why = "storage: " + it->second.error;
    prepared_.erase(it);
    fail_launch(l, now, why);
    return false;
  }
  if (const auto it = preparing_.find(l.rec.id); it != preparing_.end() && it->second == segment)
    return false;  // under way: storage_turn() hands it back
  preparing_[l.rec.id] = segment;
  PrepRequest r;
  r.job = l.rec.id;
  r.segment = segment;
  r.team = l.rec.team;
  r.node = l.placement.slots.empty() ? config_.node_name
                                     : cluster_.nodes[l.placement.slots[0].node].name;
  r.datasets = l.rec.request.datasets;
  r.checkpoint_dir = fmt::format("{}/{}", config_.checkpoint_dir, l.rec.id);
  r.restore = segment > 0;
  r.now = now;
  l.rec.reason = r.datasets.empty() ? "restoring its newest checkpoint to the hot tier"
                                    : "staging its datasets on the hot tier";
  mark(l);
  storage_->prepare(std::move(r));
  return false;
}

void Scheduler::storage_residency(const StoragePrep& p) {
  const std::optional<NodeId> n = node_named(p.node);
  if (!n) return;
  for (const std::string& spec : p.evicted) (void)engine_->dataset_evicted(*n, spec);
  if (!p.error.empty()) return;
  for (const auto& [spec, bytes] : p.staged)
    engine_->dataset_resident(*n, spec, static_cast<double>(bytes) / 1e9);
}

void Scheduler::seed_residency() {
  seeded_engine_ = engine_.get();
  for (const auto& [spec, bytes, nodes] : storage_->residency()) {
    if (bytes > 0) engine_->dataset_size(spec, static_cast<double>(bytes) / 1e9);
    for (const std::string& node : nodes)
      if (const std::optional<NodeId> n = node_named(node))
        engine_->dataset_resident(*n, spec, static_cast<double>(bytes) / 1e9);
  }
}

void Scheduler::storage_prefetch(const Live& l, const Decision& d, double now) {
  if (l.rec.request.datasets.empty() || d.placement.slots.empty()) return;
  PrepRequest r;
  r.job = l.rec.id;
  r.segment = -1;  // no run waits for it
  r.team = l.rec.team;
  r.node = cluster_.nodes[d.placement.slots[0].node].name;
  r.datasets = l.rec.request.datasets;
  r.prefetch = true;
  r.now = now;
  log_(fmt::format("job {}: prefetching {} dataset(s) onto {} ({})", l.rec.id, r.datasets.size(),
                   r.node, d.reason));
  storage_->prepare(std::move(r));
}

void Scheduler::storage_turn(double now) {
  if (seeded_engine_ != engine_.get()) seed_residency();
  for (StoragePrep& p : storage_->take_prepared()) {
    storage_residency(p);
    if (p.segment < 0) continue;  // a prefetch
    const auto waiting = preparing_.find(p.job);
    if (waiting == preparing_.end() || waiting->second != p.segment) continue;  // superseded
    preparing_.erase(waiting);
    const auto it = jobs_.find(p.job);
    if (it == jobs_.end()) continue;
    Live& l = it->second;
    charge_staging(l, p);
    const bool still_waiting = l.rec.state == JobStatus::kRunning && l.rec.handle.empty() &&
                               l.rec.restart_count == p.segment;
    if (still_waiting) {
      l.rec.reason.clear();
      mark(l);
      blocked_launches_.push_back(p.job);
    }
    prepared_[p.job] = std::move(p);
  }
  if (now - tiers_checked_at_ >= config_.telemetry_period_s) storage_alerts(now);
  if (now - lifecycle_at_ < storage_->config().lifecycle_interval_s) return;
  std::vector<JobCheckpoints> running;
  std::set<std::string> can_restart;
  for (const auto& [id, l] : jobs_) {
    if (is_final(l.rec.state)) continue;
    can_restart.insert(std::to_string(id));
    if (l.rec.state == JobStatus::kRunning)
      running.push_back({id, l.rec.team, fmt::format("{}/{}", config_.checkpoint_dir, id)});
  }
  if (storage_->lifecycle(std::move(running), std::move(can_restart), now)) lifecycle_at_ = now;
}

void Scheduler::charge_staging(Live& l, const StoragePrep& p) {
  l.rec.stage_s = l.rec.request.datasets.empty() ? -1 : p.stage_s;
  l.rec.restore_s = p.restore_s;
  mark(l);
  const double seconds = std::max(0.0, l.rec.stage_s) + std::max(0.0, l.rec.restore_s);
  // Charged while the run it prepared holds its GPUs (its segment open, not launched yet): a
  // run stopped during its staging is charged nothing here (its segment's cost holds it all).
  if (!(seconds > 0) || l.rec.state != JobStatus::kRunning || l.rec.restart_count != p.segment ||
      l.rec.segment_start < 0)
    return;
  l.rec.staging_s += seconds;
  if (!accounting_ || l.placement.slots.empty()) return;
  // The stretch the segment is priced over first (it starts at the decision): the same price,
  // so staging_usd is the part of the job's compute the staging held its GPUs for.
  const Seconds t0 = engine_time(l.rec.segment_start);
  l.rec.staging_usd += accounting_->ledger()
                           .quote(*l.spec, l.placement, t0, t0 + seconds, measured_utilization(l))
                           .total_usd();
}

std::map<std::string, double> Scheduler::staging_by_team() const {
  std::map<std::string, double> out = retired_staging_usd_;
  for (const auto& [id, l] : jobs_)
    if (l.rec.staging_usd > 0) out[l.rec.team] += l.rec.staging_usd;
  return out;
}

void Scheduler::storage_alerts(double now) {
  tiers_checked_at_ = now;
  std::set<std::string> down;
  for (const auto& [tier, line] : storage_->tier_alerts()) {
    alerts_.raise("storage_tier_unavailable", "tier " + tier, line, now);
    down.insert(tier);
  }
  for (const std::string& tier : tiers_alerted_)
    if (!down.count(tier)) alerts_.clear("storage_tier_unavailable", "tier " + tier, now);
  tiers_alerted_ = std::move(down);
}

void Scheduler::storage_run_ended(const Live& l, double now) {
  prepared_.erase(l.rec.id);
  storage_->run_ended(l.rec.id, l.rec.team, fmt::format("{}/{}", config_.checkpoint_dir, l.rec.id),
                      now);
}

void Scheduler::storage_env(const Live& l, LaunchSpec& s) const {
  const auto it = prepared_.find(l.rec.id);
  if (it == prepared_.end() || it->second.dataset_dirs.empty()) return;
  const std::vector<std::string>& dirs = it->second.dataset_dirs;
  std::string all;
  for (const std::string& d : dirs) all += (all.empty() ? "" : ":") + d;
  s.env.emplace_back("FRUGAL_DATASET_DIR", dirs[0]);
  s.env.emplace_back("FRUGAL_DATASET_DIRS", all);
  // One node per run on the local backend: shard 0 of 1 (the whole of each dataset).
  s.env.emplace_back("FRUGAL_SHARD_INDEX", "0");
  s.env.emplace_back("FRUGAL_SHARD_COUNT", "1");
}

std::future<ApiReply> Scheduler::datasets(const Principal& who) {
  return enqueue([this, who] {
    if (!storage_) return error_reply(404, "storage is not configured (config `storage:`)");
    ApiReply r;
    r.body = storage_->datasets_json(who);
    return r;
  });
}

std::future<ApiReply> Scheduler::storage_view(const Principal& who) {
  return enqueue([this, who] {
    if (!storage_) return error_reply(404, "storage is not configured (config `storage:`)");
    ApiReply r;
    r.body = storage_->view_json(who);
    r.body["checkpoint_root"] = storage_->checkpoint_root();
    return r;
  });
}

namespace {

// Whether `path` (existing; symbolic links resolved) lies inside one of `roots`.
bool inside_roots(const std::string& path, const std::vector<std::string>& roots) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  if (ec) return false;
  for (const std::string& root : roots) {
    const fs::path base = fs::canonical(root, ec);
    if (ec) continue;
    const auto [b, r] = std::mismatch(base.begin(), base.end(), real.begin(), real.end());
    if (b == base.end()) return true;
  }
  return false;
}

}  // namespace

ApiReply Scheduler::add_dataset(const Principal& who, const std::string& spec,
                                const std::string& path, const std::string& team) {
  if (!storage_) return error_reply(404, "storage is not configured (config `storage:`)");
  if (auto parsed = storage::parse_dataset_spec(spec); !parsed.ok())
    return error_reply(400, parsed.error().message, "name");
  std::error_code ec;
  if (!std::filesystem::path(path).is_absolute() || !std::filesystem::exists(path, ec))
    return error_reply(400, fmt::format("'{}' is not an existing absolute path", path), "path");
  // A team reads what it registers through its jobs: only from the configured roots.
  if (!who.admin && !inside_roots(path, storage_->config().dataset_roots))
    return error_reply(403,
                       storage_->config().dataset_roots.empty()
                           ? std::string("teams may not register datasets: the service has no "
                                         "storage.dataset_roots (the admin may)")
                           : fmt::format("'{}' is outside storage.dataset_roots", path),
                       "path");
  auto added = storage_->add_dataset(spec, path, team, clock_->now());
  try {
    Result<storage::DatasetInfo> r = added.get();
    if (!r.ok()) return error_reply(400, r.error().message, "name");
    ApiReply out;
    out.status = 201;
    out.body = {{"name", r.value().spec},
                {"files", r.value().manifest.size()},
                {"bytes", r.value().logical_bytes},
                {"team", team}};
    return out;
  } catch (const std::future_error&) {
    return error_reply(503, "shutting down: the dataset was not registered");
  }
}

}  // namespace frugal
