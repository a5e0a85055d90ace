// Alibaba openb pod list (FGD, ATC'23), two layouts:
//   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
//     deletion_time,scheduled_time
//   name,cpu_milli,memory_mib,num_gpu,gpu_milli            (the multigpu* variants)
// Mapping (docs/TRACE_FORMATS.md): gpus = num_gpu; gpu_milli as given when num_gpu == 1,
// 1000 when num_gpu > 1; num_gpu == 0 is a CPU-only job (gpu_milli ignored, kept at 1000).
// allowed_models = gpu_spec split on '|'. submit = creation_time; duration = deletion_time -
// scheduled_time (creation_time when scheduled_time is empty, e.g. Pending pods). Without
// times: submit = 0-based row index (seconds), duration = kOpenbNoTimeDuration.
// qos: LS and Guaranteed → tier important; BE, Burstable and empty → general.

#include <fmt/format.h>

#include "io/trace_parsers.h"

namespace frugal {
namespace {

constexpr Seconds kOpenbNoTimeDuration = 1e9;  // "never leaves" for the five-column layout

Result<Tier> tier_of_qos(std::string_view qos, const Where& w) {
  if (qos == "LS" || qos == "Guaranteed") return Tier::kImportant;
  if (qos.empty() || qos == "BE" || qos == "Burstable") return Tier::kGeneral;
  return field_error(
      w, "qos", fmt::format("unknown qos '{}' (expected LS, BE, Burstable or Guaranteed)", qos));
}

}  // namespace

Status read_openb_table(const Table& table, const TraceOptions& options, Trace& trace) {
  auto cols = require_columns(table, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"});
  if (!cols.ok()) return cols.error();
  const std::vector<int> c = std::move(cols).value();
  const int c_spec = table.col("gpu_spec");
  const int c_qos = table.col("qos");
  const int c_create = table.col("creation_time");
  const int c_delete = table.col("deletion_time");
  const int c_sched = table.col("scheduled_time");
  const bool timed = c_create >= 0;
  if (timed && c_delete < 0) return missing_column(table, "deletion_time");
  const GpuCatalog& catalog = *options.catalog;

  return collect_rows(
      table, options, trace,
      [&](const CsvRow& row, size_t index) -> Result<JobSpec> {
        const Where w = table.where(row);
        JobSpec job;
        job.id = field(row, c[0]);
        auto cpu = parse_int(field(row, c[1]), "cpu_milli", w, 0, int64_t{1} << 40);
        if (!cpu.ok()) return cpu.error();
        auto mem = parse_int(field(row, c[2]), "memory_mib", w, 0, int64_t{1} << 40);
        if (!mem.ok()) return mem.error();
        auto gpus = parse_count(field(row, c[3]), "num_gpu", w);
        if (!gpus.ok()) return gpus.error();
        auto milli = parse_int(field(row, c[4]), "gpu_milli", w, 0, kMilliPerGpu);
        if (!milli.ok()) return milli.error();
        job.cpu_milli = cpu.value();
        job.memory_mib = mem.value();
        job.gpus = static_cast<int>(gpus.value());
        if (job.gpus == 1) {
          if (milli.value() == 0)
            return field_error(w, "gpu_milli", "a 1-GPU pod needs gpu_milli in [1, 1000], got 0");
          job.gpu_milli = static_cast<Milli>(milli.value());
        } else {
          job.gpu_milli = kMilliPerGpu;  // whole cards (num_gpu > 1) or unused (CPU-only)
        }
        if (Status s =
                parse_model_list(field(row, c_spec), "gpu_spec", w, catalog, job.allowed_models);
            !s.ok())
          return s.error();
        auto tier = tier_of_qos(field(row, c_qos), w);
        if (!tier.ok()) return tier.error();
        job.tier = tier.value();

        if (!timed) {
          job.submit = static_cast<Seconds>(index);
          job.duration = kOpenbNoTimeDuration;
          return job;
        }
        auto created = parse_seconds(field(row, c_create), "creation_time", w);
        if (!created.ok()) return created.error();
        auto deleted = parse_seconds(field(row, c_delete), "deletion_time", w);
        if (!deleted.ok()) return deleted.error();
        Seconds start = created.value();
        if (!field(row, c_sched).empty()) {
          auto sched = parse_seconds(field(row, c_sched), "scheduled_time", w);
          if (!sched.ok()) return sched.error();
          start = sched.value();
        }
        if (deleted.value() < start)
          return field_error(
              w, "deletion_time",
              fmt::format("{} is before the start time {}", field(row, c_delete), start));
        job.submit = created.value();
        job.duration = deleted.value() - start;
        return job;
      },
      ColumnNames{"name", "creation_time", "deletion_time", "num_gpu", "gpu_milli"});
}

}  // namespace frugal
