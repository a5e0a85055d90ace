// Engine: the Hold point (framework/cycle_plugin.h) — waiting jobs a plugin keeps out of the
// queue while the driver's conditions say so, e.g. the general-tier pause
// (policy/pause_general.h).
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace frugal {

std::string Engine::hold_reason(JobIdx j) const {
  for (const auto& plugin : profile_.plugins)
    if (std::string why = plugin->hold(*this, jobs_[j]); !why.empty()) return why;
  return {};
}

void Engine::enter_queue(JobIdx j, Seconds now) {
  std::string why = hold_reason(j);
  if (why.empty()) {
    enqueue(j, now);
    return;
  }
  JobRuntime& r = jobs_[j];
  r.state = JobState::kPending;
  r.queued_since = now;
  r.first_examined = -1;
  held_[j] = std::move(why);
}

void Engine::hold(JobIdx j, std::string why) {
  // Not waiting unexamined while held: it re-enters the queue as a new arrival.
  unexamined_.erase({jobs_[j].queued_since, j});
  leave_pending(j);
  held_[j] = std::move(why);
}

bool Engine::set_conditions(std::set<std::string> conditions, Seconds now) {
  now_ = now;
  if (conditions == conditions_) return false;
  conditions_ = std::move(conditions);
  std::vector<std::pair<JobIdx, std::string>> out;
  for (const QueueKey& k : pending_)
    if (std::string why = hold_reason(k.job); !why.empty()) out.emplace_back(k.job, std::move(why));
  std::vector<JobIdx> back;  // index order: deterministic (each keeps its queue key)
  for (auto& [j, why] : held_) {
    std::string still = hold_reason(j);
    if (still.empty())
      back.push_back(j);
    else
      why = std::move(still);
  }
  for (auto& [j, why] : out) hold(j, std::move(why));
  for (const JobIdx j : back) {
    held_.erase(j);
    enqueue(j, now);
  }
  return true;
}

}  // namespace frugal
