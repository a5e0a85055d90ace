// Scheduler: GET /v1/nodes?summary=1 (docs/API.md, "Cluster views"): the nodes grouped by
// pool, GPU model and state, so a dashboard of 10,000 nodes reads a few groups instead of
// every GPU.
#include <algorithm>
#include <map>
#include <tuple>

#include "service/scheduler.h"

namespace frugal {
namespace {

struct NodeGroup {
  int64_t nodes = 0, gpus = 0, measured = 0;
  double allocated = 0, failed = 0, idle = 0, util_sum = 0;
};

// A node's state for the summary: up, booting (power-up under way), off (not provisioned,
// or a power-up that failed and was not repaired), else down (failed, or the backend says so).
const char* summary_state(const ClusterState& st, const NodePool& pool, NodeId n) {
  if (st.up(n)) return "up";
  switch (pool.life(n)) {
    case NodeLife::kProvisioning:
      return "booting";
    case NodeLife::kUnprovisioned:
    case NodeLife::kUnavailable:
      return "off";
    default:
      return "down";
  }
}

}  // namespace

std::future<ApiReply> Scheduler::node_summary() {
  return enqueue([this] {
    const ClusterState& st = engine_->cluster();
    std::map<std::pair<std::string, int>, double> util;
    for (const GpuTelemetry& t : telemetry_)
      if (t.utilization >= 0) util[{t.node, t.gpu}] = std::min(1.0, t.utilization);
    std::map<std::tuple<std::string, std::string, std::string>, NodeGroup> groups;
    int64_t gpus = 0;
    for (NodeId n = 0; n < cluster_.nodes.size(); ++n) {
      const NodeSpec& spec = cluster_.nodes[n];
      const std::string state = summary_state(st, engine_->nodes(), n);
      NodeGroup& g =
          groups[{spec.pool < cluster_.pools.size() ? cluster_.pools[spec.pool].name : "",
                  spec.model == kNoGpuModel ? "" : catalog_.at(spec.model).name, state}];
      ++g.nodes;
      g.gpus += spec.gpus;
      gpus += spec.gpus;
      for (int i = 0; i < spec.gpus; ++i) {
        const double alloc = static_cast<double>(kMilliPerGpu - st.free_milli(n, i)) /
                             static_cast<double>(kMilliPerGpu);
        g.allocated += alloc;
        if (state == "up") g.idle += std::max(0.0, 1 - alloc);
        if (state == "down") g.failed += 1;
        if (const auto it = util.find({spec.name, i}); it != util.end()) {
          ++g.measured;
          g.util_sum += it->second;
        }
      }
    }
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [key, g] : groups)
      out.push_back({{"pool", std::get<0>(key)},
                     {"gpu_model", std::get<1>(key)},
                     {"state", std::get<2>(key)},
                     {"nodes", g.nodes},
                     {"gpus", g.gpus},
                     {"allocated_gpus", g.allocated},
                     {"failed_gpus", g.failed},
                     {"idle_gpus", g.idle},
                     {"measured_gpus", g.measured},
                     {"mean_utilization",
                      g.measured > 0 ? nlohmann::json(g.util_sum / static_cast<double>(g.measured))
                                     : nlohmann::json()}});
    ApiReply r;
    r.body = {{"summary", true},
              {"nodes", cluster_.nodes.size()},
              {"gpus", gpus},
              {"groups", std::move(out)}};
    return r;
  });
}

}  // namespace frugal
