// frugal's native CSV: a header starting with (or containing) id, submit and duration, plus
// any subset, in any order, of the other JobSpec columns (kNativeColumns). Empty optional
// cells keep the JobSpec defaults. Unknown columns are rejected at the header.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <type_traits>

#include "io/trace_parsers.h"

namespace frugal {
namespace {

Result<int64_t> int_field(std::string_view v, std::string_view key, const Where& w, int64_t hi) {
  return parse_int(v, key, w, 0, hi);
}

constexpr int64_t kBig = int64_t{1} << 40;

// The setters of the native columns: each reads `value` (of column `key`, at `w`) into job.
using NativeSetter = Status (*)(JobSpec& job, std::string_view key, std::string_view value,
                                const Where& w, const GpuCatalog& catalog);

template <auto M>
Status text(JobSpec& job, std::string_view, std::string_view value, const Where&,
            const GpuCatalog&) {
  job.*M = value;
  return Status::Ok();
}

// Stores a parsed value in job.*M, or passes its error on.
template <auto M, class T>
Status store(JobSpec& job, Result<T> r) {
  if (!r.ok()) return r.error();
  job.*M = static_cast<std::remove_reference_t<decltype(job.*M)>>(r.value());
  return Status::Ok();
}

template <auto M>
Status seconds(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
               const GpuCatalog&) {
  return store<M>(job, parse_seconds(value, key, w));
}

template <auto M, int64_t Hi>
Status integer(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
               const GpuCatalog&) {
  return store<M>(job, int_field(value, key, w, Hi));
}

template <auto M, int64_t Hi>
Status real(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
            const GpuCatalog&) {
  return store<M>(job, parse_real(value, key, w, 0.0, static_cast<double>(Hi)));
}

template <auto M>
Status flag(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
            const GpuCatalog&) {
  return store<M>(job, parse_bool(value, key, w));
}

Status job_class(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
                 const GpuCatalog&) {
  auto c = parse_job_class(value);
  if (!c)
    return field_error(
        w, key,
        fmt::format("unknown job class '{}' (valid: {})", value, fmt::join(kJobClassNames, ", ")));
  job.job_class = *c;
  return Status::Ok();
}

Status tier(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
            const GpuCatalog&) {
  auto t = parse_tier(value);
  if (!t)
    return field_error(
        w, key, fmt::format("unknown tier '{}' (valid: {})", value, fmt::join(kTierNames, ", ")));
  job.tier = *t;
  return Status::Ok();
}

Status allowed_models(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
                      const GpuCatalog& catalog) {
  return parse_model_list(value, key, w, catalog, job.allowed_models);
}

Status preferred_model(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
                       const GpuCatalog& catalog) {
  auto id = catalog.find(value);
  if (!id)
    return field_error(w, key,
                       fmt::format("unknown GPU model '{}' (not in the GPU catalog)", value));
  job.preferred_model = *id;
  return Status::Ok();
}

// The native columns, each with its setter. The utilization is a fraction (at most 1),
// dataset_gb and checkpoint_gb at most 1e9.
struct NativeField {
  std::string_view key;
  NativeSetter set;
};
constexpr NativeField kNativeFields[] = {
    {"id", text<&JobSpec::id>},
    {"team", text<&JobSpec::team>},
    {"name", text<&JobSpec::name>},
    {"class", job_class},
    {"tier", tier},
    {"submit", seconds<&JobSpec::submit>},
    {"gpus", integer<&JobSpec::gpus, kMaxCount>},
    {"gpu_milli", integer<&JobSpec::gpu_milli, kMilliPerGpu>},
    {"gpu_memory_mib", integer<&JobSpec::gpu_memory_mib, kBig>},
    {"cpu_milli", integer<&JobSpec::cpu_milli, kBig>},
    {"memory_mib", integer<&JobSpec::memory_mib, kBig>},
    {"allowed_models", allowed_models},
    {"preferred_model", preferred_model},
    {"duration", seconds<&JobSpec::duration>},
    {"estimate", seconds<&JobSpec::estimate>},
    {"min_gpus", integer<&JobSpec::min_gpus, kMaxCount>},
    {"max_gpus", integer<&JobSpec::max_gpus, kMaxCount>},
    {"deadline", seconds<&JobSpec::deadline>},
    {"deferrable", flag<&JobSpec::deferrable>},
    {"checkpoint_interval", seconds<&JobSpec::checkpoint_interval>},
    {"utilization", real<&JobSpec::utilization, 1>},
    {"dataset", text<&JobSpec::dataset>},
    {"dataset_gb", real<&JobSpec::dataset_gb, 1'000'000'000>},
    {"checkpoint_gb", real<&JobSpec::checkpoint_gb, 1'000'000'000>},
    {"storage_tier", text<&JobSpec::storage_tier>},
    {"movable", flag<&JobSpec::movable>},
    {"data_region", text<&JobSpec::data_region>},
    {"first_start", seconds<&JobSpec::recorded_start>},
    {"end", seconds<&JobSpec::recorded_end>},
    {"restarts", integer<&JobSpec::recorded_restarts, kMaxCount>}};

constexpr auto kNativeColumns = [] {
  std::array<std::string_view, std::size(kNativeFields)> keys{};
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = kNativeFields[i].key;
  return keys;
}();

bool required(std::string_view key) {
  return key == "id" || key == "submit" || key == "duration";
}

}  // namespace

Status set_native_field(JobSpec& job, std::string_view key, std::string_view value, const Where& w,
                        const GpuCatalog& catalog) {
  const auto* f = std::find_if(std::begin(kNativeFields), std::end(kNativeFields),
                               [&](const NativeField& x) { return x.key == key; });
  if (f == std::end(kNativeFields))
    return field_error(w, key,
                       fmt::format("unknown field (valid: {})", fmt::join(kNativeColumns, ",")));
  if (value.empty() && !required(key)) return Status::Ok();  // keep the default
  return f->set(job, key, value, w, catalog);
}

Status check_native_job(const JobSpec& job, const Where& w) {
  // An absolute deadline before the job exists can only be a mistake (as elasticflow's
  // reader says too); it would be counted as a miss.
  if (job.deadline != kNever && job.deadline < job.submit)
    return field_error(
        w, "deadline",
        fmt::format("absolute deadline {} is before submit {}", job.deadline, job.submit));
  // What happened: a start before the submission, or an end before the start, cannot be.
  if (job.recorded_start >= 0 && job.recorded_start < job.submit)
    return field_error(
        w, "first_start",
        fmt::format("first start {} is before submit {}", job.recorded_start, job.submit));
  if (job.recorded_end >= 0 && job.recorded_end < std::max(job.submit, job.recorded_start))
    return field_error(w, "end",
                       fmt::format("end {} is before its {} {}", job.recorded_end,
                                   job.recorded_start >= 0 ? "first start" : "submit",
                                   std::max(job.submit, job.recorded_start)));
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
