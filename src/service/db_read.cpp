#include "service/db_read.h"

#include <fmt/format.h>

#include "service/store.h"

namespace frugal {

Result<DbStmt> prepare_read(sqlite3* db, const char* sql, const std::string& path) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
    const std::string why = sqlite3_errmsg(db);
    sqlite3_finalize(st);
    return Error{fmt::format("{}: not a frugal serve database ({})", path, why)};
  }
  return DbStmt(st, &sqlite3_finalize);
}

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

Result<ReadDb> open_read_only(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  ReadDb out;
  out.db = DbHandle(raw, &sqlite3_close);
  if (rc != SQLITE_OK)
    return Error{fmt::format("{}: cannot open read-only: {}", path,
                             raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc))};
  sqlite3_busy_timeout(raw, 5000);  // a running service's write in progress
  auto version = prepare_read(raw, "PRAGMA user_version;", path);
  if (!version.ok()) return version.error();
  if (sqlite3_step(version.value().get()) == SQLITE_ROW)
    out.schema = sqlite3_column_int(version.value().get(), 0);
  if (out.schema > kSchemaVersion)
    return Error{fmt::format("{}: schema version {} is newer than this build's {}", path,
                             out.schema, kSchemaVersion)};
  return out;
}

}  // namespace frugal
