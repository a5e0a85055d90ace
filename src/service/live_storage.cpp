#include "service/live_storage.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

namespace frugal {
namespace {

using storage::StorageManager;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The restore part of a preparation: the newest complete checkpoint back on the hot tier.
void restore_checkpoint(StorageManager& m, const PrepRequest& r, StoragePrep& out,
                        const LiveStorage::Log& log) {
  const std::string job = std::to_string(r.job);
  if (auto scanned = m.scan_checkpoints(job, r.team, r.checkpoint_dir, r.now); !scanned.ok())
    log(fmt::format("storage: job {}: scanning {}: {}", r.job, r.checkpoint_dir,
                    scanned.error().message));
  if (!r.restore) return;
  bool complete = false;
  for (const storage::CheckpointRecord& c : m.checkpoints(job)) complete |= c.completed_at >= 0;
  if (!complete) return;
  auto restored = m.restore_newest(job, r.now);
  if (!restored.ok()) {
    // Not fatal: the run starts with what its folder holds (its code decides).
    log(fmt::format("storage: job {}: restoring its newest checkpoint: {}", r.job,
                    restored.error().message));
    return;
  }
  out.restore_s = restored.value().staging_s;
  out.restored =
      fmt::format("{} (from {})", restored.value().name, storage::tier_name(restored.value().from));
  log(fmt::format("storage: job {}: checkpoint {} restored to {} in {:.3f} s ({} bytes)", r.job,
                  out.restored, restored.value().path, out.restore_s, restored.value().bytes));
}

// The dataset a staged folder holds: <hot>/<node>/datasets/<name@version>[.shard-I-of-N].
std::string staged_dataset(const std::string& dir) {
  const std::string base = std::filesystem::path(dir).filename().string();
  return base.substr(0, base.find(".shard-"));
}

StoragePrep run_prepare(StorageManager& m, const PrepRequest& r, const LiveStorage::Log& log) {
  StoragePrep out;
  out.job = r.job;
  out.segment = r.segment;
  out.node = r.node;
  if (!r.prefetch) restore_checkpoint(m, r, out, log);
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string& spec : r.datasets) {
    // One node per run on the local backend: shard 0 of 1 (the whole dataset).
    auto staged = m.stage(spec, r.node, std::to_string(r.job), 0, 1, r.now);
    if (!staged.ok()) {
      out.error = fmt::format("dataset {}: {}", spec, staged.error().message);
      (void)m.release(std::to_string(r.job), r.now);
      return out;
    }
    out.dataset_dirs.push_back(staged.value().dir);
    out.staged.emplace_back(spec, staged.value().bytes);
    for (const std::string& e : staged.value().evicted) {
      out.evicted.push_back(staged_dataset(e));
      log(fmt::format("storage: evicted {} (least recently used) to stage {}", e, spec));
    }
  }
  if (r.prefetch) (void)m.release(std::to_string(r.job), r.now);  // staged, not in use
  out.stage_s = seconds_since(t0);
  if (!r.datasets.empty())
    log(fmt::format("storage: job {}: {} dataset(s) staged on {} in {:.3f} s", r.job,
                    r.datasets.size(), r.node, out.stage_s));
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> alerts_by_tier(
    const storage::StorageConfig& config, const std::vector<std::string>& lines) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& line : lines) {
    std::string tier = "storage";
    for (const storage::TierConfig& t : config.tiers)
      if (line.find("tier " + t.name + " ") != std::string::npos) tier = t.name;
    out.emplace_back(tier, line);
  }
  return out;
}

Result<std::unique_ptr<LiveStorage>> LiveStorage::open(const storage::StorageConfig& config,
                                                       const std::string& db_path, Log log) {
  // The worker's first: its open() recovers unfinished moves before anything else runs.
  auto worker = StorageManager::open(config, db_path);
  if (!worker.ok()) return Error{"storage: " + worker.error().message};
  auto reader = StorageManager::open(config, db_path, {}, storage::Access::reader);
  if (!reader.ok()) return Error{"storage: " + reader.error().message};
  auto hot = reader.value()->tier_root(storage::Tier::hot);
  if (!hot.ok()) return Error{"storage: " + hot.error().message};
  std::unique_ptr<LiveStorage> s(new LiveStorage(std::move(reader).value(), std::move(log)));
  s->checkpoint_root_ = (std::filesystem::path(hot.value()) / "checkpoints").string();
  s->worker_ = std::make_unique<StorageWorker>(std::move(worker).value());
  return s;
}

LiveStorage::LiveStorage(std::unique_ptr<storage::StorageManager> reader, Log log)
    : reader_(std::move(reader)), log_(std::move(log)) {}

LiveStorage::~LiveStorage() = default;

std::optional<std::pair<std::string, std::string>> LiveStorage::unknown_dataset(
    const std::vector<std::string>& specs) const {
  for (const std::string& spec : specs)
    if (auto found = reader_->find_dataset(spec); !found.ok())
      return std::make_pair(spec, found.error().message);
  return std::nullopt;
}

