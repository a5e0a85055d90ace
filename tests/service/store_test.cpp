// The SQLite store: migrations, round trips, group commit and rollback, consistency check.

#include "service/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

namespace frugal {
namespace {

struct TempDb {
  std::filesystem::path dir;
  TempDb() {
    char tmpl[] = "/tmp/frugal-store-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~TempDb() { std::filesystem::remove_all(dir); }
  std::string path() const { return (dir / "f.db").string(); }
};

JobRecord record(int64_t id) {
  JobRecord r;
  r.id = id;
  r.team = "alpha";
  r.request.command = "echo " + std::to_string(id);
  r.request.env = {{"A", "1"}};
  r.submitted_at = 1000 + id;
  return r;
}

TEST(Store, MigratesAndRoundTripsJobs) {
  TempDb t;
  {
    auto s = Store::open(t.path());
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s.value()->schema_version(), kSchemaVersion);
    ASSERT_TRUE(s.value()->begin().ok());
    JobRecord r = record(7);
    r.state = JobStatus::kRunning;
    r.segment_start = 1010;
    r.handle = "123:456";
    r.placement = R"({"model":"","slots":[[0,-1,0]]})";
    r.exit_code = 3;
    r.utilization = 0.25;
    r.utilization_samples = 4;
    r.stopping_handle = "99:100";
    r.stopping_placement = R"({"model":"","slots":[[0,1,1000]]})";
    r.cancel_requested = true;
    r.stage_s = 0.5;
    r.restore_s = 1.25;
    r.staging_s = 3.75;
    r.staging_usd = 0.002;
    ASSERT_TRUE(s.value()->put_job(r).ok());
    ASSERT_TRUE(s.value()->put_job(record(8)).ok());
    ASSERT_TRUE(s.value()->add_segment(SegmentRow{8, 1, 2, 1, "{}"}).ok());
    ASSERT_TRUE(s.value()->commit().ok());
  }
  auto s = Store::open(t.path());  // reopen: no migration runs twice
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto jobs = s.value()->load_jobs();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs.value().size(), 2u);
  const JobRecord& a = jobs.value()[0];
  EXPECT_EQ(a.id, 7);
  EXPECT_EQ(a.state, JobStatus::kRunning);
  EXPECT_EQ(a.handle, "123:456");
  EXPECT_EQ(a.request.command, "echo 7");
  ASSERT_EQ(a.request.env.size(), 1u);
  EXPECT_EQ(a.exit_code, 3);
  EXPECT_EQ(a.utilization, 0.25);
  EXPECT_EQ(a.utilization_samples, 4);
  EXPECT_EQ(a.stopping_handle, "99:100");
  EXPECT_EQ(a.stopping_placement, R"({"model":"","slots":[[0,1,1000]]})");
  EXPECT_TRUE(a.cancel_requested);
  EXPECT_EQ(a.stage_s, 0.5);
  EXPECT_EQ(a.restore_s, 1.25);
  EXPECT_EQ(a.staging_s, 3.75);
  EXPECT_EQ(a.staging_usd, 0.002);
  EXPECT_EQ(jobs.value()[1].stage_s, -1);
  EXPECT_EQ(jobs.value()[1].staging_s, 0);
  EXPECT_FALSE(jobs.value()[1].cancel_requested);
  EXPECT_EQ(jobs.value()[1].stopping_handle, "");
  EXPECT_FALSE(jobs.value()[1].exit_code.has_value());
  auto segs = s.value()->load_segments();
  ASSERT_TRUE(segs.ok());
  ASSERT_EQ(segs.value().size(), 1u);
  EXPECT_EQ(s.value()->check_consistency(), "");
}

TEST(Store, RollbackDropsTheGroup) {
  TempDb t;
  auto s = Store::open(t.path());
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s.value()->begin().ok());
  ASSERT_TRUE(s.value()->put_job(record(1)).ok());
  s.value()->rollback();
  EXPECT_TRUE(s.value()->load_jobs().value().empty());
}

TEST(Store, ConsistencyCheckFindsBrokenRows) {
  TempDb t;
  auto s = Store::open(t.path());
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s.value()->begin().ok());
  JobRecord r = record(1);
  r.state = JobStatus::kCompleted;  // final without finished_at
  ASSERT_TRUE(s.value()->put_job(r).ok());
  ASSERT_TRUE(s.value()->commit().ok());
  EXPECT_NE(s.value()->check_consistency().find("finished_at"), std::string::npos);
}

