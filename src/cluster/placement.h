#pragma once
// Where a job runs: a list of slots, each a share of one GPU on one node (or a CPU-only
// share of a node). A gang job's placement holds all its GPUs; it is applied atomically.

#include <vector>

#include "model/units.h"

namespace frugal {

struct Slot {
  NodeId node = 0;
  int16_t gpu = -1;  // GPU index within the node; -1 = the job's host share, no GPU
  Milli milli = 0;   // share of that GPU (1000 = whole card)
};

struct Placement {
  GpuModelId model = kNoGpuModel;  // all GPU slots are of this model
  std::vector<Slot> slots;         // GPU slots ordered by (node, gpu); one host slot per
                                   // node for CPU-only jobs
  bool empty() const { return slots.empty(); }
  // Distinct nodes used, in slot order.
  std::vector<NodeId> nodes() const;
};

}  // namespace frugal
