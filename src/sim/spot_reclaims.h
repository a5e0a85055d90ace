#pragma once
// Seeded spot reclaim times for the simulator (Capacity::kSpot pools, SpotTerms).
//
// While a spot node is provisioned the provider reclaims it as a Poisson process at its
// pool's rate per node-hour: flat (reclaim_rate_per_node_hour), or hour by hour from
// reclaim_rate_series (hour i of trace time, wrapping). next() draws the first reclaim after
// the node becomes usable by inverting the cumulative rate at one Exp(1) draw; the simulator
// announces it reclaim_notice_s before (never before the node came up). A node released
// before its reclaim is simply not reclaimed; provisioned again, it draws anew.
//
// Deterministic: one std::mt19937_64 seeded from the simulation's seed (mixed with a constant,
// so the stream is apart from node failures'), drawn in the order next() is called. A rate of
// 0 draws nothing.

#include <cstdint>
#include <random>

#include "model/cluster_spec.h"
#include "model/units.h"

namespace frugal {

class SpotReclaims {
 public:
  SpotReclaims(const ClusterSpec& spec, uint64_t seed);
  // The reclaim time of spot node n usable from `t`; kNever when its pool never reclaims
  // (rate 0 from t on) or n is not a spot node.
  Seconds next(NodeId n, Seconds t);

 private:
  const ClusterSpec& spec_;
  std::mt19937_64 rng_;
};

// The first time after t0 at which the cumulative reclaim hazard of `terms` from t0 reaches
// `hazard` (expected reclaims, > 0); kNever when the rate is 0 from t0 on.
Seconds reclaim_after(const SpotTerms& terms, Seconds t0, double hazard);

}  // namespace frugal
