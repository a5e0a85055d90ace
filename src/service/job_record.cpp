#include "service/job_record.h"

#include <array>

#include "service/config.h"

namespace frugal {
namespace {
constexpr std::array<std::string_view, 8> kNames = {
    "queued", "deferred", "running", "preempted", "completed", "failed", "cancelled", "unknown"};
}

std::string_view to_string(JobStatus s) {
  return kNames[static_cast<size_t>(s)];
}

std::optional<JobStatus> parse_job_status(std::string_view s) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<JobStatus>(i);
  return std::nullopt;
}

std::unique_ptr<JobSpec> make_spec(const JobRecord& r, const GpuCatalog& catalog, double epoch) {
  auto s = std::make_unique<JobSpec>();
  const JobRequest& q = r.request;
  s->id = std::to_string(r.id);
  s->team = r.team;
  s->name = q.name;
  s->job_class = q.job_class;
  s->tier = q.tier;
  s->submit = r.submitted_at - epoch;
  s->gpus = q.gpus;
  s->gpu_milli = q.gpus == 0 ? kMilliPerGpu : q.gpu_milli;
  if (!q.gpu_model.empty())
    if (const auto m = catalog.find(q.gpu_model)) s->allowed_models = {*m};
  s->duration = q.estimate_s;  // 0 (none given): Scheduler::make_job_spec predicts it
  s->min_gpus = q.min_gpus;
  s->max_gpus = q.max_gpus;
  s->deadline = q.deadline > 0 ? q.deadline - epoch : kNever;
  s->deferrable = q.deferrable;
  s->lend_idle = q.lend_idle;
  s->opportunistic = q.opportunistic;
  s->datasets = q.datasets;  // locality: where they are staged already
  s->checkpoint_interval = 0;
  s->checkpoint_grace = q.grace_s;      // < 0: the config's checkpoint_grace_s
  s->pinned = r.team == kExternalTeam;  // observed, not controlled: the engine never stops it
  return s;
}

}  // namespace frugal
