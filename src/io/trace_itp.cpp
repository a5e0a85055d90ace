// Microsoft ITP raw trace: job_id,submission_time,duration,num_gpu (seconds since the start
// of collection). Jobs are whole-GPU gangs of class pretrain, tier general, team "default".

#include "io/trace_parsers.h"

namespace frugal {

Status read_itp_table(const Table& table, const TraceOptions& options, Trace& trace) {
  auto cols = require_columns(table, {"job_id", "submission_time", "duration", "num_gpu"});
  if (!cols.ok()) return cols.error();
  const std::vector<int> c = std::move(cols).value();

  return collect_rows(
      table, options, trace,
      [&](const CsvRow& row, size_t) -> Result<JobSpec> {
        const Where w = table.where(row);
        JobSpec job;
        job.id = field(row, c[0]);
        auto submit = parse_seconds(field(row, c[1]), "submission_time", w);
        if (!submit.ok()) return submit.error();
        auto duration = parse_seconds(field(row, c[2]), "duration", w);
        if (!duration.ok()) return duration.error();
        auto gpus = parse_count(field(row, c[3]), "num_gpu", w);
        if (!gpus.ok()) return gpus.error();
        job.submit = submit.value();
        job.duration = duration.value();
        job.gpus = static_cast<int>(gpus.value());
        return job;
      },
      ColumnNames{"job_id", "submission_time", "duration", "num_gpu", "gpu_milli"});
}

}  // namespace frugal
