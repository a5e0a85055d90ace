#pragma once
// Where datasets are: which nodes hold which dataset on their hot tier (node-local storage),
// how large each dataset is, and how fast each node stages data onto its hot tier. The
// engine keeps one (Engine::dataset_resident and its siblings, engine.h); a live driver
// reports what its storage manager sees, and the engine adds what it asks to have staged
// itself (Decision::kPrefetch). Plugins read it (CycleView::datasets) to place jobs near
// their data (policy/dataset_locality.h) and to stage it ahead of a planned start
// (policy/dataset_prefetch.h). Deterministic: ordered containers only.
//
// A job's datasets (job_datasets) are JobSpec::datasets plus, when set, the trace's single
// JobSpec::dataset. A dataset's size is the last one reported for it (by a residency or by
// set_size); the trace's dataset_gb gives the size of JobSpec::dataset when nothing was
// reported. Sizes are GB (1e9 bytes); bandwidths GB per second.

#include <map>
#include <string>
#include <vector>

#include "model/job.h"
#include "model/units.h"

namespace frugal {

class DatasetResidency {
 public:
  // Node n holds dataset `name` (gb GB) on its hot tier from now on. gb <= 0: size unknown
  // (the size reported before, if any, stands).
  void resident(NodeId n, const std::string& name, double gb);
  // Node n no longer holds `name`. Returns whether it did.
  bool evicted(NodeId n, const std::string& name);
  // Every dataset on node n is gone (its hot tier was wiped, the node was replaced).
  void clear_node(NodeId n);
  // The size of `name` (a registered dataset not yet on any node); gb > 0.
  void set_size(const std::string& name, double gb);
  // Node n stages data onto its hot tier at `gb_per_s` (> 0; <= 0 forgets it).
  void set_bandwidth(NodeId n, double gb_per_s);

  bool empty() const { return where_.empty(); }
  bool holds(NodeId n, const std::string& name) const;
  // The size of `name` in GB; < 0 when unknown.
  double size(const std::string& name) const;
  // Node n's staging bandwidth, or `fallback` when none was reported.
  double bandwidth(NodeId n, double fallback) const;
  // The lowest staging bandwidth reported for any node, `fallback` included.
  double min_bandwidth(double fallback) const;

  // The datasets a job declares (JobSpec::datasets, then JobSpec::dataset), without repeats.
  static std::vector<std::string> job_datasets(const JobSpec& job);
  // GB of the job's datasets whose size is known (the trace's dataset_gb for
  // JobSpec::dataset when no size was reported).
  double job_gb(const JobSpec& job) const;
  // GB of the job's datasets with a known size that node n holds.
  double held_gb(NodeId n, const JobSpec& job) const;
  // Nodes holding at least one of the job's datasets, in node order.
  std::vector<NodeId> nodes_holding(const JobSpec& job) const;

 private:
  double size_for(const JobSpec& job, const std::string& name) const;

  std::map<std::string, std::map<NodeId, double>> where_;  // name → nodes holding it
  std::map<std::string, double> size_;
  std::map<NodeId, double> bandwidth_;
};

}  // namespace frugal
