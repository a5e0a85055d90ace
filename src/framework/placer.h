#pragma once
// The Place extension point: choose concrete GPUs for a job on the current cluster state,
// using the state's indexes (never a scan of every node for whole-GPU jobs).
//
// Rules shared by every placer:
//  - a job uses one GPU model (gang members run at one speed);
//  - whole-GPU jobs that fit on one node of the model are never split across nodes;
//    jobs larger than the model's biggest node span nodes, taking wholly free nodes first;
//  - fractional jobs (gpus == 1, gpu_milli < 1000) share a card, never exceeding its
//    milli-capacity or memory;
//  - CPU-only jobs (gpus == 0) take a host share on one node;
//  - the node must have room for the job's host CPU and memory on every node it uses.

#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_state.h"
#include "cluster/placement.h"
#include "framework/plugin_status.h"
#include "model/gpu_catalog.h"
#include "model/job.h"

namespace frugal {

// The models a job may use after the Filter point, preferred model first when set.
struct Candidates {
  std::vector<GpuModelId> models;
  // Follow-the-sun (src/policy/follow_sun.h): empty, or one entry per entry of `models`,
  // that model's regions in preference order. Only the "sun(...)" placer reads it.
  std::vector<std::vector<uint32_t>> regions;
};

class Placer {
 public:
  virtual ~Placer() = default;
  virtual std::string name() const = 0;
  // A placement for `job` among `c`, or nullopt if none fits now. Does not modify state.
  virtual std::optional<Placement> place(const ClusterState& state, const JobSpec& job,
                                         const Candidates& c) const = 0;
  // Why place() finds nothing for `job` on `state` (code and reason; ok() when it does find
  // a placement). Not on the hot path: asked when someone wants to know why a job waits. The
  // default explains by the rules above from the state's free capacity per candidate model.
  virtual PluginStatus explain(const ClusterState& state, const JobSpec& job, const Candidates& c,
                               const GpuCatalog& catalog) const;
};

}  // namespace frugal
