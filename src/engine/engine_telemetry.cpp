// Engine: telemetry events — node readings through the profile's Health plugins into
// placement limits, and running jobs' measured use (framework/telemetry.h).
#include <fmt/format.h>

#include "engine/engine.h"

namespace frugal {

bool Engine::observe_node(NodeId n, NodeReading r) {
  if (n >= state_.node_count()) return false;
  if (readings_.empty()) readings_.resize(state_.node_count());
  readings_[n] = std::move(r);
  NodeLimit limit;
  for (const auto& plugin : profile_.plugins) {
    NodeLimit l = plugin->node_limit(*this, n, readings_[n]);
    // The most restrictive; on a tie the first with a reason.
    if (l.takes < limit.takes || (l.takes == limit.takes && limit.reason.empty()))
      limit = std::move(l);
  }
  if (node_limit(n) == limit) return false;
  if (limits_.empty()) limits_.resize(state_.node_count());
  limits_[n] = std::move(limit);
  state_.set_takes(n, limits_[n].takes);
  return true;
}

void Engine::observe_job(JobIdx j, const MeasuredUse& u) {
  if (j < jobs_.size() && jobs_[j].state == JobState::kRunning) job_use_[j] = u;
}

const NodeLimit& Engine::node_limit(NodeId n) const {
  static const NodeLimit kNone;
  return n < limits_.size() ? limits_[n] : kNone;
}

const NodeReading* Engine::node_reading(NodeId n) const {
  return n < readings_.size() && readings_[n].known() ? &readings_[n] : nullptr;
}

PluginStatus Engine::explain_limits(const JobSpec& job, const Candidates& c) const {
  if (limits_.empty() || profile_.placer->place(state_, job, c)) return {};
  ClusterState unlimited = state_;
  for (NodeId n = 0; n < limits_.size(); ++n) unlimited.set_takes(n, Tier::kGeneral);
  if (!profile_.placer->place(unlimited, job, c)) return {};
  for (NodeId n = 0; n < limits_.size(); ++n)
    if (job.tier > limits_[n].takes && state_.up(n))
      return PluginStatus::no(
          PluginStatus::Code::kUnschedulable, "health",
          fmt::format("room is left only where telemetry keeps {}-tier work out, e.g. node {}: {}",
                      to_string(job.tier), state_.spec().nodes[n].name, limits_[n].reason));
  return {};
}

const MeasuredUse* Engine::job_use(JobIdx j) const {
  const auto it = job_use_.find(j);
  if (it == job_use_.end() || j >= jobs_.size() || jobs_[j].state != JobState::kRunning ||
      it->second.at < jobs_[j].run_start)
    return nullptr;
  return &it->second;
}

}  // namespace frugal
