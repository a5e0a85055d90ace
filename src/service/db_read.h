#pragma once
// Reading a `frugal serve` database from outside the service (history export, the recorded
// cluster spec): opened read-only, so a running service may hold it; a write in progress is
// waited for (5 s at most). Errors name the file.

#include <sqlite3.h>

#include <memory>
#include <string>

#include "model/result.h"

namespace frugal {

using DbHandle = std::unique_ptr<sqlite3, int (*)(sqlite3*)>;
using DbStmt = std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)>;

struct ReadDb {
  DbHandle db{nullptr, &sqlite3_close};
  int schema = 0;  // its user_version (0: none)
};

// Opens `path` read-only and reads its schema version. Errors: cannot be opened; not a
// database; a schema newer than this build's.
Result<ReadDb> open_read_only(const std::string& path);
// A prepared statement; an error names `path` as "not a frugal serve database".
Result<DbStmt> prepare_read(sqlite3* db, const char* sql, const std::string& path);
// Column i as text ("" for NULL).
std::string column_text(sqlite3_stmt* s, int i);

}  // namespace frugal
