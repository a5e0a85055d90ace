#pragma once
// A node guard: which nodes a job may use at all, whatever room they have. When a cluster
// state has one (ClusterState::set_guard), ClusterState::host_fits — which every placer,
// consolidation plan and allocation checks for each node — answers false for a node the
// guard does not admit the job to, so no path puts the job there. Copies of the state share
// the guard. frugal's spot placement (src/policy/spot.h) is the one implementation.

#include "model/job.h"
#include "model/units.h"

namespace frugal {

class NodeGuard {
 public:
  virtual ~NodeGuard() = default;
  // Whether `job` may hold resources on node n. The same job and node always get the same
  // answer (placements made earlier stay valid).
  virtual bool admits(NodeId n, const JobSpec& job) const = 0;
};

}  // namespace frugal
