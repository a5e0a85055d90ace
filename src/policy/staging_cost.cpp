#include "policy/staging_cost.h"

#include <algorithm>

#include "cost/transfer.h"

namespace frugal {

StagingCost staging_cost(const ClusterState& st, const DatasetResidency& d, const JobSpec& job,
                         NodeId n, const DatasetOptions& o) {
  StagingCost c;
  c.gb = std::max(0.0, d.job_gb(job) - d.held_gb(n, job));
  const double bw = d.bandwidth(n, o.staging_gb_per_s);
  c.seconds = bw > 0 ? c.gb / bw : 0;
  const ClusterSpec& spec = st.spec();
  const int64_t home = data_home(spec, job);
  const uint32_t region = spec.region_of(spec.nodes[n]);
  const double per_gb = home >= 0 && static_cast<uint32_t>(home) != region
                            ? spec.regions[static_cast<size_t>(home)].egress_usd_per_gb
                            : o.in_region_usd_per_gb;
  c.usd = c.gb * per_gb;
  return c;
}

double gpu_hour_usd(const ClusterState& st, const GpuCatalog& catalog, NodeId n) {
  const NodeSpec& node = st.spec().nodes[n];
  if (node.model == kNoGpuModel) return 0;
  return std::max(
      0.0, rental_rate_usd_h(st.spec().pools[node.pool], catalog.at(node.model), node.model));
}

}  // namespace frugal
