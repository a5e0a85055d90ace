#include "service/store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

namespace frugal {
namespace {

// Migration i brings the schema from version i to i + 1.
constexpr const char* kMigrations[] = {
    // 0 → 1: jobs, run segments, key/value metadata.
    "CREATE TABLE jobs ("
    "  id INTEGER PRIMARY KEY,"
    "  team TEXT NOT NULL,"
    "  request TEXT NOT NULL,"
    "  state TEXT NOT NULL,"
    "  held INTEGER NOT NULL DEFAULT 0,"
    "  submitted_at REAL NOT NULL,"
    "  started_at REAL NOT NULL DEFAULT -1,"
    "  segment_start REAL NOT NULL DEFAULT -1,"
    "  finished_at REAL NOT NULL DEFAULT -1,"
    "  deferred_until REAL NOT NULL DEFAULT 0,"
    "  restart_count INTEGER NOT NULL DEFAULT 0,"
    "  exit_code INTEGER,"
    "  reason TEXT NOT NULL DEFAULT '',"
    "  handle TEXT NOT NULL DEFAULT '',"
    "  placement TEXT NOT NULL DEFAULT '');"
    "CREATE TABLE segments ("
    "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
    "  t0 REAL NOT NULL, t1 REAL NOT NULL, kept_s REAL NOT NULL,"
    "  placement TEXT NOT NULL,"
    "  PRIMARY KEY (job_id, t0));"
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    // 1 → 2: an index for listing a team's jobs.
    "CREATE INDEX jobs_team ON jobs(team, id);",
    // 2 → 3: measured GPU utilisation of a job (mean of telemetry samples; -1 unknown).
    "ALTER TABLE jobs ADD COLUMN utilization REAL NOT NULL DEFAULT -1;"
    "ALTER TABLE jobs ADD COLUMN utilization_samples INTEGER NOT NULL DEFAULT 0;",
    // 3 → 4: a stopped run still exiting (its handle and placement), and a cancel under way.
    "ALTER TABLE jobs ADD COLUMN stopping_handle TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE jobs ADD COLUMN stopping_placement TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;",
    // 4 → 5: every state change of a job with its event and reason (job_lifecycle.h).
    "CREATE TABLE job_transitions ("
    "  seq INTEGER PRIMARY KEY,"
    "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
    "  at REAL NOT NULL, from_state TEXT NOT NULL, to_state TEXT NOT NULL,"
    "  event TEXT NOT NULL, reason TEXT NOT NULL);"
    "CREATE INDEX job_transitions_job ON job_transitions(job_id, seq);",
    // 5 → 6: submissions' Idempotency-Keys (kept 24 h; docs/API.md).
    "CREATE TABLE idempotency ("
    "  team TEXT NOT NULL, key TEXT NOT NULL, body_sha256 TEXT NOT NULL,"
    "  job_id INTEGER NOT NULL, at REAL NOT NULL,"
    "  PRIMARY KEY (team, key));"
    "CREATE INDEX idempotency_at ON idempotency(at);",
    // 6 → 7: a job's output was cut at the cap (max_job_output_mb).
    "ALTER TABLE jobs ADD COLUMN output_truncated INTEGER NOT NULL DEFAULT 0;",
    // 7 → 8: retention (lists paged from the store; logs removed after retain_logs_s).
    "ALTER TABLE jobs ADD COLUMN logs_removed INTEGER NOT NULL DEFAULT 0;"
    "CREATE INDEX jobs_state ON jobs(state, id);"
    "CREATE INDEX jobs_finished ON jobs(finished_at);",
    // 8 → 9: changes of the active policy (POST /v1/policy, the policy guard), the audit log.
    "CREATE TABLE policy_changes ("
    "  seq INTEGER PRIMARY KEY,"
    "  at REAL NOT NULL, from_policy TEXT NOT NULL, to_policy TEXT NOT NULL,"
    "  by TEXT NOT NULL, reason TEXT NOT NULL);",
    // 9 → 10: the cluster the service runs on, a row each time it differs from the last.
    "CREATE TABLE cluster_specs ("
    "  seq INTEGER PRIMARY KEY,"
    "  recorded_at REAL NOT NULL, source TEXT NOT NULL, spec_yaml TEXT NOT NULL,"
    "  sha256 TEXT NOT NULL);",
    // 10 → 11: the cluster's usage series (GET /v1/usage), one row per bucket.
    "CREATE TABLE usage_samples ("
    "  at REAL PRIMARY KEY, span_s REAL NOT NULL,"
    "  provisioned_gpus REAL NOT NULL, allocated_gpus REAL NOT NULL, busy_gpus REAL,"
    "  queued_jobs REAL NOT NULL, burn_usd_h REAL NOT NULL, idle_usd_h REAL NOT NULL,"
    "  teams TEXT NOT NULL);",
    // 11 → 12: storage: the last run's staging (datasets, checkpoint restore; -1 none) and the
    // staging over all its runs, seconds and the held GPUs' cost (job_record.h).
    "ALTER TABLE jobs ADD COLUMN stage_s REAL NOT NULL DEFAULT -1;"
    "ALTER TABLE jobs ADD COLUMN restore_s REAL NOT NULL DEFAULT -1;"
    "ALTER TABLE jobs ADD COLUMN staging_s REAL NOT NULL DEFAULT 0;"
    "ALTER TABLE jobs ADD COLUMN staging_usd REAL NOT NULL DEFAULT 0;",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace

Result<std::unique_ptr<Store>> Store::open(const std::string& path) {
  const int lock_fd = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) return Error{fmt::format("{}.lock: {}", path, std::strerror(errno))};
  if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd);
    return Error{fmt::format("{}: in use by another frugal serve (locked)", path)};
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    ::close(lock_fd);
    return Error{fmt::format("{}: {}", path, msg)};
  }
  std::unique_ptr<Store> s(new Store(db, lock_fd));
  sqlite3_busy_timeout(db, 5000);
  for (const char* sql :
       {"PRAGMA journal_mode=WAL;", "PRAGMA synchronous=FULL;", "PRAGMA foreign_keys=ON;"})
    if (Status st = s->exec(sql); !st.ok())
      return Error{fmt::format("{}: {}", path, st.error().message)};
  if (Status st = s->migrate(); !st.ok())
    return Error{fmt::format("{}: {}", path, st.error().message)};
  if (Status st = s->prepare(); !st.ok())
    return Error{fmt::format("{}: {}", path, st.error().message)};
  return s;
}

