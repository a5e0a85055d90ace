#pragma once
// Shared fixtures for the cost tests: a GPU catalog with round power and price figures, and
// a one-region cluster whose hourly prices, carbon and off-peak hours are short hand-made
// series, so expected dollars, kWh and kg can be worked out on paper.

#include <string>
#include <vector>

#include "../common/test_util.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/hourly_series.h"

namespace frugal::testing {

// Same model ids as test_gpus() (kA100 = 0, kV100 = 1, kT4 = 2), with power and prices:
//   A100: idle 100 W, peak 400 W, on-demand $4/GPU-h, reserved $2/GPU-h, speed 1.
//   V100: idle 50 W, peak 250 W, on-demand $2/GPU-h, reserved $0.5/GPU-h, speed 0.5 for
//         every class (so per unit of work it costs $1 reserved, half the A100's $2).
//   T4:   idle 10 W, peak 70 W, $1 / $0.25, speed 0.2.
inline const GpuCatalog& priced_gpus() {
  static const GpuCatalog catalog([] {
    GpuModel a{"A100-80GB", {"A100"}, 81920, {1, 1, 1, 1}, "test"};
    a.idle_w = 100, a.peak_w = 400, a.on_demand_usd_h = 4, a.reserved_usd_h = 2;
    GpuModel v{"V100", {}, 16384, {0.5, 0.5, 0.5, 0.5}, "test"};
    v.idle_w = 50, v.peak_w = 250, v.on_demand_usd_h = 2, v.reserved_usd_h = 0.5;
    GpuModel t{"T4", {}, 16384, {0.2, 0.2, 0.2, 0.2}, "test"};
    t.idle_w = 10, t.peak_w = 70, t.on_demand_usd_h = 1, t.reserved_usd_h = 0.25;
    return std::vector<GpuModel>{a, v, t};
  }());
  return catalog;
}

inline constexpr int64_t kEpoch = 1672531200;  // 2023-01-01T00:00:00Z, ClusterSpec default
inline constexpr double kHour = 3600;

// Region "r": 4 hourly prices 100, −20, 50, 10 USD/MWh and carbon 200, 100, 300, 400
// g/kWh from the epoch (then wrapping), PUE 1.5, hours 1 and 2 off-peak with a 50 %
// on-demand discount.
inline Region hand_region(std::string name = "r") {
  Region r;
  r.name = std::move(name);
  r.electricity_usd_per_mwh = HourlySeries(kEpoch, {100, -20, 50, 10});
  r.carbon_g_per_kwh = HourlySeries(kEpoch, {200, 100, 300, 400});
  r.pue = 1.5;
  r.time_of_use.discount = 0.5;
  r.offpeak = HourlySeries(kEpoch, {0, 1, 1, 0});
  return r;
}

// One region (hand_region), one pool of `capacity`, holding `nodes` (their pool is 0).
inline ClusterSpec hand_cluster(Capacity capacity, std::vector<NodeSpec> nodes) {
  ClusterSpec c;
  c.regions.push_back(hand_region());
  Pool p;
  p.name = "p";
  p.capacity = capacity;
  c.pools.push_back(p);
  c.nodes = std::move(nodes);
  return c;
}

inline NodeSpec gpu_node(std::string name, GpuModelId model, int gpus, double overhead_w = 0,
                         uint32_t pool = 0) {
  NodeSpec n;
  n.name = std::move(name);
  n.pool = pool;
  n.model = model;
  n.gpus = gpus;
  n.overhead_w = overhead_w;
  return n;
}

// Region `r` alone with one on-demand pool "od" (`delay` s to provision, `timeout` s idle
// before release) of `n` 8-GPU A100 nodes named od0, od1, ...
inline ClusterSpec on_demand_a100(Region r, int n, double delay, double timeout) {
  ClusterSpec c;
  c.regions.push_back(std::move(r));
  Pool od;
  od.name = "od";
  od.capacity = Capacity::kOnDemand;
  od.provisioning_delay_s = delay;
  od.idle_timeout_s = timeout;
  c.pools = {od};
  for (int i = 0; i < n; ++i) c.nodes.push_back(gpu_node("od" + std::to_string(i), kA100, 8));
  return c;
}

// Simulates with the ledger on and state checks after every cycle, on priced_gpus().
inline SimResult run_priced(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
                            const std::string& policy, SimOptions o = {}) {
  o.check_invariants = true;
  o.ledger = true;
  if (o.reference_model == kNoGpuModel) o.reference_model = kA100;
  SimResult r = simulate(jobs, cluster, priced_gpus(), profile(policy), o);
  EXPECT_EQ(r.invariant_violation, "") << policy;
  return r;
}

}  // namespace frugal::testing
