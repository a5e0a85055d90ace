#pragma once
// The storage manager as `frugal serve` uses it (config `storage:`; docs/API.md "Storage").
//
// Two StorageManagers on the service's database, each with its own SQLite connection: the
// worker's (service/storage_worker.h), which makes every change — dataset registration,
// staging a run's datasets and restoring its newest checkpoint, releases, checkpoint scans,
// the lifecycle — off the decision loop; and the reader's, which the loop uses for quick
// reads only (is a dataset registered, the views, tier availability). Both are opened (each
// open() recovers unfinished moves) before the worker starts.
//
// A run's preparation (prepare()) is posted by the loop and its outcome collected on a later
// turn (take_prepared()); the loop launches the run only then. Thread-safety: the reader
// methods on one thread (the loop's) at a time; prepare/release/lifecycle/take_prepared/
// add_dataset from any thread.

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "model/result.h"
#include "service/auth.h"
#include "service/storage_worker.h"
#include "storage/storage_manager.h"

namespace frugal {

// What one run segment of a job needs before it starts.
struct PrepRequest {
  int64_t job = 0;
  int segment = 0;  // the job's restart_count for this run
  std::string team;
  std::string node;  // the hot tier's node (local backend: the host)
  std::vector<std::string> datasets;
  std::string checkpoint_dir;  // FRUGAL_CHECKPOINT_DIR: scanned, the newest checkpoint restored
  bool restore = false;        // a restart: restore its newest complete checkpoint first
  bool prefetch = false;       // only stage the datasets ahead of a planned start (no run)
  double now = 0;
};

// Its outcome. `error` non-empty: the run cannot start (a dataset that cannot be staged).
struct StoragePrep {
  int64_t job = 0;
  int segment = 0;
  std::vector<std::string> dataset_dirs;                 // staged folders, in the order declared
  std::vector<std::pair<std::string, uint64_t>> staged;  // (dataset, bytes) now on `node`
  std::vector<std::string> evicted;  // datasets evicted from `node` to make room
  std::string node;
  double stage_s = 0;     // staging the datasets took (wall clock)
  double restore_s = -1;  // staging the checkpoint back took; < 0: none restored
  std::string restored;   // the restored checkpoint's name and former tier
  std::string error;
};

// A job whose checkpoint folder the lifecycle rescans.
struct JobCheckpoints {
  int64_t job = 0;
  std::string team;
  std::string dir;
};

class LiveStorage {
 public:
  using Log = std::function<void(const std::string&)>;
  // Error: the manager's (a tier folder unusable, the database) naming the field or tier.
  static Result<std::unique_ptr<LiveStorage>> open(const storage::StorageConfig& config,
                                                   const std::string& db_path, Log log);
  ~LiveStorage();

  const storage::StorageConfig& config() const { return reader_->config(); }
  // Where jobs' checkpoint folders live: <hot tier>/checkpoints.
  std::string checkpoint_root() const { return checkpoint_root_; }

  // ---- reads (one thread: the loop) ----
  // The first of `specs` that is not registered, with the manager's message; nullopt: all are.
  std::optional<std::pair<std::string, std::string>> unknown_dataset(
      const std::vector<std::string>& specs) const;
  // GET /v1/datasets: every dataset (any team may declare any); `teams` shows only the
  // caller's own team unless admin.
  nlohmann::json datasets_json(const Principal& who) const;
  // GET /v1/storage: tiers, dedup, alerts; per-team bytes (a team: its own only).
  nlohmann::json view_json(const Principal& who) const;
  // Every registered dataset's size and the nodes holding it: (dataset, bytes, nodes).
  std::vector<std::tuple<std::string, uint64_t, std::vector<std::string>>> residency() const;
  // One line per tier unavailable (StorageManager::tier_alerts), keyed by tier name.
  std::vector<std::pair<std::string, std::string>> tier_alerts() const;
  // The storage bill up to `now` (storage::bill_json's shape, every team); null on error.
  nlohmann::json bill_json(double now) const;

  // ---- changes (worker) ----
  void prepare(PrepRequest r);
  std::vector<StoragePrep> take_prepared();
  // A run segment ended: its datasets released, its checkpoint folder scanned.
  void run_ended(int64_t job, const std::string& team, const std::string& checkpoint_dir,
                 double now);
  // Rescans `running`'s folders, then runs the lifecycle (jobs in `can_restart` keep their
  // newest complete checkpoint), then integrates the bill's waste (bill_tick). Skipped
  // (false) while the previous one has not finished.
  bool lifecycle(std::vector<JobCheckpoints> running, std::set<std::string> can_restart,
                 double now);
  // POST /v1/datasets: hashes and registers (StorageManager::add_dataset) on the worker.
  std::future<Result<storage::DatasetInfo>> add_dataset(std::string spec, std::string path,
                                                        std::string team, double now);

 private:
  LiveStorage(std::unique_ptr<storage::StorageManager> reader, Log log);

  std::unique_ptr<storage::StorageManager> reader_;
  Log log_;
  std::string checkpoint_root_;
  std::mutex mu_;
  std::vector<StoragePrep> prepared_;  // guarded by mu_
  std::atomic<bool> lifecycle_running_{false};
  // Last: destroyed first, so no task runs once the rest is gone.
  std::unique_ptr<StorageWorker> worker_;
};

// GET /v1/ledger's `storage` block (scheduler_storage_bill.cpp): the real-bytes bill of the
// storage manager (storage/storage_bill.h) added to the admin ledger `body` as body["storage"]
// (every team, the total, per job); nothing when `storage` is null (storage off).
void add_storage_bill(nlohmann::json& body, const LiveStorage* storage, double now);
// The part of an admin ledger body's `storage` block `team` may see: its own team, its total
// and its jobs; null when the body has none.
nlohmann::json team_storage_bill(const nlohmann::json& admin_body, const std::string& team);

// /metrics: frugal_storage_usd{team,tier} (storage dollars so far) and
// frugal_storage_transfer_usd{team} from an admin ledger body's `storage` block; nothing
// without one.
void render_storage_bill_metrics(const nlohmann::json& ledger, std::string& out);

// StorageManager::tier_alerts's lines by tier: the tier a line names ("storage tier NAME …").
std::vector<std::pair<std::string, std::string>> alerts_by_tier(
    const storage::StorageConfig& config, const std::vector<std::string>& lines);

}  // namespace frugal
