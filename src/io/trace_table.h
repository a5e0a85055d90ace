#pragma once
// Internal to the trace readers: a parsed CSV table with named columns, and JobCollector,
// which validates each job, rejects duplicate ids and applies TraceOptions::skip_bad_rows.
// Every reader (trace_<format>.cpp) builds jobs row by row and hands them to a collector.

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "io/csv.h"
#include "io/trace_reader.h"

namespace frugal {

struct Table {
  const std::string* path = nullptr;
  std::vector<std::string> columns;  // header names, or the format's layout when headerless
  std::vector<CsvRow> rows;          // data rows only
  size_t header_line = 1;            // 0 when the file has no header

  // Index of column `name`, or -1 when absent.
  int col(std::string_view name) const;
  Where where(const CsvRow& row) const { return Where{path, row.line}; }
};

// The file's names for the job fields validate_job checks, so that its errors name the
// column the user wrote (ITP's `num_gpu`, not JobSpec's `gpus`). The defaults are the native
// format's own column names.
struct ColumnNames {
  std::string_view id = "id", submit = "submit", duration = "duration", gpus = "gpus",
                   gpu_milli = "gpu_milli";
};

// Checks the invariants every job must satisfy (see docs/TRACE_FORMATS.md):
// gpus in [0, 4096], gpu_milli in [1, 1000], fractional only with gpus == 1, submit and
// duration >= 0 and finite, elastic bounds 1 <= min <= max (when set), non-empty id.
Status validate_job(const JobSpec& job, const Where& where, const ColumnNames& names = {});

class JobCollector {
 public:
  JobCollector(Trace& trace, const TraceOptions& options, ColumnNames names = {})
      : trace_(trace), options_(options), names_(names) {}

  // Validates and appends `job`; on failure returns the error, or, when skipping bad rows,
  // counts it and returns Ok.
  Status add(Result<JobSpec> job, const Where& where);
  // Reports a row that could not be parsed at all (same skip/fail rule as add).
  Status bad_row(Error error);

 private:
  Trace& trace_;
  const TraceOptions& options_;
  ColumnNames names_;
  std::unordered_set<std::string> ids_;
};

// Runs `parse` on each data row of `table` after checking its field count, and feeds the
// result to a collector. `parse` receives the row and its 0-based data-row index.
using RowParser = std::function<Result<JobSpec>(const CsvRow& row, size_t index)>;
Status collect_rows(const Table& table, const TraceOptions& options, Trace& trace,
                    const RowParser& parse, const ColumnNames& names = {});

// Indices of the columns `names`, in order; an error naming the first one missing.
Result<std::vector<int>> require_columns(const Table& table,
                                         std::initializer_list<std::string_view> names);

// Error for a missing required column: "FILE:1: missing column 'NAME' (header: ...)".
Error missing_column(const Table& table, std::string_view name);

// Field `index` of `row`, or "" when the column is absent (index < 0).
inline const std::string& field(const CsvRow& row, int index) {
  static const std::string kEmpty;
  return index < 0 ? kEmpty : row.fields[static_cast<size_t>(index)];
}

}  // namespace frugal
