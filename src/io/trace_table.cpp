#include "io/trace_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace frugal {
namespace {

constexpr int kMaxJobGpus = 4096;

}  // namespace

int Table::col(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

Error missing_column(const Table& table, std::string_view name) {
  return Error{fmt::format("{}:{}: missing column '{}' (header: {})", *table.path,
                           table.header_line, name, fmt::join(table.columns, ","))};
}

Result<std::vector<int>> require_columns(const Table& table,
                                         std::initializer_list<std::string_view> names) {
  std::vector<int> out;
  for (std::string_view name : names) {
    const int c = table.col(name);
    if (c < 0) return missing_column(table, name);
    out.push_back(c);
  }
  return out;
}

Status validate_job(const JobSpec& job, const Where& where, const ColumnNames& names) {
  if (job.id.empty()) return field_error(where, names.id, "job id is empty");
  if (job.gpus < 0 || job.gpus > kMaxJobGpus)
    return field_error(where, names.gpus,
                       fmt::format("{} GPUs is outside [0, {}]", job.gpus, kMaxJobGpus));
  if (job.gpu_milli < 1 || job.gpu_milli > kMilliPerGpu)
    return field_error(where, names.gpu_milli,
                       fmt::format("{} is outside [1, {}]", job.gpu_milli, kMilliPerGpu));
  if (job.gpu_milli < kMilliPerGpu && job.gpus != 1)
    return field_error(where, names.gpu_milli,
                       fmt::format("a fractional share ({}) needs exactly 1 GPU, not {}",
                                   job.gpu_milli, job.gpus));
  if (!(job.submit >= 0) || !std::isfinite(job.submit))
    return field_error(where, names.submit, "must be a finite time >= 0");
  if (!(job.duration >= 0) || !std::isfinite(job.duration))
    return field_error(where, names.duration, "must be a finite duration >= 0");
  if (job.min_gpus < 0 || job.max_gpus < 0 || job.min_gpus > job.max_gpus)
    return field_error(where, "min_gpus",
                       fmt::format("elastic bounds must satisfy 0 <= min_gpus <= max_gpus, got "
                                   "{} and {}",
                                   job.min_gpus, job.max_gpus));
  if (job.max_gpus > kMaxJobGpus)
    return field_error(where, "max_gpus", fmt::format("{} is above {}", job.max_gpus, kMaxJobGpus));
  return Status::Ok();
}

Status JobCollector::bad_row(Error error) {
  if (!options_.skip_bad_rows) return error;
  ++trace_.skipped_rows;
  if (trace_.warnings.size() < kMaxTraceWarnings)
    trace_.warnings.push_back(std::move(error.message));
  return Status::Ok();
}

Status JobCollector::add(Result<JobSpec> job, const Where& where) {
  if (!job.ok()) return bad_row(job.error());
  if (Status s = validate_job(job.value(), where, names_); !s.ok()) return bad_row(s.error());
  if (!ids_.insert(job.value().id).second)
    return bad_row(
        field_error(where, names_.id, fmt::format("duplicate job id '{}'", job.value().id)));
  trace_.jobs.push_back(std::move(job).value());
  trace_.lines.push_back(where.line);
  return Status::Ok();
}

Status collect_rows(const Table& table, const TraceOptions& options, Trace& trace,
                    const RowParser& parse, const ColumnNames& names) {
  JobCollector sink(trace, options, names);
  trace.jobs.reserve(table.rows.size());
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const CsvRow& row = table.rows[i];
    const Where where = table.where(row);
    Status s;
    if (row.fields.size() != table.columns.size()) {
      const char* what =
          row.fields.size() < table.columns.size() ? "truncated row" : "extra columns";
      s = sink.bad_row(Error{fmt::format("{}: {}: expected {} fields ({}), got {}", where.str(),
                                         what, table.columns.size(), fmt::join(table.columns, ","),
                                         row.fields.size())});
    } else {
      s = sink.add(parse(row, i), where);
    }
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace frugal
