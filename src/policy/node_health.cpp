#include "policy/node_health.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace frugal {
namespace {

class NodeHealth final : public CyclePlugin {
 public:
  explicit NodeHealth(NodeHealthLimits l) : l_(l) {}
  std::string name() const override { return "health"; }

  NodeLimit node_limit(const CycleView& v, NodeId n, const NodeReading& r) const override {
    auto& nodes = v.plugin_state().of<State>(this).nodes;
    if (nodes.size() <= n) nodes.resize(v.cluster().node_count());
    Node& s = nodes[n];
    const std::optional<std::string> over = r.known() ? over_limit(v, n, r) : std::nullopt;
    if (!r.known()) {
      s = Node{};
    } else if (over) {
      s.under_since = -1;
      if (s.over_since < 0) s.over_since = r.at;
      if (!s.hot && r.at - s.over_since >= l_.sustain_s) {
        s.hot = true;
        s.why = fmt::format("{} for {:g} min{}", *over, l_.sustain_s / 60,
                            l_.stop_general ? ": no new general-tier work" : "");
      }
    } else {
      s.over_since = -1;
      if (s.hot && s.under_since < 0) s.under_since = r.at;
      if (s.hot && r.at - s.under_since >= l_.sustain_s) s = Node{};
    }
    if (!s.hot) return {};
    return {l_.stop_general ? Tier::kImportant : Tier::kGeneral, s.why};
  }

 private:
  struct Node {
    Seconds over_since = -1;   // first reading of the current run over a limit
    Seconds under_since = -1;  // while hot: first reading of the current run under both
    bool hot = false;
    std::string why;
  };
  struct State : PluginState {
    std::vector<Node> nodes;
  };

  // What is over a limit in `r` ("GPU 3 at 91 °C (limit 85 °C)"), or nullopt.
  std::optional<std::string> over_limit(const CycleView& v, NodeId n, const NodeReading& r) const {
    const GpuModelId m = v.cluster().model(n);
    const double peak = m == kNoGpuModel ? 0 : v.catalog().at(m).peak_w;
    for (size_t g = 0; g < r.gpus.size(); ++g) {
      const GpuReading& x = r.gpus[g];
      if (l_.temperature_c > 0 && x.temperature_c > l_.temperature_c)
        return fmt::format("GPU {} at {:g} °C (limit {:g} °C)", g, x.temperature_c,
                           l_.temperature_c);
      if (l_.power_fraction > 0 && peak > 0 && x.power_w > l_.power_fraction * peak)
        return fmt::format("GPU {} drawing {:g} W (limit {:g} % of {:g} W)", g, x.power_w,
                           l_.power_fraction * 100, peak);
    }
    return std::nullopt;
  }

  NodeHealthLimits l_;
};

}  // namespace

std::unique_ptr<CyclePlugin> make_node_health(NodeHealthLimits limits) {
  return std::make_unique<NodeHealth>(limits);
}

}  // namespace frugal
