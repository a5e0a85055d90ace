#pragma once
// The node-health plugin, at the Health point (framework/cycle_plugin.h): a node whose GPUs
// run hot — a GPU above `temperature_c`, or drawing more than `power_fraction` of its
// model's peak board power (the catalog's peak_w) — for `sustain_s` of readings stops taking
// new general-tier work; core and important work still goes there and running jobs stay.
// The limit lifts once every GPU has been back under both limits for `sustain_s`, or at once
// when the node's telemetry stops (no reading: capacity is not held back on missing data).
// Live only: the service adds it from `alerts.node_hot` (its alert names the same reason).

#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

struct NodeHealthLimits {
  double temperature_c = 0;   // 0: temperature not checked
  double power_fraction = 0;  // 0: power not checked
  Seconds sustain_s = 300;
  // false: the condition is reported (NodeLimit::reason) but places no limit.
  bool stop_general = true;
  bool any() const { return temperature_c > 0 || power_fraction > 0; }
};

std::unique_ptr<CyclePlugin> make_node_health(NodeHealthLimits limits);

}  // namespace frugal
