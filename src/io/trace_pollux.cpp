// Pollux (OSDI'21) workloads: name,time,application,num_replicas,batch_size.
// The file has no run time. Each application gets an assumed amount of work in GPU-hours,
// taken from the size category Pollux's Table 1 gives its model (Small 0-1, Medium 1-10,
// Large 10-100, XLarge 100-1000 GPU-hours; we use a round value inside the range), and
// duration = work / num_replicas (perfect scaling). See docs/TRACE_FORMATS.md.
// gpus = num_replicas; name = application; batch_size is not used.

#include <fmt/format.h>

#include <array>

#include "io/trace_parsers.h"

namespace frugal {
namespace {

struct PolluxApp {
  std::string_view name;
  double gpu_hours;  // assumed total work
  JobClass job_class;
};

// Assumptions, documented in docs/TRACE_FORMATS.md.
constexpr std::array<PolluxApp, 6> kApps = {{
    {"cifar10", 0.5, JobClass::kFinetune},      // ResNet-18, Small
    {"ncf", 0.5, JobClass::kFinetune},          // NeuMF on MovieLens, Small
    {"bert", 3.0, JobClass::kFinetune},         // BERT fine-tuning on SQuAD, Medium
    {"deepspeech2", 3.0, JobClass::kPretrain},  // CMU-ARCTIC, Medium
    {"yolov3", 30.0, JobClass::kPretrain},      // PASCAL-VOC, Large
    {"imagenet", 300.0, JobClass::kPretrain},   // ResNet-50, XLarge
}};

const PolluxApp* find_app(std::string_view name) {
  for (const auto& a : kApps)
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace

Status read_pollux_table(const Table& table, const TraceOptions& options, Trace& trace) {
  auto cols = require_columns(table, {"name", "time", "application", "num_replicas"});
  if (!cols.ok()) return cols.error();
  const std::vector<int> c = std::move(cols).value();

  return collect_rows(
      table, options, trace,
      [&](const CsvRow& row, size_t) -> Result<JobSpec> {
        const Where w = table.where(row);
        JobSpec job;
        job.id = field(row, c[0]);
        job.name = field(row, c[2]);
        const PolluxApp* app = find_app(job.name);
        if (app == nullptr)
          return field_error(w, "application",
                             fmt::format("unknown application '{}' (known: cifar10, ncf, bert, "
                                         "deepspeech2, yolov3, imagenet)",
                                         job.name));
        auto submit = parse_seconds(field(row, c[1]), "time", w);
        if (!submit.ok()) return submit.error();
        auto replicas = parse_count(field(row, c[3]), "num_replicas", w);
        if (!replicas.ok()) return replicas.error();
        if (replicas.value() < 1) return field_error(w, "num_replicas", "must be at least 1");
        job.submit = submit.value();
        job.gpus = static_cast<int>(replicas.value());
        job.job_class = app->job_class;
        job.duration = app->gpu_hours * 3600.0 / static_cast<double>(job.gpus);
        return job;
      },
      ColumnNames{"name", "time", "duration", "num_replicas", "gpu_milli"});
}

}  // namespace frugal
