#pragma once
// What follow-the-sun (src/policy/follow_sun.h) needs to compare regions: the marginal
// cost of running GPUs in a cost centre over a span, and a best-fit placement restricted
// to one region.
//
// Marginal cost of `gpus` GPUs of centre c at utilisation u over [t0, t1): Pricing::span's
// energy (the region's hourly prices × PUE) plus its rental when c is an on-demand pool
// (time-of-use discounts included). Owned and reserved rental is paid whether the job runs
// there or not, so it is not counted: using paid-for capacity costs only its energy.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cluster/cluster_state.h"
#include "cost/pricing.h"
#include "framework/plugins.h"
#include "model/gpu_catalog.h"
#include "model/job.h"

namespace frugal {

class RegionCost {
 public:
  // `state` and `catalog` must outlive this; prices the cluster `state` was built from.
  RegionCost(const ClusterState& state, const GpuCatalog& catalog);

  double marginal_usd(uint32_t centre, double gpus, double utilization, double t0, double t1) const;
  uint32_t region_of_centre(uint32_t c) const { return pricing_.region_of_centre(c); }
  // The most GPUs one node of centre c holds.
  int max_node_gpus(uint32_t c) const { return max_node_gpus_[c]; }
  bool on_demand(uint32_t c) const { return on_demand_[c] != 0; }
  const ClusterState& state() const { return state_; }

 private:
  const ClusterState& state_;
  Pricing pricing_;
  std::vector<int> max_node_gpus_;
  std::vector<char> on_demand_;
};

// A RegionCost for the view's cluster, kept in the view (framework/plugin_state.h) for the
// plugin `owner` and rebuilt only when the view's cluster changes.
const RegionCost& region_cost(const CycleView& v, const void* owner);

// Region of node n.
uint32_t node_region(const ClusterState& st, NodeId n);

// Whether follow-the-sun handles `job` at g GPUs: whole GPUs on a single node (fractional,
// CPU-only and multi-node jobs are placed as the wrapped placer places them).
bool sun_placeable(const ClusterState& st, const JobSpec& job, GpuModelId m, int g);

// Best fit for g whole GPUs of model m on one up node of `region` on `st`: the node with
// the fewest wholly free GPUs that suffice and room for the job's host share, lowest id on
// ties; nullopt when none. `skip` (if set) is never chosen.
std::optional<Placement> place_in_region(const ClusterState& st, const JobSpec& job, GpuModelId m,
                                         uint32_t region, int g,
                                         std::optional<NodeId> skip = std::nullopt);

}  // namespace frugal
