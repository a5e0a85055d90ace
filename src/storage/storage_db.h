#pragma once
// The storage manager's state in SQLite: its own connection on the service's database file
// (WAL, synchronous=FULL, busy timeout), tables storage_* created if missing, its schema
// version in storage_meta (PRAGMA user_version belongs to the service's Store).
//
// Tables: storage_filesets (every file set: checkpoint | dataset-object | staged),
// storage_datasets + storage_dataset_teams + storage_manifest, storage_users (which job uses a
// staged set), storage_jobs (a job's team and hot checkpoint dir), storage_moves (the journal),
// storage_usage / storage_transfers / storage_waste (what the bill prices, storage_bill.h).
// Schema 2 added tier_since and the bill's tables; a schema-1 database is migrated on open,
// its existing file sets getting tier_since = the migration's wall-clock time (the only clock
// read here: nothing before it is billed).

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/result.h"

namespace frugal::storage {

struct FileSet {
  int64_t id = 0;
  std::string kind;  // "checkpoint" | "dataset-object" | "staged"
  std::string job, team;
  std::string tier;  // "hot" | "warm" | "cold"
  std::string path;
  uint64_t bytes = 0;
  std::string checksum;  // sha256 (a folder: tree_checksum)
  int64_t refcount = 0;
  double last_use = 0;
  std::string name;  // checkpoint folder name, or staged dataset spec
  int64_t step = 0;
  double completed_at = -1;
  std::string node;  // staged: the node; else ""
  int shard_index = 0, shard_count = 1;
  double tier_since = 0;  // when it entered its tier (or was recorded): its open interval's start
};

// Byte-seconds stored, per (team, job, kind, tier): closed intervals (storage_usage), or the
// open interval of one file set (StorageDb::open_usage).
struct UsageRow {
  std::string team, job, kind, tier;
  double byte_seconds = 0;
};

// Bytes read out of one tier into another (storage_transfers).
struct TransferRow {
  std::string team, job, from_tier, to_tier;
  uint64_t bytes = 0;
  double at = 0;
};

// Byte-seconds of one waste category (storage_waste), integrated by bill_tick.
struct WasteRow {
  std::string team, category, tier;
  double byte_seconds = 0;
};

// One journalled move. state: "started" (nothing recorded yet) or "recorded" (the file set
// points at dst; the source is to be deleted).
struct MoveEntry {
  int64_t id = 0;
  int64_t fileset_id = 0;
  std::string src, dst, tmp;
  std::string to_tier;
  std::string state;
};

struct DatasetRow {
  std::string spec, name, version;
  double added_at = 0;
};

class StorageDb {
 public:
  static Result<std::unique_ptr<StorageDb>> open(const std::string& path);
  ~StorageDb();
  StorageDb(const StorageDb&) = delete;
  StorageDb& operator=(const StorageDb&) = delete;

  Status begin();
  Status commit();
  void rollback();

  // File sets.
  Result<int64_t> insert_fileset(const FileSet& f);
  Status update_fileset(const FileSet& f);  // by id
  // Closes the file set's open interval into storage_usage (add_usage) and deletes it, in
  // one savepoint (inside the caller's transaction, if any).
  Status delete_fileset(int64_t id, double now);
  std::optional<FileSet> fileset(int64_t id) const;
  std::optional<FileSet> fileset_by_path(const std::string& path) const;
  // kind "" = all; job "" = any.
  std::vector<FileSet> filesets(const std::string& kind, const std::string& job = "") const;
  std::optional<FileSet> object(const std::string& hash) const;

  // Datasets.
  Status insert_dataset(const DatasetRow& d);
  std::optional<DatasetRow> dataset(const std::string& spec) const;
  std::vector<DatasetRow> datasets() const;
  Status delete_dataset(const std::string& spec);
  Status add_team(const std::string& spec, const std::string& team);
  std::vector<std::string> teams(const std::string& spec) const;
  Status add_manifest(const std::string& spec, const std::string& relpath, const std::string& hash,
                      uint64_t bytes);
  // (relpath, hash, bytes), by relpath.
  std::vector<std::tuple<std::string, std::string, uint64_t>> manifest(
      const std::string& spec) const;

  // Users of staged sets.
  Status add_user(int64_t fileset_id, const std::string& job);
  Status remove_users(const std::string& job);
  std::vector<std::string> users(int64_t fileset_id) const;

  // Jobs.
  Status put_job(const std::string& job, const std::string& team, const std::string& dir);
  // (team, checkpoint dir)
  std::optional<std::pair<std::string, std::string>> job(const std::string& job) const;
  // Every job's checkpoint dir, sorted, distinct.
  std::vector<std::string> checkpoint_dirs() const;

  // Journal.
  Result<int64_t> insert_move(const MoveEntry& m);
  Status set_move_state(int64_t id, const std::string& state);
  Status delete_move(int64_t id);
  std::vector<MoveEntry> moves() const;

  // The bill. A file set's open interval [tier_since, now) as usage rows: a dataset object's
  // split evenly among the teams declaring a dataset that holds it (else its `team`).
  std::vector<UsageRow> open_usage(const FileSet& f, double now) const;
  // Adds open_usage(f, now) to storage_usage (the caller then resets tier_since or deletes).
  Status add_usage(const FileSet& f, double now);
  std::vector<UsageRow> usage() const;
  // Teams declaring a dataset whose manifest holds `hash`, sorted.
  std::vector<std::string> object_teams(const std::string& hash) const;
  // object_teams for every object hash at once (one query): hash -> teams, sorted.
  std::map<std::string, std::vector<std::string>> all_object_teams() const;
  // open_usage with the object teams given (`teams`: all_object_teams()).
  std::vector<UsageRow> open_usage(
      const FileSet& f, double now,
      const std::map<std::string, std::vector<std::string>>& teams) const;
  Status add_transfer(const TransferRow& t);
  // The transfer log summed per (team, job, from_tier, to_tier); `at` the latest.
  std::vector<TransferRow> transfers() const;
  Status add_waste(const std::string& team, const std::string& category, const std::string& tier,
                   double byte_seconds);
  std::vector<WasteRow> waste() const;
  std::optional<std::string> meta(const std::string& key) const;
  Status set_meta(const std::string& key, const std::string& value);

  // Runs one statement without results (tests, migrations).
  Status exec(const std::string& sql);

 private:
  explicit StorageDb(sqlite3* db) : db_(db) {}
  Status migrate();
  Status migrate_v1_to_v2();
  sqlite3* db_;
};

}  // namespace frugal::storage