nlohmann::json LiveStorage::datasets_json(const Principal& who) const {
  nlohmann::json out = nlohmann::json::array();
  for (const storage::DatasetInfo& d : reader_->list_datasets()) {
    nlohmann::json teams = nlohmann::json::array();
    for (const std::string& t : d.teams)
      if (who.admin || t == who.team) teams.push_back(t);
    out.push_back({{"name", d.spec},
                   {"files", d.manifest.size()},
                   {"bytes", d.logical_bytes},
                   {"added_at", d.added_at},
                   {"teams", teams},
                   {"nodes", reader_->nodes_holding(d.spec)}});
  }
  return {{"datasets", out}};
}

nlohmann::json LiveStorage::view_json(const Principal& who) const {
  nlohmann::json v = nlohmann::json::parse(storage::view_json(reader_->view()), nullptr, false);
  if (v.is_discarded()) return {{"error", "the storage view is not JSON"}};
  if (!who.admin && v.contains("team_bytes") && v["team_bytes"].is_object()) {
    nlohmann::json own = nlohmann::json::object();
    if (v["team_bytes"].contains(who.team)) own[who.team] = v["team_bytes"][who.team];
    v["team_bytes"] = own;
  }
  return v;
}

std::vector<std::tuple<std::string, uint64_t, std::vector<std::string>>> LiveStorage::residency()
    const {
  std::vector<std::tuple<std::string, uint64_t, std::vector<std::string>>> out;
  for (const storage::DatasetInfo& d : reader_->list_datasets())
    out.emplace_back(d.spec, d.logical_bytes, reader_->nodes_holding(d.spec));
  return out;
}

std::vector<std::pair<std::string, std::string>> LiveStorage::tier_alerts() const {
  return alerts_by_tier(reader_->config(), reader_->tier_alerts());
}

void LiveStorage::prepare(PrepRequest r) {
  worker_->post([this, r = std::move(r)](StorageManager& m) {
    StoragePrep out = run_prepare(m, r, log_);
    std::lock_guard<std::mutex> lock(mu_);
    prepared_.push_back(std::move(out));
  });
}

std::vector<StoragePrep> LiveStorage::take_prepared() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<StoragePrep> out;
  out.swap(prepared_);
  return out;
}

void LiveStorage::run_ended(int64_t job, const std::string& team, const std::string& checkpoint_dir,
                            double now) {
  worker_->post([this, job, team, checkpoint_dir, now](StorageManager& m) {
    const std::string id = std::to_string(job);
    if (Status st = m.release(id, now); !st.ok())
      log_(fmt::format("storage: job {}: release: {}", job, st.error().message));
    if (!std::filesystem::exists(checkpoint_dir)) return;
    if (auto s = m.scan_checkpoints(id, team, checkpoint_dir, now); !s.ok())
      log_(fmt::format("storage: job {}: scanning {}: {}", job, checkpoint_dir, s.error().message));
  });
}

bool LiveStorage::lifecycle(std::vector<JobCheckpoints> running, std::set<std::string> can_restart,
                            double now) {
  if (lifecycle_running_.exchange(true)) return false;
  worker_->post([this, running = std::move(running), can_restart = std::move(can_restart),
                 now](StorageManager& m) {
    for (const JobCheckpoints& j : running)
      if (std::filesystem::exists(j.dir))
        (void)m.scan_checkpoints(std::to_string(j.job), j.team, j.dir, now);
    auto report = m.run_lifecycle(
        now, [&can_restart](const std::string& job) { return can_restart.count(job) > 0; });
    if (!report.ok()) {
      log_("storage: lifecycle: " + report.error().message);
    } else {
      for (const storage::ExecutedAction& a : report.value().done)
        log_(fmt::format("storage: lifecycle: job {} checkpoint {}: {} {} -> {} ({})", a.job,
                         a.name, a.kind == storage::ActionKind::move ? "moved" : "deleted",
                         storage::tier_name(a.from), storage::tier_name(a.to), a.reason));
      for (const std::string& e : report.value().errors) log_("storage: lifecycle: " + e);
    }
    if (Status st = m.bill_tick(now); !st.ok()) log_("storage: bill: " + st.error().message);
    lifecycle_running_ = false;
  });
  return true;
}

std::future<Result<storage::DatasetInfo>> LiveStorage::add_dataset(std::string spec,
                                                                   std::string path,
                                                                   std::string team, double now) {
  auto done = std::make_shared<std::promise<Result<storage::DatasetInfo>>>();
  auto f = done->get_future();
  worker_->post([this, done, spec = std::move(spec), path = std::move(path), team = std::move(team),
                 now](StorageManager& m) {
    auto added = m.add_dataset(spec, path, team, now);
    if (added.ok())
      log_(fmt::format("storage: dataset {} registered by {}: {} file(s), {} bytes", spec, team,
                       added.value().manifest.size(), added.value().logical_bytes));
    done->set_value(std::move(added));
  });
  return f;
}

}  // namespace frugal
