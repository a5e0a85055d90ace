// Engine: guests on measured idle (policy/lend_idle.h). A guest runs on one GPU a host job
// holds, outside the host's allocation: the cluster state, the running indexes and the
// nodes' job lists never see it, so every capacity figure, invariant and plugin that walks
// running jobs is as if it were not there; guests_ alone knows it. It leaves before its
// host stops or moves.
#include <fmt/format.h>

#include <algorithm>

#include "engine/engine.h"
#include "framework/decision_util.h"

namespace frugal {

Status Engine::start_guest(JobIdx j, JobIdx host, Slot slot, std::string reason) {
  if (j >= jobs_.size() || jobs_[j].state != JobState::kPending || pending_.count(key_of(j)) == 0)
    return Error{fmt::format("start_guest: job index {} is not queued", j)};
  const JobSpec& s = *jobs_[j].spec;
  if (!s.opportunistic || s.gpus != 1 || s.pinned || jobs_[j].elastic())
    return Error{fmt::format("start_guest: job {} is not an opportunistic one-card job", s.id)};
  if (host >= jobs_.size() || jobs_[host].state != JobState::kRunning || is_guest(host) ||
      jobs_[host].signalled())
    return Error{fmt::format("start_guest: host index {} is not a running job", host)};
  const JobRuntime& h = jobs_[host];
  const bool holds = std::any_of(
      h.placement.slots.begin(), h.placement.slots.end(),
      [&](const Slot& x) { return x.node == slot.node && x.gpu == slot.gpu && x.gpu >= 0; });
  if (!holds)
    return Error{fmt::format("start_guest: job {} holds no GPU {} on node {}", h.spec->id, slot.gpu,
                             slot.node)};
  if (slot.milli <= 0 || slot.milli > kMilliPerGpu)
    return Error{fmt::format("start_guest: share {} milli-GPU out of range", slot.milli)};
  for (const auto& [g, hg] : guests_) {
    const Slot& other = jobs_[g].placement.slots.front();
    if (other.node == slot.node && other.gpu == slot.gpu)
      return Error{
          fmt::format("start_guest: GPU {} on node {} has a guest already", slot.gpu, slot.node)};
  }
  JobRuntime& r = jobs_[j];
  leave_pending(j);
  r.state = JobState::kRunning;
  r.placement = Placement{h.placement.model, {slot}};
  r.size = 0;
  r.speed = speed_on(r, r.placement);
  r.run_start = now_;
  r.restart_s = 0;
  r.service_from = now_;
  guests_[j] = host;
  Decision d = decision_util::job_decision(Decision::Kind::kStart, j, r.placement, kNever,
                                           std::move(reason));
  d.guest = true;
  d.host = host;
  sink().push_back(std::move(d));
  return Status::Ok();
}

bool Engine::recall_guest(JobIdx j, std::string reason) {
  if (!is_guest(j)) return false;
  guests_.erase(j);
  JobRuntime& r = jobs_[j];
  Placement held = std::move(r.placement);
  r.placement = Placement{};
  r.attained_gpu_s += (now_ - r.service_from) * r.gpus();
  r.service_from = now_;
  r.progress_ref_s += r.kept_at(now_) * r.speed;
  r.restart_s = 0;
  r.starved = false;
  ++r.preemptions;
  enter_queue(j, now_);
  Decision d = decision_util::job_decision(Decision::Kind::kPreempt, j, std::move(held), kNever,
                                           std::move(reason));
  d.guest = true;
  sink().push_back(std::move(d));
  return true;
}

void Engine::drop_guests(JobIdx host, const char* reason) {
  std::vector<JobIdx> mine;
  for (const auto& [g, h] : guests_)
    if (h == host) mine.push_back(g);
  for (const JobIdx g : mine) recall_guest(g, reason);
}

void Engine::end_guest(JobIdx j) {
  guests_.erase(j);
  JobRuntime& r = jobs_[j];
  r.attained_gpu_s += (now_ - r.service_from) * r.gpus();
  r.service_from = now_;
  r.placement = Placement{};
  r.state = JobState::kFinished;
  job_use_.erase(j);
  churn_.progress();
}

std::string Engine::check_guests() const {
  for (const auto& [g, host] : guests_) {
    const JobRuntime& r = jobs_[g];
    if (r.state != JobState::kRunning || r.placement.slots.size() != 1)
      return fmt::format("guest {} is not running on one slot", r.spec->id);
    if (host >= jobs_.size() || jobs_[host].state != JobState::kRunning || is_guest(host))
      return fmt::format("guest {} has no running host", r.spec->id);
    const Slot& s = r.placement.slots.front();
    const auto& hs = jobs_[host].placement.slots;
    if (std::none_of(hs.begin(), hs.end(),
                     [&](const Slot& x) { return x.node == s.node && x.gpu == s.gpu; }))
      return fmt::format("guest {} is not on a GPU of its host {}", r.spec->id,
                         jobs_[host].spec->id);
  }
  return {};
}

}  // namespace frugal