TEST(Store, MigratesAVersion2DatabaseKeepingItsJobs) {
  TempDb t;
  {
    // The schema as version 2 left it, with one job.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(t.path().c_str(), &db), SQLITE_OK);
    const char* v2 =
        "CREATE TABLE jobs (id INTEGER PRIMARY KEY, team TEXT NOT NULL, request TEXT NOT NULL,"
        " state TEXT NOT NULL, held INTEGER NOT NULL DEFAULT 0, submitted_at REAL NOT NULL,"
        " started_at REAL NOT NULL DEFAULT -1, segment_start REAL NOT NULL DEFAULT -1,"
        " finished_at REAL NOT NULL DEFAULT -1, deferred_until REAL NOT NULL DEFAULT 0,"
        " restart_count INTEGER NOT NULL DEFAULT 0, exit_code INTEGER,"
        " reason TEXT NOT NULL DEFAULT '', handle TEXT NOT NULL DEFAULT '',"
        " placement TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE segments (job_id INTEGER NOT NULL REFERENCES jobs(id), t0 REAL NOT NULL,"
        " t1 REAL NOT NULL, kept_s REAL NOT NULL, placement TEXT NOT NULL,"
        " PRIMARY KEY (job_id, t0));"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE INDEX jobs_team ON jobs(team, id);"
        "INSERT INTO jobs (id, team, request, state, submitted_at)"
        " VALUES (4, 'beta', '{\"command\":\"true\"}', 'queued', 5);"
        "PRAGMA user_version = 2;";
    ASSERT_EQ(sqlite3_exec(db, v2, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto s = Store::open(t.path());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s.value()->schema_version(), kSchemaVersion);
  auto jobs = s.value()->load_jobs();
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs.value().size(), 1u);
  EXPECT_EQ(jobs.value()[0].team, "beta");
  EXPECT_EQ(jobs.value()[0].utilization, -1);  // the new column's default
  EXPECT_EQ(jobs.value()[0].restore_s, -1);
  EXPECT_EQ(s.value()->check_consistency(), "");
}

// Version 11 (before the storage staging columns): its jobs open with no staging recorded,
// and the columns then hold what is written.
TEST(Store, MigratesAVersion11DatabaseToTheStagingColumns) {
  TempDb t;
  {
    auto s = Store::open(t.path());
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_TRUE(s.value()->begin().ok());
    ASSERT_TRUE(s.value()->put_job(record(3)).ok());
    ASSERT_TRUE(s.value()->commit().ok());
  }
  {
    // Back to version 11's shape: the four columns of migration 11 → 12 dropped.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(t.path().c_str(), &db), SQLITE_OK);
    const char* v11 =
        "ALTER TABLE jobs DROP COLUMN stage_s; ALTER TABLE jobs DROP COLUMN restore_s;"
        "ALTER TABLE jobs DROP COLUMN staging_s; ALTER TABLE jobs DROP COLUMN staging_usd;"
        "PRAGMA user_version = 11;";
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db, v11, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_close(db);
  }
  auto s = Store::open(t.path());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s.value()->schema_version(), kSchemaVersion);
  auto jobs = s.value()->load_jobs();
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs.value().size(), 1u);
  JobRecord r = jobs.value()[0];
  EXPECT_EQ(r.id, 3);
  EXPECT_EQ(r.stage_s, -1);
  EXPECT_EQ(r.restore_s, -1);
  EXPECT_EQ(r.staging_s, 0);
  EXPECT_EQ(r.staging_usd, 0);
  r.staging_s = 2;
  r.staging_usd = 0.01;
  ASSERT_TRUE(s.value()->begin().ok());
  ASSERT_TRUE(s.value()->put_job(r).ok());
  ASSERT_TRUE(s.value()->commit().ok());
  auto again = s.value()->load_job(3);
  ASSERT_TRUE(again.ok() && again.value());
  EXPECT_EQ(again.value()->staging_s, 2);
  EXPECT_EQ(again.value()->staging_usd, 0.01);
  EXPECT_EQ(s.value()->check_consistency(), "");
}

TEST(Store, OneServicePerDatabase) {
  TempDb t;
  auto first = Store::open(t.path());
  ASSERT_TRUE(first.ok());
  auto second = Store::open(t.path());
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("in use"), std::string::npos);
  first.value().reset();
  EXPECT_TRUE(Store::open(t.path()).ok());
}

TEST(Store, RefusesANewerSchema) {
  TempDb t;
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(t.path().c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99;", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto s = Store::open(t.path());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("newer"), std::string::npos);
}

}  // namespace
}  // namespace frugal
