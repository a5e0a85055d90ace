// frugal's native CSV: a header starting with (or containing) id, submit and duration, plus
// any subset, in any order, of the other JobSpec columns (kNativeColumns). Empty optional
// cells keep the JobSpec defaults. Unknown columns are rejected at the header.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "io/trace_parsers.h"

namespace frugal {
namespace {

constexpr std::array<std::string_view, 27> kNativeColumns = {"id",
                                                             "team",
                                                             "name",
                                                             "class",
                                                             "tier",
                                                             "submit",
                                                             "gpus",
                                                             "gpu_milli",
                                                             "gpu_memory_mib",
                                                             "cpu_milli",
                                                             "memory_mib",
                                                             "allowed_models",
                                                             "preferred_model",
                                                             "duration",
                                                             "estimate",
                                                             "min_gpus",
                                                             "max_gpus",
                                                             "deadline",
                                                             "deferrable",
                                                             "checkpoint_interval",
                                                             "utilization",
                                                             "dataset",
                                                             "dataset_gb",
                                                             "checkpoint_gb",
                                                             "storage_tier",
                                                             "movable",
                                                             "data_region"};

bool required(std::string_view key) {
  return key == "id" || key == "submit" || key == "duration";
}

Result<int64_t> int_field(std::string_view v, std::string_view key, const Where& w, int64_t hi) {
  return parse_int(v, key, w, 0, hi);
}

}  // namespace

Status set_native_field(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
                        const GpuCatalog& catalog) {
  if (value.empty() && !required(key)) {
    bool known = false;
    for (auto k : kNativeColumns) known = known || k == key;
    if (known) return Status::Ok();  // keep the default
  }
  constexpr int64_t kBig = int64_t{1} << 40;
  auto seconds = [&](Seconds& out) -> Status {
    auto r = parse_seconds(value, key, w);
    if (!r.ok()) return r.error();
    out = r.value();
    return Status::Ok();
  };
  auto integer = [&](auto& out, int64_t hi) -> Status {
    auto r = int_field(value, key, w, hi);
    if (!r.ok()) return r.error();
    out = static_cast<std::remove_reference_t<decltype(out)>>(r.value());
    return Status::Ok();
  };
  if (key == "id") {
    job.id = value;
  } else if (key == "team") {
    job.team = value;
  } else if (key == "name") {
    job.name = value;
  } else if (key == "class") {
    auto c = parse_job_class(value);
    if (!c)
      return field_error(w, key,
                         fmt::format("unknown job class '{}' (valid: {})", value,
                                     fmt::join(kJobClassNames, ", ")));
    job.job_class = *c;
  } else if (key == "tier") {
    auto t = parse_tier(value);
    if (!t)
      return field_error(
          w, key, fmt::format("unknown tier '{}' (valid: {})", value, fmt::join(kTierNames, ", ")));
    job.tier = *t;
  } else if (key == "submit") {
    return seconds(job.submit);
  } else if (key == "duration") {
    return seconds(job.duration);
  } else if (key == "estimate") {
    return seconds(job.estimate);
  } else if (key == "deadline") {
    return seconds(job.deadline);
  } else if (key == "checkpoint_interval") {
    return seconds(job.checkpoint_interval);
  } else if (key == "gpus") {
    return integer(job.gpus, kMaxCount);
  } else if (key == "min_gpus") {
    return integer(job.min_gpus, kMaxCount);
  } else if (key == "max_gpus") {
    return integer(job.max_gpus, kMaxCount);
  } else if (key == "gpu_milli") {
    return integer(job.gpu_milli, kMilliPerGpu);
  } else if (key == "gpu_memory_mib") {
    return integer(job.gpu_memory_mib, kBig);
  } else if (key == "cpu_milli") {
    return integer(job.cpu_milli, kBig);
  } else if (key == "memory_mib") {
    return integer(job.memory_mib, kBig);
  } else if (key == "allowed_models") {
    return parse_model_list(value, key, w, catalog, job.allowed_models);
  } else if (key == "preferred_model") {
    auto id = catalog.find(value);
    if (!id)
      return field_error(w, key,
                         fmt::format("unknown GPU model '{}' (not in the GPU catalog)", value));
    job.preferred_model = *id;
  } else if (key == "utilization") {
    auto r = parse_real(value, key, w, 0.0, 1.0);
    if (!r.ok()) return r.error();
    job.utilization = r.value();
  } else if (key == "dataset") {
    job.dataset = value;
  } else if (key == "dataset_gb" || key == "checkpoint_gb") {
    auto r = parse_real(value, key, w, 0.0, 1e9);
    if (!r.ok()) return r.error();
    (key == "dataset_gb" ? job.dataset_gb : job.checkpoint_gb) = r.value();
  } else if (key == "storage_tier") {
    job.storage_tier = value;
  } else if (key == "deferrable" || key == "movable") {
    auto b = parse_bool(value, key, w);
    if (!b.ok()) return b.error();
    (key == "deferrable" ? job.deferrable : job.movable) = b.value();
  } else if (key == "data_region") {
    job.data_region = value;
  } else {
    return field_error(w, key,
                       fmt::format("unknown field (valid: {})", fmt::join(kNativeColumns, ",")));
  }
  return Status::Ok();
}

Status check_native_job(const JobSpec& job, const Where& w) {
  // An absolute deadline before the job exists can only be a mistake (as elasticflow's
  // reader says too); it would be counted as a miss.
  if (job.deadline != kNever && job.deadline < job.submit)
    return field_error(
        w, "deadline",
        fmt::format("absolute deadline {} is before submit {}", job.deadline, job.submit));
  return Status::Ok();
}

Status read_native_table(const Table& table, const TraceOptions& options, Trace& trace) {
  for (const auto& name : table.columns) {
    bool known = false;
    for (auto k : kNativeColumns) known = known || k == name;
    if (!known)
      return Error{fmt::format("{}:{}: unknown column '{}' (valid: {})", *table.path,
                               table.header_line, name, fmt::join(kNativeColumns, ","))};
  }
  auto cols = require_columns(table, {"id", "submit", "duration"});
  if (!cols.ok()) return cols.error();
  const GpuCatalog& catalog = *options.catalog;
  return collect_rows(table, options, trace, [&](const CsvRow& row, size_t) -> Result<JobSpec> {
    const Where w = table.where(row);
    JobSpec job;
    for (size_t i = 0; i < table.columns.size(); ++i)
      if (Status s = set_native_field(job, table.columns[i], row.fields[i], w, catalog); !s.ok())
        return s.error();
    if (Status s = check_native_job(job, w); !s.ok()) return s.error();
    return job;
  });
}

}  // namespace frugal
