#pragma once
// The storage manager: checkpoints and datasets over hot, warm and cold tiers that are real
// folders (StorageConfig), its state in SQLite tables storage_* of the service's database.
//
// Contracts:
//   - Every move between tiers is copy -> fsync -> verify checksum -> rename -> record ->
//     delete source, journalled in SQLite before the first step (mover.h). open() runs
//     recover(): an unfinished move is rolled back (before its record) or completed (after),
//     so every byte is in at least one tier, the records match the disk, and no temporary
//     file (*.frugal-tmp-*) remains.
//   - A tier whose path is missing or unwritable is "unavailable": new writes go to its
//     standby_path (when usable) and tier_alerts() says so; with no usable standby, writes
//     to that tier fail with an error naming it.
//   - Datasets are content-addressed: each distinct file content is stored once under
//     <warm>/objects/ab/<sha256> (read-only), shared across versions, datasets and teams, with
//     a refcount per manifest entry; objects at refcount 0 are deleted by gc().
//   - Staged datasets live at <hot>/<node>/datasets/<name@version>[.shard-I-of-N]/ (hard links
//     to the objects when on one file system, else verified copies). The hot tier's
//     capacity_bytes applies per node to the file sets recorded on that node (staged
//     datasets; checkpoints are recorded on node ""). LRU eviction never evicts a staged set
//     a job still uses.
//   - A checkpoint is a subfolder of a job's checkpoint dir; complete when it holds the
//     config's marker file (its mtime is the completion time); its step is the digits of its
//     name. The lifecycle never touches an incomplete one (re-checked right before acting).
//   - Not thread-safe: one thread (the service's) per StorageManager. Several processes may
//     open the same database (the CLI while the service runs): SQLite WAL + busy timeout.
//   - One writer at a time: a writer (Access::writer) holds an exclusive lock on
//     <db_path>.storage-lock (flock) from open() until it is destroyed, so recover() never
//     runs while another process's move is under way. A second writer gets an error naming
//     the lock file. A reader (Access::reader) takes no lock and runs no recovery; its calls
//     that change anything (datasets, staging, checkpoints, lifecycle, gc, moves) return an
//     error saying it is read-only.
//   - Times (`now`) are seconds since the Unix epoch, given by the caller (no clock inside),
//     except the measured staging time of restore_newest() and the one-off migration of a
//     schema-1 database (storage_db.h).
//   - The bill (storage_bill.h): every file set has `tier_since`; each change of tier (the
//     mover's record step) and each deletion closes its interval [tier_since, now) into
//     storage_usage in the same transaction as the record change; open intervals are added
//     at read time (bill() writes nothing). Moves and staging log transfers.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/result.h"
#include "storage/move_step.h"
#include "storage/plan/lifecycle.h"
#include "storage/storage_bill.h"
#include "storage/storage_config.h"

