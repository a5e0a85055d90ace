#pragma once
// Measured use as the engine keeps it: what a live driver's telemetry (GPU readings from
// NVML, pushed by node agents or sampled by the local driver) says about a node and about a
// running job. The engine stays clock-free: every reading carries the time it describes, and
// the driver reports readings as events (Engine::observe_node, Engine::observe_job).
// Plugins read them (CycleView::node_reading, CycleView::job_use) and answer the Health
// point (framework/cycle_plugin.h) with a NodeLimit.

#include <string>
#include <vector>

#include "model/job_class.h"
#include "model/units.h"

namespace frugal {

// One GPU's reading; a field < 0 is unknown.
struct GpuReading {
  double utilization = -1;    // 0..1 over the sampling period
  double memory_frac = -1;    // memory used / card memory, 0..1
  double power_w = -1;        // board power
  double temperature_c = -1;  // degrees Celsius
};

// A node's latest reading: one entry per GPU of the node (in GPU order), or empty when the
// node has no current telemetry (never reported, or its reports went stale).
struct NodeReading {
  Seconds at = 0;  // the time it describes (engine time)
  std::vector<GpuReading> gpus;
  bool known() const { return !gpus.empty(); }
};

// A running job's own measured use (its processes', not a guest's beside it) over a window
// of `window` seconds ending at `at`, averaged over its GPUs: the mean, the highest sample
// and the newest sample of its utilisation, and the largest share of card memory it used.
// A field < 0 is unknown.
struct MeasuredUse {
  Seconds at = 0;
  Seconds window = 0;
  double utilization = -1;  // mean, 0..1
  double memory_frac = -1;  // peak, 0..1
  double peak = -1;         // the highest utilisation sample in the window
  double latest = -1;       // the newest utilisation sample
};

// What a Health plugin says of a node: the least important tier it takes new work of (an
// already running job stays where it is), and why when that is not every tier. A non-empty
// `reason` with takes == kGeneral is a condition seen without a placement limit (an alert).
struct NodeLimit {
  Tier takes = Tier::kGeneral;
  std::string reason;
  bool limited() const { return takes != Tier::kGeneral; }
  friend bool operator==(const NodeLimit&, const NodeLimit&) = default;
};

}  // namespace frugal
