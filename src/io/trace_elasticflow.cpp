// ElasticFlow's version of the ITP trace:
// job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration.
// `deadline` is an absolute time on the same clock as submission_time (checked on the real
// files: deadline > submission_time on every row and (deadline - submission_time) / duration
// lies in [0.5, 1.5]). name = model_name; num_iteration and batch_size are not used.

#include <fmt/format.h>

#include "io/trace_parsers.h"

namespace frugal {

Status read_elasticflow_table(const Table& table, const TraceOptions& options, Trace& trace) {
  auto cols = require_columns(
      table, {"job_id", "submission_time", "model_name", "deadline", "num_gpu", "duration"});
  if (!cols.ok()) return cols.error();
  const std::vector<int> c = std::move(cols).value();

  return collect_rows(
      table, options, trace,
      [&](const CsvRow& row, size_t) -> Result<JobSpec> {
        const Where w = table.where(row);
        JobSpec job;
        job.id = field(row, c[0]);
        job.name = field(row, c[2]);
        auto submit = parse_seconds(field(row, c[1]), "submission_time", w);
        if (!submit.ok()) return submit.error();
        auto deadline = parse_seconds(field(row, c[3]), "deadline", w);
        if (!deadline.ok()) return deadline.error();
        auto gpus = parse_count(field(row, c[4]), "num_gpu", w);
        if (!gpus.ok()) return gpus.error();
        auto duration = parse_seconds(field(row, c[5]), "duration", w);
        if (!duration.ok()) return duration.error();
        if (deadline.value() < submit.value())
          return field_error(w, "deadline",
                             fmt::format("absolute deadline {} is before submission_time {}",
                                         field(row, c[3]), field(row, c[1])));
        job.submit = submit.value();
        job.duration = duration.value();
        job.deadline = deadline.value();
        job.gpus = static_cast<int>(gpus.value());
        return job;
      },
      ColumnNames{"job_id", "submission_time", "duration", "num_gpu", "gpu_milli"});
}

}  // namespace frugal
