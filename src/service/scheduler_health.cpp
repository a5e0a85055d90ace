// Scheduler: telemetry into the engine — each node's newest GPU readings as
// Engine::observe_node (the Health plugins' placement limits, e.g. policy/node_health.h) and
// the node_hot alert that names a node's limit.
#include <fmt/format.h>

#include "service/scheduler.h"

namespace frugal {

void Scheduler::observe_nodes(double now) {
  const Seconds at = engine_time(now);
  std::map<NodeId, NodeReading> readings;
  for (const GpuTelemetry& g : telemetry_) {
    const std::optional<NodeId> n = node_named(g.node);
    if (!n || g.gpu < 0 || g.gpu >= cluster_.nodes[*n].gpus) continue;
    NodeReading& r = readings[*n];
    if (r.gpus.empty()) {
      r.at = at;
      r.gpus.resize(static_cast<size_t>(cluster_.nodes[*n].gpus));
    }
    GpuReading& x = r.gpus[static_cast<size_t>(g.gpu)];
    x.utilization = g.utilization;
    if (g.memory_used_mib >= 0 && g.memory_total_mib > 0)
      x.memory_frac =
          static_cast<double>(g.memory_used_mib) / static_cast<double>(g.memory_total_mib);
    x.power_w = g.power_w;
    x.temperature_c = g.temperature_c;
  }
  auto observe = [&](NodeId n, NodeReading r) {
    if (!engine_->observe_node(n, std::move(r))) return;
    engine_dirty_ = true;  // the limit changed: a cycle places (or keeps out) by it
    const std::string& name = cluster_.nodes[n].name;
    const NodeLimit& limit = engine_->node_limit(n);
    if (limit.reason.empty()) {
      alerts_.clear("node_hot", name, now);
    } else {
      alerts_.raise("node_hot", name, fmt::format("node {}: {}", name, limit.reason), now);
    }
  };
  std::set<NodeId> seen;
  for (auto& [n, r] : readings) {
    seen.insert(n);
    observe(n, std::move(r));
  }
  // Nodes whose telemetry stopped: an empty reading (their limits lift).
  for (const NodeId n : observed_)
    if (!seen.count(n)) observe(n, NodeReading{at, {}});
  observed_ = std::move(seen);
}

}  // namespace frugal
