// Engine: dataset residency events (framework/dataset_residency.h) and the Prefetch
// point's decisions (CycleOps::prefetch).
#include <fmt/format.h>

#include <algorithm>

#include "engine/engine.h"
#include "framework/decision_util.h"

namespace frugal {

using decision_util::job_decision;

void Engine::dataset_resident(NodeId n, const std::string& name, double gb) {
  if (n < state_.node_count() && !name.empty()) datasets_.resident(n, name, gb);
}

bool Engine::dataset_evicted(NodeId n, const std::string& name) {
  return datasets_.evicted(n, name);
}

void Engine::dataset_size(const std::string& name, double gb) {
  if (!name.empty()) datasets_.set_size(name, gb);
}

void Engine::staging_bandwidth(NodeId n, double gb_per_s) {
  if (n < state_.node_count()) datasets_.set_bandwidth(n, gb_per_s);
}

Status Engine::prefetch(JobIdx j, const Placement& p, Seconds by, std::string reason) {
  const bool deferred =
      j < jobs_.size() &&
      std::any_of(deferred_.begin(), deferred_.end(), [j](const auto& e) { return e.second == j; });
  if (!deferred) return Error{fmt::format("prefetch: job index {} is not deferred", j)};
  if (p.slots.empty()) return Error{fmt::format("prefetch: no node for job index {}", j)};
  const JobSpec& s = *jobs_[j].spec;
  for (NodeId n : p.nodes()) {
    if (n >= state_.node_count()) return Error{fmt::format("prefetch: no node {}", n)};
    for (const std::string& d : DatasetResidency::job_datasets(s)) {
      const double gb = d == s.dataset && datasets_.size(d) <= 0 ? s.dataset_gb : datasets_.size(d);
      if (gb > 0) datasets_.resident(n, d, gb);
    }
  }
  sink().push_back(job_decision(Decision::Kind::kPrefetch, j, p, by, std::move(reason)));
  return Status::Ok();
}

}  // namespace frugal
