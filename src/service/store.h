#pragma once
// Durable state of the service in SQLite (WAL journal, synchronous=FULL): jobs and the run
// segments the ledger is rebuilt from. Schema migrations are versioned (PRAGMA user_version;
// kSchemaVersion is the newest; each migration runs once, in its own transaction).
//
// Writes are grouped: begin(), any number of put_job()/add_segment()/add_transition(), commit() —
// one fsync per group (the decision loop's group commit). Not thread-safe: one thread (the decision
// loop) owns a Store.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/result.h"
#include "service/job_record.h"

struct sqlite3;
struct sqlite3_stmt;

namespace frugal {

inline constexpr int kSchemaVersion = 12;

// One ended run segment: job held `placement` (JSON) over [t0, t1) and kept_s seconds of
// its work survived (the rest is rework).
struct SegmentRow {
  int64_t job_id = 0;
  double t0 = 0, t1 = 0, kept_s = 0;
  std::string placement;
};

// One state change of a job (service/job_lifecycle.h): `from` is "" when the job was born
// in `to` (accepted submission, observed run); `reason` the job's reason after the change.
struct TransitionRow {
  int64_t job_id = 0;
  double at = 0;  // Unix seconds
  std::string from, to, event, reason;
};

// A submission's Idempotency-Key, per team: the SHA-256 of the body it came with, the job it
// made and when (Unix seconds).
struct IdempotencyRow {
  std::string team, key, body_sha256;
  int64_t job_id = 0;
  double at = 0;
};

// A change of the active policy (the audit log): when (Unix seconds), from and to which
// policy, by whom ("admin", "policy_guard") and why.
struct PolicyChangeRow {
  double at = 0;
  std::string from, to, by, reason;
};

// The cluster the service ran on, recorded at start when it differs from the last one
// (service/cluster_record.h): when (Unix seconds), what it was made from, the spec as cluster
// YAML (io/cluster_yaml_writer.h) and the SHA-256 (hex) of that text. `seq` counts from 1.
struct ClusterSpecRow {
  int64_t seq = 0;
  double recorded_at = 0;
  std::string source, spec_yaml, sha256;
};

// One bucket of the cluster's usage series (service/usage_series.h; GET /v1/usage): the
// time-weighted means over [at, at + interval) of the readings that covered span_s seconds
// of it (Unix seconds). busy_gpus < 0: no GPU was measured; teams_usd_h by team.
struct UsageSampleRow {
  double at = 0, span_s = 0;
  double provisioned_gpus = 0, allocated_gpus = 0, busy_gpus = -1, queued_jobs = 0;
  double burn_usd_h = 0, idle_usd_h = 0;
  std::map<std::string, double> teams_usd_h;
};

class Store {
 public:
  // Opens (creating if needed) the database at `path` and migrates it to kSchemaVersion.
  // Holds an exclusive lock on `path`.lock while open, so a second service cannot use the
  // same database (the kernel drops the lock when the process dies, kill -9 included).
  // Error when it is locked, cannot be opened, is newer than this build, or a migration
  // fails.
  static Result<std::unique_ptr<Store>> open(const std::string& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  int schema_version() const;
  // Group writes. commit() makes everything since begin() durable; rollback() drops it.
  Status begin();
  Status commit();
  void rollback();
  // Inserts or replaces the job's row (by id).
  Status put_job(const JobRecord& job);
  Status add_segment(const SegmentRow& s);
  Status add_transition(const TransitionRow& t);
  Status add_idempotency(const IdempotencyRow& r);
  Status add_policy_change(const PolicyChangeRow& r);
  // Every policy change, oldest first (the last one's `to` is the active policy).
  Result<std::vector<PolicyChangeRow>> load_policy_changes() const;
  // Appends a recorded cluster spec (its seq is assigned; the row's is ignored).
  Status add_cluster_spec(const ClusterSpecRow& r);
  // The last recorded cluster spec, or nullopt when none was.
  Result<std::optional<ClusterSpecRow>> latest_cluster_spec() const;
  // Forgets the keys recorded before `before` (Unix seconds).
  Status purge_idempotency(double before);
  // The usage series' buckets (table usage_samples; store_usage.cpp): one added or replaced
  // by its start; those starting at or after `since`, oldest first; those before `before`
  // forgotten.
  Status put_usage_sample(const UsageSampleRow& r);
  Result<std::vector<UsageSampleRow>> load_usage_samples(double since) const;
  Status purge_usage_samples(double before);

  // Everything stored, jobs by id, segments by (job, t0).
  Result<std::vector<JobRecord>> load_jobs() const;
  // Newest first: up to `limit` jobs with ids below `below` (none: all), of `team` and in
  // `state` where given (the state's name).
  Result<std::vector<JobRecord>> list_jobs(std::optional<int64_t> below, const std::string* team,
                                           const std::string* state, size_t limit) const;
  // One job, or nullopt when there is no such id.
  Result<std::optional<JobRecord>> load_job(int64_t id) const;
  // Retention: (id, restart_count) of jobs that finished before `finished_before` (Unix s)
  // and still have their logs (at most 10,000 a call); logs_removed() records their removal.
  Result<std::vector<std::pair<int64_t, int>>> logs_to_remove(double finished_before) const;
  Status logs_removed(int64_t id);
  Result<std::vector<SegmentRow>> load_segments() const;
  // A job's transitions in the order they happened (empty for an unknown job).
  Result<std::vector<TransitionRow>> load_transitions(int64_t job_id) const;
  // The keys recorded at or after `since` (Unix seconds).
  Result<std::vector<IdempotencyRow>> load_idempotency(double since) const;
  // SQLite's integrity check plus the service's invariants (final jobs have finished_at,
  // running jobs a segment start, segments end after they start and name a known job, a
  // job's last recorded transition leads to its state);
  // empty when consistent.
  std::string check_consistency() const;

 private:
  Store(sqlite3* db, int lock_fd) : db_(db), lock_fd_(lock_fd) {}
  Status exec(const char* sql);
  Status migrate();
  Status prepare();

  sqlite3* db_;
  int lock_fd_;
  sqlite3_stmt* put_job_ = nullptr;
  sqlite3_stmt* add_segment_ = nullptr;
  sqlite3_stmt* add_transition_ = nullptr;
};

}  // namespace frugal
