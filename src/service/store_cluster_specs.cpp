// Store: the recorded cluster specs (table cluster_specs, schema version 10).
#include <sqlite3.h>

#include "service/store.h"

namespace frugal {
namespace {

std::string text_at(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace

Status Store::add_cluster_spec(const ClusterSpecRow& r) {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "INSERT INTO cluster_specs (recorded_at, source, spec_yaml, sha256) VALUES (?,?,?,?);";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_double(s, 1, r.recorded_at);
  int i = 2;
  for (const std::string* t : {&r.source, &r.spec_yaml, &r.sha256})
    sqlite3_bind_text(s, i++, t->data(), static_cast<int>(t->size()), SQLITE_STATIC);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Result<std::optional<ClusterSpecRow>> Store::latest_cluster_spec() const {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "SELECT seq, recorded_at, source, spec_yaml, sha256 FROM cluster_specs"
      " ORDER BY seq DESC LIMIT 1;";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  std::optional<ClusterSpecRow> out;
  const int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW)
    out = ClusterSpecRow{sqlite3_column_int64(s, 0), sqlite3_column_double(s, 1), text_at(s, 2),
                         text_at(s, 3), text_at(s, 4)};
  sqlite3_finalize(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return out;
}

}  // namespace frugal