namespace frugal::storage {

class StorageDb;
class Mover;

struct ManifestEntry {
  std::string relpath;  // '/'-separated, relative to the dataset's root
  std::string hash;     // sha256, hex
  uint64_t bytes = 0;
};

struct DatasetInfo {
  std::string spec;  // name@version
  std::string name, version;
  std::vector<std::string> teams;       // teams that declared it
  std::vector<ManifestEntry> manifest;  // sorted by relpath
  uint64_t logical_bytes = 0;           // sum of manifest bytes
  double added_at = 0;
};

struct StagedDataset {
  std::string dir;                 // the folder to give the job (FRUGAL_DATASET_DIR)
  std::vector<std::string> files;  // relpaths in this shard
  uint64_t bytes = 0;
  bool reused = false;               // already staged on that node
  std::vector<std::string> evicted;  // dirs evicted (LRU) to make room
};

struct CheckpointRecord {
  int64_t id = 0;
  std::string job, team, name;
  int64_t step = 0;
  double completed_at = -1;  // < 0: incomplete
  Tier tier = Tier::hot;
  std::string path;
  uint64_t bytes = 0;
  std::string checksum;
};

struct ExecutedAction {
  ActionKind kind = ActionKind::move;
  std::string job, name;
  Tier from = Tier::hot, to = Tier::hot;
  std::string path;  // after the action (move) or the removed path
  uint64_t bytes = 0;
  std::string reason;
};

struct LifecycleReport {
  std::vector<ExecutedAction> done;
  std::vector<std::string> skipped;  // e.g. a checkpoint that became incomplete, with why
  std::vector<std::string> errors;   // actions that failed (nothing lost), with why
};

struct RestoreResult {
  std::string path;  // the checkpoint folder on the hot tier
  std::string name;
  Tier from = Tier::hot;
  uint64_t bytes = 0;
  double staging_s = 0;  // measured; 0 when it was already hot
};

struct GcItem {
  std::string kind;  // "checkpoint" | "dataset-object" | "staged" | "orphan"
  std::string path;
  uint64_t bytes = 0;
  std::string reason;
};

struct TierUsage {
  std::string name;
  std::string path;         // configured
  std::string active_path;  // path, or standby_path while unavailable, or "" when neither
  uint64_t used_bytes = 0;
  uint64_t capacity_bytes = 0;  // 0: unlimited
  double usd_per_gb_month = 0;
  std::map<std::string, int64_t> file_sets;  // kind -> count
};

struct StorageView {
  std::vector<TierUsage> tiers;
  std::map<std::string, uint64_t> team_bytes;  // checkpoints + datasets declared (logical)
  uint64_t dataset_logical_bytes = 0;          // sum over datasets of their manifest bytes
  uint64_t dataset_stored_bytes = 0;           // bytes of distinct objects stored
  double dedup_ratio = 1;                      // logical / stored (1 when nothing stored)
  int64_t datasets = 0, objects = 0, checkpoints = 0, staged = 0;
  std::vector<std::string> alerts;
};

// Whether an open manager may change anything (see the contracts above).
enum class Access { writer, reader };

class StorageManager {
 public:
  // Validates `config` (validate(); a tier whose path is unavailable passes when its
  // standby_path is usable: it starts on the standby, with an alert), opens `db_path` (created if
  // missing), creates the storage_* tables, and, as a writer, takes the writer lock and runs
  // recover(). `hook`, when set, is called before each step of every move (fault injection in
  // tests).
  static Result<std::unique_ptr<StorageManager>> open(const StorageConfig& config,
                                                      const std::string& db_path,
                                                      FaultHook hook = {},
                                                      Access access = Access::writer);
  ~StorageManager();
  StorageManager(const StorageManager&) = delete;
  StorageManager& operator=(const StorageManager&) = delete;

  const StorageConfig& config() const { return config_; }
  Access access() const { return lock_fd_ >= 0 ? Access::writer : Access::reader; }

  // Completes or rolls back unfinished moves and removes orphan temporary files; returns
  // what it did, one line each. open() calls it.
  Result<std::vector<std::string>> recover();

  // The folder new writes to `tier` go to: its path, else its standby_path while the path
  // is unavailable; an error naming the tier when neither is usable or it is not configured.
  Result<std::string> tier_root(Tier tier) const;
  // One line per tier currently unavailable, e.g. "storage tier warm unavailable (/x does
  // not exist): writing to standby /y". Empty when all is well.
  std::vector<std::string> tier_alerts() const;

  // ---- datasets (datasets.cpp) ----
  // Hashes every regular file under `path` (a folder, or one file) and stores each distinct
  // content once. Same spec with the same content: idempotent (adds `team`); with different
  // content: an error.
  Result<DatasetInfo> add_dataset(const std::string& spec, const std::string& path,
                                  const std::string& team, double now);
  // An error "unknown dataset 'x@1'" when not registered.
  Result<DatasetInfo> find_dataset(const std::string& spec) const;
  std::vector<DatasetInfo> list_datasets() const;
  // Drops the dataset's references (objects at refcount 0 go at the next gc) and its staged
  // copies (their intervals closed at `now`); an error while a job uses a staged copy.
  Status remove_dataset(const std::string& spec, double now);
  // Materialises the dataset (or shard `shard_index` of `shard_count`, by shard_map) on the
  // hot tier of `node`, marks it in use by `job`, evicting LRU unused staged sets when the
  // node's hot capacity would be exceeded (an error, evicting nothing, if it cannot fit).
  Result<StagedDataset> stage(const std::string& spec, const std::string& node,
                              const std::string& job, int shard_index, int shard_count, double now);
  // The job no longer uses any staged set (they stay, evictable).
  Status release(const std::string& job, double now);
  // Nodes where the dataset (any shard of it) is staged.
  std::vector<std::string> nodes_holding(const std::string& spec) const;

