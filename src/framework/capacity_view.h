#pragma once
// What cycle plugins may read of the cluster's capacity lifecycle (the engine's NodePool):
// which nodes are on demand, which are up, whether the cluster autoscales and what it could
// still add; plus the shape of its on-demand pools per GPU model.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/cluster_spec.h"
#include "model/units.h"

namespace frugal {

class CapacityView {
 public:
  virtual ~CapacityView() = default;
  // Whether on-demand nodes come and go with demand (false: a static cluster).
  virtual bool autoscaled() const = 0;
  virtual bool on_demand(NodeId n) const = 0;
  // Whether node n is provisioned and not failed (usable now).
  virtual bool usable(NodeId n) const = 0;
  // Whether the cluster has autoscaled on-demand nodes of model m.
  virtual bool has_on_demand(GpuModelId m) const = 0;
  // GPUs of model m on on-demand nodes not provisioned (what the autoscaler could still add).
  virtual int64_t unprovisioned_gpus(GpuModelId m) const = 0;
};

// Per catalog model id: the shortest provisioning delay of its on-demand pools (kNever when
// it has none), the GPUs per node of the first of them (0: none) and that pool's region (-1).
struct OnDemandShape {
  std::vector<Seconds> delay;
  std::vector<int> node_gpus;
  std::vector<int> region;

  OnDemandShape(const ClusterSpec& spec, size_t models)
      : delay(models, kNever), node_gpus(models, 0), region(models, -1) {
    for (const NodeSpec& n : spec.nodes) {
      const Pool& pool = spec.pools[n.pool];
      if (!rented(pool.capacity) || n.model < 0) continue;
      const auto m = static_cast<size_t>(n.model);
      delay[m] = std::min(delay[m], static_cast<Seconds>(pool.provisioning_delay_s));
      if (node_gpus[m] == 0) node_gpus[m] = n.gpus;
      if (region[m] < 0) region[m] = static_cast<int>(pool.region);
    }
  }
};

}  // namespace frugal
