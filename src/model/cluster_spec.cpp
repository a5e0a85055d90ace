#include "model/cluster_spec.h"

namespace frugal {

int64_t ClusterSpec::region_index(const std::string& name) const {
  for (size_t r = 0; r < regions.size(); ++r)
    if (regions[r].name == name) return static_cast<int64_t>(r);
  return -1;
}

int64_t ClusterSpec::total_gpus() const {
  int64_t n = 0;
  for (const auto& node : nodes) n += node.gpus;
  return n;
}

bool ClusterSpec::has_spot() const {
  for (const Pool& p : pools)
    if (p.capacity == Capacity::kSpot) return true;
  return false;
}

double SpotTerms::mean_rate() const {
  if (reclaim_rate_series.empty()) return reclaim_rate_per_node_hour;
  double sum = 0;
  for (double v : reclaim_rate_series.values()) sum += v;
  return sum / static_cast<double>(reclaim_rate_series.hours());
}

double on_demand_rate_usd_h(const Pool& pool, const GpuModel& gm, GpuModelId m) {
  double od = gm.on_demand_usd_h;
  for (const RentalOverride& o : pool.rental)
    if (o.model == m && o.on_demand_usd_h >= 0) od = o.on_demand_usd_h;
  return od;
}

double rental_rate_usd_h(const Pool& pool, const GpuModel& gm, GpuModelId m) {
  if (pool.capacity == Capacity::kOnDemand) return on_demand_rate_usd_h(pool, gm, m);
  if (pool.capacity == Capacity::kSpot)
    return on_demand_rate_usd_h(pool, gm, m) * pool.spot.price_factor;
  double rs = gm.reserved_usd_h;
  for (const RentalOverride& o : pool.rental)
    if (o.model == m && o.reserved_usd_h >= 0) rs = o.reserved_usd_h;
  return rs;
}

std::vector<StorageTier> default_storage_tiers() {
  return {{"hot", 0.10}, {"warm", 0.02}, {"cold", 0.004}};
}

ClusterSpec make_single_pool_cluster(const std::string& region, const std::string& pool) {
  ClusterSpec spec;
  Region r;
  r.name = region;
  spec.regions.push_back(r);
  Pool p;
  p.name = pool;
  spec.pools.push_back(p);
  return spec;
}

ClusterSpec make_homogeneous_cluster(int64_t gpus, GpuModelId model, int gpus_per_node) {
  ClusterSpec spec = make_single_pool_cluster("default", "default");
  int64_t left = gpus;
  for (int64_t i = 0; left > 0; ++i) {
    const int here = static_cast<int>(std::min<int64_t>(left, gpus_per_node));
    NodeSpec node;
    node.name = "node-" + std::to_string(i);
    node.model = model;
    node.gpus = here;
    spec.nodes.push_back(node);
    left -= here;
  }
  return spec;
}

}  // namespace frugal
