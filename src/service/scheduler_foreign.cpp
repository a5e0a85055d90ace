// Scheduler: jobs the backend runs that the service did not start (DriverEvent::kForeign,
// e.g. submitted to Slurm directly). Each becomes a job record of team kExternalTeam,
// running on the GPUs it holds, adopted by the engine as a pinned job: the engine counts
// those GPUs as taken and never stops or moves it; the ledger prices its run like any
// other. The API refuses to act on it. Its end is the backend's kExited / kLost.
#include <fmt/format.h>

#include <algorithm>

#include "service/scheduler.h"

namespace frugal {

void Scheduler::observe_foreign(const DriverEvent& e, double now) {
  for (const auto& [id, l] : jobs_)
    if (l.rec.handle == e.handle && l.rec.state == JobStatus::kRunning) return;  // known
  Placement p;
  for (const SlotAssignment& a : e.slots) {
    NodeId n = 0;
    while (n < cluster_.nodes.size() && cluster_.nodes[n].name != a.node) ++n;
    if (n == cluster_.nodes.size() || a.gpu < 0 || a.gpu >= cluster_.nodes[n].gpus) {
      log_(fmt::format("{}: GPU {} of node {} is not in the cluster; not counted", e.message, a.gpu,
                       a.node));
      return;
    }
    p.model = cluster_.nodes[n].model;
    p.slots.push_back(Slot{n, static_cast<int16_t>(a.gpu), static_cast<Milli>(a.milli)});
  }
  if (p.slots.empty()) return;
  const double start = e.start_unix > 0 ? std::min(e.start_unix, now) : now;
  Live l;
  JobRecord& r = l.rec;
  r.id = next_id_++;
  r.team = kExternalTeam;
  r.request.name = e.job_id;
  r.request.command = fmt::format("(submitted to {} directly by {})", driver_->name(),
                                  e.owner.empty() ? "?" : e.owner);
  r.request.tier = Tier::kCore;  // ranks above everything: no tier preemption picks it
  r.request.gpus = static_cast<int>(p.slots.size());
  r.request.gpu_milli = p.slots.size() == 1 ? p.slots[0].milli : kMilliPerGpu;
  r.request.gpu_model = p.model == kNoGpuModel ? "" : catalog_.at(p.model).name;
  r.state = JobStatus::kRunning;
  r.submitted_at = start;
  r.started_at = start;
  earliest_ = std::min(earliest_, start);
  r.segment_start = start;
  r.handle = e.handle;
  r.placement = placement_json(p);
  r.reason = "observed, not managed: " + e.message;
  l.spec = make_job_spec(r);
  l.placement = p;
  const JobIdx idx = next_idx_++;
  by_idx_.push_back(r.id);
  l.idx = idx;
  const Status st = engine_->adopt(idx, l.spec.get(), p, engine_time(start), engine_time(now));
  if (!st.ok()) {
    // The engine had given (some of) these GPUs to one of frugal's jobs, which Slurm then
    // keeps waiting: the foreign job is recorded and priced, but not in the engine.
    log_(
        fmt::format("{}: its GPUs are held by frugal's jobs in the engine ({}); recorded, "
                    "not counted",
                    e.message, st.error().message));
    l.idx = Live::kNone;
  }
  engine_dirty_ = true;
  log_(fmt::format("job {} ({}): {}", r.id, kExternalTeam, e.message));
  const int64_t id = r.id;
  Live& live = jobs_.emplace(id, std::move(l)).first->second;
  mark(live);
  record_birth(live, "observe", now);
}

}  // namespace frugal