Store::~Store() {
  sqlite3_finalize(put_job_);
  sqlite3_finalize(add_segment_);
  sqlite3_finalize(add_transition_);
  sqlite3_close(db_);
  ::close(lock_fd_);  // releases the lock
}

Status Store::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return Error{msg};
  }
  return Status::Ok();
}

int Store::schema_version() const {
  sqlite3_stmt* st = nullptr;
  int v = -1;
  if (sqlite3_prepare_v2(db_, "PRAGMA user_version;", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return v;
}

Status Store::migrate() {
  const int v = schema_version();
  if (v < 0) return Error{"cannot read the schema version"};
  if (v > kSchemaVersion)
    return Error{fmt::format("schema version {} is newer than this build's {}", v, kSchemaVersion)};
  for (int i = v; i < kSchemaVersion; ++i) {
    if (Status st = exec("BEGIN IMMEDIATE;"); !st.ok()) return st;
    Status st = exec(kMigrations[i]);
    if (st.ok()) st = exec(fmt::format("PRAGMA user_version = {};", i + 1).c_str());
    if (!st.ok()) {
      rollback();
      return Error{fmt::format("migration {} → {}: {}", i, i + 1, st.error().message)};
    }
    if (Status c = exec("COMMIT;"); !c.ok()) return c;
  }
  return Status::Ok();
}

Status Store::prepare() {
  const char* put =
      "INSERT OR REPLACE INTO jobs (id, team, request, state, held, submitted_at, started_at,"
      " segment_start, finished_at, deferred_until, restart_count, exit_code, reason, handle,"
      " placement, utilization, utilization_samples, stopping_handle, stopping_placement,"
      " cancel_requested, output_truncated, stage_s, restore_s, staging_s, staging_usd)"
      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?);";
  const char* seg =
      "INSERT OR REPLACE INTO segments (job_id, t0, t1, kept_s, placement) VALUES (?,?,?,?,?);";
  const char* tr =
      "INSERT INTO job_transitions (job_id, at, from_state, to_state, event, reason)"
      " VALUES (?,?,?,?,?,?);";
  if (sqlite3_prepare_v3(db_, put, -1, SQLITE_PREPARE_PERSISTENT, &put_job_, nullptr) !=
          SQLITE_OK ||
      sqlite3_prepare_v3(db_, seg, -1, SQLITE_PREPARE_PERSISTENT, &add_segment_, nullptr) !=
          SQLITE_OK ||
      sqlite3_prepare_v3(db_, tr, -1, SQLITE_PREPARE_PERSISTENT, &add_transition_, nullptr) !=
          SQLITE_OK)
    return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Status Store::begin() {
  return exec("BEGIN IMMEDIATE;");
}
Status Store::commit() {
  return exec("COMMIT;");
}
void Store::rollback() {
  (void)exec("ROLLBACK;");
}

Status Store::put_job(const JobRecord& j) {
  sqlite3_stmt* s = put_job_;
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  const std::string request = to_json(j.request).dump();
  const std::string_view state = to_string(j.state);
  sqlite3_bind_int64(s, 1, j.id);
  sqlite3_bind_text(s, 2, j.team.data(), static_cast<int>(j.team.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 3, request.data(), static_cast<int>(request.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 4, state.data(), static_cast<int>(state.size()), SQLITE_STATIC);
  sqlite3_bind_int(s, 5, j.held ? 1 : 0);
  sqlite3_bind_double(s, 6, j.submitted_at);
  sqlite3_bind_double(s, 7, j.started_at);
  sqlite3_bind_double(s, 8, j.segment_start);
  sqlite3_bind_double(s, 9, j.finished_at);
  sqlite3_bind_double(s, 10, j.deferred_until);
  sqlite3_bind_int(s, 11, j.restart_count);
  if (j.exit_code) sqlite3_bind_int(s, 12, *j.exit_code);
  sqlite3_bind_text(s, 13, j.reason.data(), static_cast<int>(j.reason.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 14, j.handle.data(), static_cast<int>(j.handle.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 15, j.placement.data(), static_cast<int>(j.placement.size()),
                    SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 16, j.utilization);
  sqlite3_bind_int64(s, 17, j.utilization_samples);
  sqlite3_bind_text(s, 18, j.stopping_handle.data(), static_cast<int>(j.stopping_handle.size()),
                    SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 19, j.stopping_placement.data(),
                    static_cast<int>(j.stopping_placement.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int(s, 20, j.cancel_requested ? 1 : 0);
  sqlite3_bind_int(s, 21, j.output_truncated ? 1 : 0);
  sqlite3_bind_double(s, 22, j.stage_s);
  sqlite3_bind_double(s, 23, j.restore_s);
  sqlite3_bind_double(s, 24, j.staging_s);
  sqlite3_bind_double(s, 25, j.staging_usd);
  if (sqlite3_step(s) != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Status Store::add_segment(const SegmentRow& g) {
  sqlite3_stmt* s = add_segment_;
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  sqlite3_bind_int64(s, 1, g.job_id);
  sqlite3_bind_double(s, 2, g.t0);
  sqlite3_bind_double(s, 3, g.t1);
  sqlite3_bind_double(s, 4, g.kept_s);
  sqlite3_bind_text(s, 5, g.placement.data(), static_cast<int>(g.placement.size()),
                    SQLITE_TRANSIENT);
  if (sqlite3_step(s) != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Status Store::add_transition(const TransitionRow& t) {
  sqlite3_stmt* s = add_transition_;
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  sqlite3_bind_int64(s, 1, t.job_id);
  sqlite3_bind_double(s, 2, t.at);
  int i = 3;
  for (const std::string* v : {&t.from, &t.to, &t.event, &t.reason})
    sqlite3_bind_text(s, i++, v->data(), static_cast<int>(v->size()), SQLITE_TRANSIENT);
  if (sqlite3_step(s) != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Result<std::vector<TransitionRow>> Store::load_transitions(int64_t job_id) const {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "SELECT at, from_state, to_state, event, reason FROM job_transitions WHERE job_id = ?"
      " ORDER BY seq;";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_int64(s, 1, job_id);
  std::vector<TransitionRow> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back(TransitionRow{job_id, sqlite3_column_double(s, 0), column_text(s, 1),
                                column_text(s, 2), column_text(s, 3), column_text(s, 4)});
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return out;
}

namespace {

constexpr const char* kJobColumns =
    "id, team, request, state, held, submitted_at, started_at, segment_start,"
    " finished_at, deferred_until, restart_count, exit_code, reason, handle, placement,"
    " utilization, utilization_samples, stopping_handle, stopping_placement, cancel_requested,"
    " output_truncated, stage_s, restore_s, staging_s, staging_usd";

// The job of the current row of a statement selecting kJobColumns.
Result<JobRecord> job_row(sqlite3_stmt* s) {
  JobRecord j;
  j.id = sqlite3_column_int64(s, 0);
  j.team = column_text(s, 1);
  const auto req = nlohmann::json::parse(column_text(s, 2), nullptr, false);
  Result<JobRequest> r =
      req.is_discarded() ? Result<JobRequest>(Error{"not JSON"}) : job_request_from_stored(req);
  const auto state = parse_job_status(column_text(s, 3));
  if (!r.ok() || !state)
    return Error{
        fmt::format("job {}: unreadable row ({})", j.id, r.ok() ? "state" : r.error().message)};
  j.request = std::move(r).value();
  j.state = *state;
  j.held = sqlite3_column_int(s, 4) != 0;
  j.submitted_at = sqlite3_column_double(s, 5);
  j.started_at = sqlite3_column_double(s, 6);
  j.segment_start = sqlite3_column_double(s, 7);
  j.finished_at = sqlite3_column_double(s, 8);
  j.deferred_until = sqlite3_column_double(s, 9);
  j.restart_count = sqlite3_column_int(s, 10);
  if (sqlite3_column_type(s, 11) != SQLITE_NULL) j.exit_code = sqlite3_column_int(s, 11);
  j.reason = column_text(s, 12);
  j.handle = column_text(s, 13);
  j.placement = column_text(s, 14);
  j.utilization = sqlite3_column_double(s, 15);
  j.utilization_samples = sqlite3_column_int64(s, 16);
  j.stopping_handle = column_text(s, 17);
  j.stopping_placement = column_text(s, 18);
  j.cancel_requested = sqlite3_column_int(s, 19) != 0;
  j.output_truncated = sqlite3_column_int(s, 20) != 0;
  j.stage_s = sqlite3_column_double(s, 21);
  j.restore_s = sqlite3_column_double(s, 22);
  j.staging_s = sqlite3_column_double(s, 23);
  j.staging_usd = sqlite3_column_double(s, 24);
  return j;
}

// Every row `s` (bound, not yet stepped) selects, as jobs; finalizes `s`.
Result<std::vector<JobRecord>> job_rows(sqlite3* db, sqlite3_stmt* s) {
  std::vector<JobRecord> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    Result<JobRecord> j = job_row(s);
    if (!j.ok()) {
      sqlite3_finalize(s);
      return j.error();
    }
    out.push_back(std::move(j).value());
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db)};
  return out;
}

}  // namespace

Result<std::vector<JobRecord>> Store::load_jobs() const {
  sqlite3_stmt* s = nullptr;
  const std::string sql = fmt::format("SELECT {} FROM jobs ORDER BY id;", kJobColumns);
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
    return Error{sqlite3_errmsg(db_)};
  return job_rows(db_, s);
}

Result<std::vector<JobRecord>> Store::list_jobs(std::optional<int64_t> below,
                                                const std::string* team, const std::string* state,
                                                size_t limit) const {
  sqlite3_stmt* s = nullptr;
  const std::string sql = fmt::format(
      "SELECT {} FROM jobs WHERE id < ?1 AND (?2 IS NULL OR team = ?2) AND"
      " (?3 IS NULL OR state = ?3) ORDER BY id DESC LIMIT ?4;",
      kJobColumns);
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
    return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_int64(s, 1, below.value_or(std::numeric_limits<int64_t>::max()));
  if (team) sqlite3_bind_text(s, 2, team->data(), static_cast<int>(team->size()), SQLITE_STATIC);
  if (state) sqlite3_bind_text(s, 3, state->data(), static_cast<int>(state->size()), SQLITE_STATIC);
  sqlite3_bind_int64(s, 4, static_cast<int64_t>(limit));
  return job_rows(db_, s);
}

Result<std::optional<JobRecord>> Store::load_job(int64_t id) const {
  Result<std::vector<JobRecord>> rows = list_jobs(id + 1, nullptr, nullptr, 1);
  if (!rows.ok()) return rows.error();
  if (rows.value().empty() || rows.value()[0].id != id) return std::optional<JobRecord>();
  return std::optional<JobRecord>(std::move(rows.value()[0]));
}

Result<std::vector<std::pair<int64_t, int>>> Store::logs_to_remove(double finished_before) const {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "SELECT id, restart_count FROM jobs WHERE logs_removed = 0 AND finished_at >= 0 AND"
      " finished_at < ? ORDER BY id LIMIT 10000;";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_double(s, 1, finished_before);
  std::vector<std::pair<int64_t, int>> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.emplace_back(sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1));
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return out;
}

Status Store::logs_removed(int64_t id) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "UPDATE jobs SET logs_removed = 1 WHERE id = ?;", -1, &s, nullptr) !=
      SQLITE_OK)
    return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_int64(s, 1, id);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Status Store::add_idempotency(const IdempotencyRow& r) {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "INSERT OR REPLACE INTO idempotency (team, key, body_sha256, job_id, at)"
      " VALUES (?,?,?,?,?);";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_text(s, 1, r.team.data(), static_cast<int>(r.team.size()), SQLITE_STATIC);
  sqlite3_bind_text(s, 2, r.key.data(), static_cast<int>(r.key.size()), SQLITE_STATIC);
  sqlite3_bind_text(s, 3, r.body_sha256.data(), static_cast<int>(r.body_sha256.size()),
                    SQLITE_STATIC);
  sqlite3_bind_int64(s, 4, r.job_id);
  sqlite3_bind_double(s, 5, r.at);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Status Store::add_policy_change(const PolicyChangeRow& r) {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "INSERT INTO policy_changes (at, from_policy, to_policy, by, reason) VALUES (?,?,?,?,?);";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_double(s, 1, r.at);
  int i = 2;
  for (const std::string* t : {&r.from, &r.to, &r.by, &r.reason})
    sqlite3_bind_text(s, i++, t->data(), static_cast<int>(t->size()), SQLITE_STATIC);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Result<std::vector<PolicyChangeRow>> Store::load_policy_changes() const {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "SELECT at, from_policy, to_policy, by, reason FROM policy_changes ORDER BY seq;";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  std::vector<PolicyChangeRow> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back(PolicyChangeRow{sqlite3_column_double(s, 0), column_text(s, 1), column_text(s, 2),
                                  column_text(s, 3), column_text(s, 4)});
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return out;
}

Status Store::purge_idempotency(double before) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "DELETE FROM idempotency WHERE at < ?;", -1, &s, nullptr) !=
      SQLITE_OK)
    return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_double(s, 1, before);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Result<std::vector<IdempotencyRow>> Store::load_idempotency(double since) const {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "SELECT team, key, body_sha256, job_id, at FROM idempotency WHERE at >= ? ORDER BY at;";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_double(s, 1, since);
  std::vector<IdempotencyRow> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back(IdempotencyRow{column_text(s, 0), column_text(s, 1), column_text(s, 2),
                                 sqlite3_column_int64(s, 3), sqlite3_column_double(s, 4)});
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return out;
}

Result<std::vector<SegmentRow>> Store::load_segments() const {
  sqlite3_stmt* s = nullptr;
  const char* sql = "SELECT job_id, t0, t1, kept_s, placement FROM segments ORDER BY job_id, t0;";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  std::vector<SegmentRow> out;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back(SegmentRow{sqlite3_column_int64(s, 0), sqlite3_column_double(s, 1),
                             sqlite3_column_double(s, 2), sqlite3_column_double(s, 3),
                             column_text(s, 4)});
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return out;
}

std::string Store::check_consistency() const {
  const char* checks[][2] = {
      {"PRAGMA integrity_check;", nullptr},
      {"SELECT count(*) FROM jobs WHERE state IN ('completed','failed','cancelled','unknown')"
       " AND finished_at < 0;",
       "final jobs without finished_at"},
      {"SELECT count(*) FROM jobs WHERE state = 'running' AND segment_start < 0;",
       "running jobs without a segment start"},
      {"SELECT count(*) FROM segments WHERE t1 < t0 OR kept_s < 0 OR kept_s > t1 - t0 + 1e-6;",
       "segments with bad times"},
      {"SELECT count(*) FROM segments WHERE job_id NOT IN (SELECT id FROM jobs);",
       "segments of unknown jobs"},
      {"SELECT count(*) FROM jobs WHERE state NOT IN ('queued','deferred','running',"
       "'preempted','completed','failed','cancelled','unknown');",
       "jobs in unknown states"},
      {"SELECT count(*) FROM jobs j JOIN job_transitions t ON t.job_id = j.id"
       " WHERE t.seq = (SELECT max(seq) FROM job_transitions WHERE job_id = j.id)"
       " AND t.to_state != j.state;",
       "jobs whose last recorded transition names another state"},
      {"SELECT count(*) FROM job_transitions WHERE job_id NOT IN (SELECT id FROM jobs);",
       "transitions of unknown jobs"},
  };
  for (const auto& c : checks) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, c[0], -1, &s, nullptr) != SQLITE_OK) return sqlite3_errmsg(db_);
    std::string problem;
    if (sqlite3_step(s) == SQLITE_ROW) {
      if (c[1] == nullptr) {
        const std::string r = column_text(s, 0);
        if (r != "ok") problem = "integrity_check: " + r;
      } else if (const int64_t n = sqlite3_column_int64(s, 0); n != 0) {
        problem = fmt::format("{} {}", n, c[1]);
      }
    } else {
      problem = sqlite3_errmsg(db_);
    }
    sqlite3_finalize(s);
    if (!problem.empty()) return problem;
  }
  return {};
}

}  // namespace frugal
