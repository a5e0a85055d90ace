#include "storage/storage_db.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>

namespace frugal::storage {
namespace {

// 1: the first tables. 2: storage_filesets.tier_since, storage_usage, storage_transfers,
// storage_waste (the bill, storage_bill.h).
constexpr int kSchemaVersion = 2;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS storage_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS storage_filesets (
  id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, job TEXT NOT NULL DEFAULT '',
  team TEXT NOT NULL DEFAULT '', tier TEXT NOT NULL, path TEXT NOT NULL UNIQUE,
  bytes INTEGER NOT NULL DEFAULT 0, checksum TEXT NOT NULL DEFAULT '',
  refcount INTEGER NOT NULL DEFAULT 0, last_use REAL NOT NULL DEFAULT 0,
  name TEXT NOT NULL DEFAULT '', step INTEGER NOT NULL DEFAULT 0,
  completed_at REAL NOT NULL DEFAULT -1, node TEXT NOT NULL DEFAULT '',
  shard_index INTEGER NOT NULL DEFAULT 0, shard_count INTEGER NOT NULL DEFAULT 1,
  tier_since REAL NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS storage_filesets_kind ON storage_filesets(kind, job);
CREATE INDEX IF NOT EXISTS storage_filesets_sum ON storage_filesets(kind, checksum);
CREATE TABLE IF NOT EXISTS storage_datasets (
  spec TEXT PRIMARY KEY, name TEXT NOT NULL, version TEXT NOT NULL, added_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS storage_dataset_teams (
  spec TEXT NOT NULL, team TEXT NOT NULL, PRIMARY KEY (spec, team));
CREATE TABLE IF NOT EXISTS storage_manifest (
  spec TEXT NOT NULL, relpath TEXT NOT NULL, hash TEXT NOT NULL, bytes INTEGER NOT NULL,
  PRIMARY KEY (spec, relpath));
CREATE TABLE IF NOT EXISTS storage_users (
  fileset_id INTEGER NOT NULL, job TEXT NOT NULL, PRIMARY KEY (fileset_id, job));
CREATE TABLE IF NOT EXISTS storage_jobs (
  job TEXT PRIMARY KEY, team TEXT NOT NULL, checkpoint_dir TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS storage_moves (
  id INTEGER PRIMARY KEY AUTOINCREMENT, fileset_id INTEGER NOT NULL, src TEXT NOT NULL,
  dst TEXT NOT NULL, tmp TEXT NOT NULL, to_tier TEXT NOT NULL, state TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS storage_manifest_hash ON storage_manifest(hash);
CREATE TABLE IF NOT EXISTS storage_usage (
  team TEXT NOT NULL, job TEXT NOT NULL, kind TEXT NOT NULL, tier TEXT NOT NULL,
  byte_seconds REAL NOT NULL DEFAULT 0, PRIMARY KEY (team, job, kind, tier));
CREATE TABLE IF NOT EXISTS storage_transfers (
  id INTEGER PRIMARY KEY AUTOINCREMENT, team TEXT NOT NULL, job TEXT NOT NULL,
  from_tier TEXT NOT NULL, to_tier TEXT NOT NULL, bytes INTEGER NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS storage_waste (
  team TEXT NOT NULL, category TEXT NOT NULL, tier TEXT NOT NULL,
  byte_seconds REAL NOT NULL DEFAULT 0, PRIMARY KEY (team, category, tier));
)sql";

constexpr const char* kFileSetCols =
    "id, kind, job, team, tier, path, bytes, checksum, refcount, last_use, name, step, "
    "completed_at, node, shard_index, shard_count, tier_since";

// A prepared statement with positional binding; finalised on destruction.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) st_ = nullptr;
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(const std::string& v) {
    if (st_) sqlite3_bind_text(st_, ++n_, v.c_str(), -1, SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int64_t v) {
    if (st_) sqlite3_bind_int64(st_, ++n_, v);
    return *this;
  }
  Stmt& bind(double v) {
    if (st_) sqlite3_bind_double(st_, ++n_, v);
    return *this;
  }
  bool row() { return st_ && sqlite3_step(st_) == SQLITE_ROW; }
  Status run() {
    if (!st_) return Error{fmt::format("storage db: {}", sqlite3_errmsg(db_))};
    const int rc = sqlite3_step(st_);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
      return Error{fmt::format("storage db: {}", sqlite3_errmsg(db_))};
    return {};
  }
  std::string text(int i) const {
    const auto* p = sqlite3_column_text(st_, i);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  int64_t i64(int i) const { return sqlite3_column_int64(st_, i); }
  double real(int i) const { return sqlite3_column_double(st_, i); }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  int n_ = 0;
};

FileSet read_fileset(const Stmt& s) {
  FileSet f;
  f.id = s.i64(0);
  f.kind = s.text(1);
  f.job = s.text(2);
  f.team = s.text(3);
  f.tier = s.text(4);
  f.path = s.text(5);
  f.bytes = static_cast<uint64_t>(s.i64(6));
  f.checksum = s.text(7);
  f.refcount = s.i64(8);
  f.last_use = s.real(9);
  f.name = s.text(10);
  f.step = s.i64(11);
  f.completed_at = s.real(12);
  f.node = s.text(13);
  f.shard_index = static_cast<int>(s.i64(14));
  f.shard_count = static_cast<int>(s.i64(15));
  f.tier_since = s.real(16);
  return f;
}

void bind_fileset(Stmt& s, const FileSet& f) {
  s.bind(f.kind)
      .bind(f.job)
      .bind(f.team)
      .bind(f.tier)
      .bind(f.path)
      .bind(static_cast<int64_t>(f.bytes))
      .bind(f.checksum)
      .bind(f.refcount)
      .bind(f.last_use)
      .bind(f.name)
      .bind(f.step)
      .bind(f.completed_at)
      .bind(f.node)
      .bind(static_cast<int64_t>(f.shard_index))
      .bind(static_cast<int64_t>(f.shard_count))
      .bind(f.tier_since);
}

std::vector<FileSet> query_filesets(sqlite3* db, const std::string& where,
                                    const std::vector<std::string>& args) {
  Stmt s(db, fmt::format("SELECT {} FROM storage_filesets {} ORDER BY id", kFileSetCols, where));
  for (const std::string& a : args) s.bind(a);
  std::vector<FileSet> out;
  while (s.row()) out.push_back(read_fileset(s));
  return out;
}

}  // namespace

Result<std::unique_ptr<StorageDb>> StorageDb::open(const std::string& path) {
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : "out of memory";
    sqlite3_close(raw);
    return Error{fmt::format("{}: {}", path, msg)};
  }
  std::unique_ptr<StorageDb> db(new StorageDb(raw));
  sqlite3_busy_timeout(raw, 10000);  // the service or the CLI may hold the write lock
  for (const char* sql : {"PRAGMA journal_mode=WAL;", "PRAGMA synchronous=FULL;"})
    if (Status s = db->exec(sql); !s.ok())
      return Error{fmt::format("{}: {}", path, s.error().message)};
  if (Status s = db->migrate(); !s.ok())
    return Error{fmt::format("{}: {}", path, s.error().message)};
  return db;
}

StorageDb::~StorageDb() {
  sqlite3_close(db_);
}

Status StorageDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return Error{fmt::format("storage db: {}", msg)};
  }
  return {};
}

Status StorageDb::migrate() {
  if (Status s = exec("BEGIN IMMEDIATE;"); !s.ok()) return s;
  Status s = exec(kSchema);
  if (s.ok()) {
    Stmt v(db_, "SELECT value FROM storage_meta WHERE key='schema_version'");
    const int have = v.row() ? std::stoi(v.text(0)) : 0;
    if (have > kSchemaVersion)
      s = Error{fmt::format("storage schema version {} is newer than this frugal's {}", have,
                            kSchemaVersion)};
    else if (have == 1)
      s = migrate_v1_to_v2();
    if (s.ok() && have <= kSchemaVersion)
      s = exec(fmt::format(
          "INSERT OR REPLACE INTO storage_meta(key, value) VALUES('schema_version', '{}');",
          kSchemaVersion));
  }
  if (!s.ok()) {
    rollback();
    return s;
  }
  return commit();
}

Status StorageDb::begin() {
  return exec("BEGIN IMMEDIATE;");
}
Status StorageDb::commit() {
  return exec("COMMIT;");
}
void StorageDb::rollback() {
  (void)exec("ROLLBACK;");
}

Result<int64_t> StorageDb::insert_fileset(const FileSet& f) {
  Stmt s(db_,
         "INSERT INTO storage_filesets(kind, job, team, tier, path, bytes, checksum, refcount, "
         "last_use, name, step, completed_at, node, shard_index, shard_count, tier_since) "
         "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  bind_fileset(s, f);
  if (Status st = s.run(); !st.ok()) return st.error();
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
}

Status StorageDb::update_fileset(const FileSet& f) {
  Stmt s(db_,
         "UPDATE storage_filesets SET kind=?, job=?, team=?, tier=?, path=?, bytes=?, "
         "checksum=?, refcount=?, last_use=?, name=?, step=?, completed_at=?, node=?, "
         "shard_index=?, shard_count=?, tier_since=? WHERE id=?");
  bind_fileset(s, f);
  s.bind(f.id);
  return s.run();
}

Status StorageDb::delete_fileset(int64_t id, double now) {
  // One savepoint (nested in the caller's transaction, if any): the closed interval and the
  // deletion land together or not at all.
  if (Status st = exec("SAVEPOINT delete_fileset;"); !st.ok()) return st;
  Status st;
  if (const std::optional<FileSet> f = fileset(id)) st = add_usage(*f, now);
  if (st.ok()) {
    Stmt u(db_, "DELETE FROM storage_users WHERE fileset_id=?");
    st = u.bind(id).run();
  }
  if (st.ok()) {
    Stmt s(db_, "DELETE FROM storage_filesets WHERE id=?");
    st = s.bind(id).run();
  }
  if (!st.ok()) {
    (void)exec("ROLLBACK TO delete_fileset; RELEASE delete_fileset;");
    return st;
  }
  return exec("RELEASE delete_fileset;");
}

std::vector<std::string> StorageDb::object_teams(const std::string& hash) const {
  Stmt s(db_,
         "SELECT DISTINCT t.team FROM storage_manifest m JOIN storage_dataset_teams t "
         "ON m.spec = t.spec WHERE m.hash=? ORDER BY t.team");
  s.bind(hash);
  std::vector<std::string> out;
  while (s.row()) out.push_back(s.text(0));
  return out;
}

std::map<std::string, std::vector<std::string>> StorageDb::all_object_teams() const {
  Stmt s(db_,
         "SELECT DISTINCT m.hash, t.team FROM storage_manifest m JOIN storage_dataset_teams t "
         "ON m.spec = t.spec ORDER BY m.hash, t.team");
  std::map<std::string, std::vector<std::string>> out;
  while (s.row()) out[s.text(0)].push_back(s.text(1));
  return out;
}

std::vector<UsageRow> StorageDb::open_usage(const FileSet& f, double now) const {
  std::map<std::string, std::vector<std::string>> teams;
  if (f.kind == "dataset-object") teams[f.checksum] = object_teams(f.checksum);
  return open_usage(f, now, teams);
}

std::vector<UsageRow> StorageDb::open_usage(
    const FileSet& f, double now,
    const std::map<std::string, std::vector<std::string>>& object_teams) const {
  const double secs = now > f.tier_since ? now - f.tier_since : 0;
  const double byte_seconds = static_cast<double>(f.bytes) * secs;
  std::vector<UsageRow> out;
  if (f.kind == "dataset-object") {
    const auto found = object_teams.find(f.checksum);
    std::vector<std::string> teams =
        found == object_teams.end() ? std::vector<std::string>{} : found->second;
    if (teams.empty()) teams.push_back(f.team);
    for (const std::string& t : teams)
      out.push_back(
          UsageRow{t, "", f.kind, f.tier, byte_seconds / static_cast<double>(teams.size())});
    return out;
  }
  out.push_back(UsageRow{f.team, f.job, f.kind, f.tier, byte_seconds});
  return out;
}

Status StorageDb::add_usage(const FileSet& f, double now) {
  for (const UsageRow& u : open_usage(f, now)) {
    if (u.byte_seconds <= 0) continue;
    Stmt s(db_,
           "INSERT INTO storage_usage(team, job, kind, tier, byte_seconds) VALUES(?,?,?,?,?) "
           "ON CONFLICT(team, job, kind, tier) DO UPDATE SET "
           "byte_seconds = byte_seconds + excluded.byte_seconds");
    if (Status st = s.bind(u.team).bind(u.job).bind(u.kind).bind(u.tier).bind(u.byte_seconds).run();
        !st.ok())
      return st;
  }
  return {};
}

std::vector<UsageRow> StorageDb::usage() const {
  Stmt s(db_,
         "SELECT team, job, kind, tier, byte_seconds FROM storage_usage "
         "ORDER BY team, job, kind, tier");
  std::vector<UsageRow> out;
  while (s.row()) out.push_back(UsageRow{s.text(0), s.text(1), s.text(2), s.text(3), s.real(4)});
  return out;
}

Status StorageDb::add_transfer(const TransferRow& t) {
  Stmt s(db_,
         "INSERT INTO storage_transfers(team, job, from_tier, to_tier, bytes, at) "
         "VALUES(?,?,?,?,?,?)");
  return s.bind(t.team)
      .bind(t.job)
      .bind(t.from_tier)
      .bind(t.to_tier)
      .bind(static_cast<int64_t>(t.bytes))
      .bind(t.at)
      .run();
}

std::vector<TransferRow> StorageDb::transfers() const {
  // Summed per (team, job, from, to): the log grows with every move, the bill needs totals.
  Stmt s(db_,
         "SELECT team, job, from_tier, to_tier, SUM(bytes), MAX(at) FROM storage_transfers "
         "GROUP BY team, job, from_tier, to_tier ORDER BY team, job, from_tier, to_tier");
  std::vector<TransferRow> out;
  while (s.row())
    out.push_back(TransferRow{s.text(0), s.text(1), s.text(2), s.text(3),
                              static_cast<uint64_t>(s.i64(4)), s.real(5)});
  return out;
}

Status StorageDb::add_waste(const std::string& team, const std::string& category,
                            const std::string& tier, double byte_seconds) {
  Stmt s(db_,
         "INSERT INTO storage_waste(team, category, tier, byte_seconds) VALUES(?,?,?,?) "
         "ON CONFLICT(team, category, tier) DO UPDATE SET "
         "byte_seconds = byte_seconds + excluded.byte_seconds");
  return s.bind(team).bind(category).bind(tier).bind(byte_seconds).run();
}

std::vector<WasteRow> StorageDb::waste() const {
  Stmt s(db_,
         "SELECT team, category, tier, byte_seconds FROM storage_waste "
         "ORDER BY team, category, tier");
  std::vector<WasteRow> out;
  while (s.row()) out.push_back(WasteRow{s.text(0), s.text(1), s.text(2), s.real(3)});
  return out;
}

std::optional<std::string> StorageDb::meta(const std::string& key) const {
  Stmt s(db_, "SELECT value FROM storage_meta WHERE key=?");
  s.bind(key);
  if (!s.row()) return std::nullopt;
  return s.text(0);
}

Status StorageDb::set_meta(const std::string& key, const std::string& value) {
  Stmt s(db_, "INSERT OR REPLACE INTO storage_meta(key, value) VALUES(?,?)");
  return s.bind(key).bind(value).run();
}

Status StorageDb::migrate_v1_to_v2() {
  // storage_filesets gains tier_since. Existing rows get the migration's wall-clock time: the
  // time before it is not billed (the records did not keep when a file set entered its tier).
  bool has = false;
  {
    Stmt c(db_, "PRAGMA table_info(storage_filesets)");
    while (c.row()) has |= c.text(1) == "tier_since";
  }
  if (!has)
    if (Status s = exec("ALTER TABLE storage_filesets ADD COLUMN tier_since REAL NOT NULL "
                        "DEFAULT 0;");
        !s.ok())
      return s;
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  Stmt u(db_, "UPDATE storage_filesets SET tier_since=? WHERE tier_since <= 0");
  return u.bind(now).run();
}

std::optional<FileSet> StorageDb::fileset(int64_t id) const {
  Stmt s(db_, fmt::format("SELECT {} FROM storage_filesets WHERE id=?", kFileSetCols));
  s.bind(id);
  if (!s.row()) return std::nullopt;
  return read_fileset(s);
}

std::optional<FileSet> StorageDb::fileset_by_path(const std::string& path) const {
  auto v = query_filesets(db_, "WHERE path=?", {path});
  if (v.empty()) return std::nullopt;
  return v.front();
}

std::vector<FileSet> StorageDb::filesets(const std::string& kind, const std::string& job) const {
  if (kind.empty()) return query_filesets(db_, "", {});
  if (job.empty()) return query_filesets(db_, "WHERE kind=?", {kind});
  return query_filesets(db_, "WHERE kind=? AND job=?", {kind, job});
}

std::optional<FileSet> StorageDb::object(const std::string& hash) const {
  auto v = query_filesets(db_, "WHERE kind='dataset-object' AND checksum=?", {hash});
  if (v.empty()) return std::nullopt;
  return v.front();
}

Status StorageDb::insert_dataset(const DatasetRow& d) {
  Stmt s(db_, "INSERT INTO storage_datasets(spec, name, version, added_at) VALUES(?,?,?,?)");
  return s.bind(d.spec).bind(d.name).bind(d.version).bind(d.added_at).run();
}

std::optional<DatasetRow> StorageDb::dataset(const std::string& spec) const {
  Stmt s(db_, "SELECT spec, name, version, added_at FROM storage_datasets WHERE spec=?");
  s.bind(spec);
  if (!s.row()) return std::nullopt;
  return DatasetRow{s.text(0), s.text(1), s.text(2), s.real(3)};
}

std::vector<DatasetRow> StorageDb::datasets() const {
  Stmt s(db_, "SELECT spec, name, version, added_at FROM storage_datasets ORDER BY spec");
  std::vector<DatasetRow> out;
  while (s.row()) out.push_back(DatasetRow{s.text(0), s.text(1), s.text(2), s.real(3)});
  return out;
}

Status StorageDb::delete_dataset(const std::string& spec) {
  for (const char* t : {"storage_datasets", "storage_dataset_teams", "storage_manifest"}) {
    Stmt s(db_, fmt::format("DELETE FROM {} WHERE spec=?", t));
    if (Status st = s.bind(spec).run(); !st.ok()) return st;
  }
  return {};
}

Status StorageDb::add_team(const std::string& spec, const std::string& team) {
  Stmt s(db_, "INSERT OR IGNORE INTO storage_dataset_teams(spec, team) VALUES(?,?)");
  return s.bind(spec).bind(team).run();
}

std::vector<std::string> StorageDb::teams(const std::string& spec) const {
  Stmt s(db_, "SELECT team FROM storage_dataset_teams WHERE spec=? ORDER BY team");
  s.bind(spec);
  std::vector<std::string> out;
  while (s.row()) out.push_back(s.text(0));
  return out;
}

Status StorageDb::add_manifest(const std::string& spec, const std::string& relpath,
                               const std::string& hash, uint64_t bytes) {
  Stmt s(db_, "INSERT INTO storage_manifest(spec, relpath, hash, bytes) VALUES(?,?,?,?)");
  return s.bind(spec).bind(relpath).bind(hash).bind(static_cast<int64_t>(bytes)).run();
}

std::vector<std::tuple<std::string, std::string, uint64_t>> StorageDb::manifest(
    const std::string& spec) const {
  Stmt s(db_, "SELECT relpath, hash, bytes FROM storage_manifest WHERE spec=? ORDER BY relpath");
  s.bind(spec);
  std::vector<std::tuple<std::string, std::string, uint64_t>> out;
  while (s.row()) out.emplace_back(s.text(0), s.text(1), static_cast<uint64_t>(s.i64(2)));
  return out;
}

Status StorageDb::add_user(int64_t fileset_id, const std::string& job) {
  Stmt s(db_, "INSERT OR IGNORE INTO storage_users(fileset_id, job) VALUES(?,?)");
  return s.bind(fileset_id).bind(job).run();
}

Status StorageDb::remove_users(const std::string& job) {
  Stmt s(db_, "DELETE FROM storage_users WHERE job=?");
  return s.bind(job).run();
}

std::vector<std::string> StorageDb::users(int64_t fileset_id) const {
  Stmt s(db_, "SELECT job FROM storage_users WHERE fileset_id=? ORDER BY job");
  s.bind(fileset_id);
  std::vector<std::string> out;
  while (s.row()) out.push_back(s.text(0));
  return out;
}

Status StorageDb::put_job(const std::string& job, const std::string& team, const std::string& dir) {
  Stmt s(db_, "INSERT OR REPLACE INTO storage_jobs(job, team, checkpoint_dir) VALUES(?,?,?)");
  return s.bind(job).bind(team).bind(dir).run();
}

std::optional<std::pair<std::string, std::string>> StorageDb::job(const std::string& job) const {
  Stmt s(db_, "SELECT team, checkpoint_dir FROM storage_jobs WHERE job=?");
  s.bind(job);
  if (!s.row()) return std::nullopt;
  return std::make_pair(s.text(0), s.text(1));
}

std::vector<std::string> StorageDb::checkpoint_dirs() const {
  Stmt s(db_, "SELECT DISTINCT checkpoint_dir FROM storage_jobs ORDER BY checkpoint_dir");
  std::vector<std::string> out;
  while (s.row()) out.push_back(s.text(0));
  return out;
}

Result<int64_t> StorageDb::insert_move(const MoveEntry& m) {
  Stmt s(db_,
         "INSERT INTO storage_moves(fileset_id, src, dst, tmp, to_tier, state) "
         "VALUES(?,?,?,?,?,?)");
  s.bind(m.fileset_id).bind(m.src).bind(m.dst).bind(m.tmp).bind(m.to_tier).bind(m.state);
  if (Status st = s.run(); !st.ok()) return st.error();
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
}

Status StorageDb::set_move_state(int64_t id, const std::string& state) {
  Stmt s(db_, "UPDATE storage_moves SET state=? WHERE id=?");
  return s.bind(state).bind(id).run();
}

Status StorageDb::delete_move(int64_t id) {
  Stmt s(db_, "DELETE FROM storage_moves WHERE id=?");
  return s.bind(id).run();
}

std::vector<MoveEntry> StorageDb::moves() const {
  Stmt s(db_,
         "SELECT id, fileset_id, src, dst, tmp, to_tier, state FROM storage_moves ORDER BY id");
  std::vector<MoveEntry> out;
  while (s.row())
    out.push_back(
        MoveEntry{s.i64(0), s.i64(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6)});
  return out;
}

}  // namespace frugal::storage