  // ---- checkpoints (checkpoints.cpp) ----
  // Registers the checkpoints under `dir` (the job's hot checkpoint dir; remembered for
  // restore_newest), updating completion of known ones; new ones are billed from `now`.
  // Returns the job's records.
  Result<std::vector<CheckpointRecord>> scan_checkpoints(const std::string& job,
                                                         const std::string& team,
                                                         const std::string& dir, double now);
  // All recorded checkpoints (of `job` when non-empty), by job then step.
  std::vector<CheckpointRecord> checkpoints(const std::string& job = "") const;
  // Plans (plan_lifecycle, per-team policies) and carries out the plan.
  Result<LifecycleReport> run_lifecycle(double now,
                                        const std::function<bool(const std::string&)>& can_restart);
  // Stages the job's newest complete checkpoint into its hot checkpoint dir (wherever it lies)
  // and returns where, with the measured staging time (the restart cost to charge).
  Result<RestoreResult> restore_newest(const std::string& job, double now);
  // Forgets a job's checkpoints whose folders no longer exist (billed until `now`). Returns
  // how many.
  Result<int> forget_missing_checkpoints(const std::string& job, double now);

  // ---- gc and views (storage_gc.cpp, storage_views.cpp) ----
  // What the lifecycle would delete, objects at refcount 0, unused staged sets beyond hot
  // capacity and orphan objects; deleted unless dry_run.
  Result<std::vector<GcItem>> gc(bool dry_run, double now,
                                 const std::function<bool(const std::string&)>& can_restart);
  StorageView view() const;

  // ---- the bill (storage_bill.cpp; see storage_bill.h) ----
  // Integrates the waste categories over [previous tick, now) from the state at `now` (the
  // first tick only remembers `now`); writer only. A `now` at or before the previous tick
  // does nothing.
  Status bill_tick(double now);
  // Per team and in total: GB-hours and USD per tier, transfers, waste, dedup; per job USD.
  // Reads only (readers may call it).
  Result<StorageBill> bill(double now) const;

  // Moves a recorded file set (a checkpoint) to `to` (crash-safe, see mover.h).
  Status move_checkpoint(int64_t id, Tier to, double now);

 private:
  StorageManager(StorageConfig config, std::unique_ptr<StorageDb> db, FaultHook hook);
  // An error naming `what` unless this manager is a writer.
  Status writable(const char* what) const;
  Status materialise(const std::vector<ManifestEntry>& files, const std::string& dir);
  Status make_room(const std::string& node, uint64_t bytes, std::vector<std::string>& evicted,
                   double now);
  // Deletes a checkpoint crash-safely: folder renamed to <path>.frugal-tmp-delete, record
  // deleted (interval closed at `now`), folder removed.
  Status delete_checkpoint(int64_t id, const std::string& path, double now);
  // open(): a deletion interrupted before its record went is rolled back (folder renamed
  // back; the lifecycle deletes it again). One line per rollback.
  void recover_deletions(std::vector<std::string>& done);
  Status execute(const CheckpointRecord& c, const LifecycleAction& a, double now,
                 LifecycleReport& report);

  StorageConfig config_;
  std::unique_ptr<StorageDb> db_;
  std::unique_ptr<Mover> mover_;
  int lock_fd_ = -1;  // the writer lock's file (>= 0: a writer)
};

// StorageView as JSON (GET /v1/storage, `frugal storage du --json`).
std::string view_json(const StorageView& v);

// "name@version" -> {name, version}; an error for anything else.
Result<std::pair<std::string, std::string>> parse_dataset_spec(const std::string& spec);

// The files of shard `index` of `count`: files sorted by (bytes desc, relpath), each given to
// the least-loaded shard (ties: lowest index); deterministic. Result sorted by relpath.
std::vector<ManifestEntry> shard_files(const std::vector<ManifestEntry>& manifest, int index,
                                       int count);

}  // namespace frugal::storage
