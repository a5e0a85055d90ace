#include "policy/spot_cost.h"

#include <algorithm>
#include <cmath>

namespace frugal {

SpotCost spot_cost(const JobSpec& job, const SpotTerms& t, double on_demand_usd_h, int node_gpus) {
  SpotCost c;
  const bool core = job.tier == Tier::kCore;
  c.candidate = (!core || t.allow_core) &&
                (job.checkpoint_interval > 0 || job.deferrable || job.tier == Tier::kGeneral);
  const double spot_usd_h = t.price_factor * on_demand_usd_h;
  c.saving_usd_gpu_h = on_demand_usd_h - spot_usd_h;
  const int k = job.gpus > node_gpus && node_gpus > 0 && !job.fractional()
                    ? (job.gpus + node_gpus - 1) / node_gpus
                    : 1;
  const double run_h = std::max(0.0, job.runtime_estimate()) / 3600.0;
  const double notice_h = t.reclaim_notice_s / 3600.0;
  const bool fits = job.checkpoint_grace <= t.reclaim_notice_s;
  const double held_h =
      fits && job.checkpoint_grace >= 0 ? job.checkpoint_grace / 3600.0 : notice_h;
  double lost_h = 0;
  if (!fits)
    lost_h = job.checkpoint_interval > 0 ? std::min(job.checkpoint_interval / 3600.0, run_h) / 2
                                         : run_h / 2;
  c.rework_usd_gpu_h = t.mean_rate() * k * (lost_h + held_h) * spot_usd_h;
  return c;
}

SpotGuard::SpotGuard(const ClusterSpec& spec, const GpuCatalog& catalog)
    : offer_of_(spec.nodes.size(), -1) {
  terms_.reserve(spec.pools.size());
  for (const Pool& p : spec.pools) {  // the mean rate, once (admits() is on the hot path)
    SpotTerms t = p.spot;
    t.reclaim_rate_per_node_hour = t.mean_rate();
    t.reclaim_rate_series = HourlySeries();
    terms_.push_back(std::move(t));
  }
  for (NodeId n = 0; n < spec.nodes.size(); ++n) {
    const NodeSpec& ns = spec.nodes[n];
    const Pool& pool = spec.pools[ns.pool];
    if (pool.capacity != Capacity::kSpot || ns.model == kNoGpuModel) continue;
    const auto it = std::find_if(offers_.begin(), offers_.end(), [&](const Offer& o) {
      return o.pool == ns.pool && o.model == ns.model;
    });
    if (it != offers_.end()) {
      it->node_gpus = std::max(it->node_gpus, ns.gpus);
      offer_of_[n] = static_cast<int>(it - offers_.begin());
      continue;
    }
    offer_of_[n] = static_cast<int>(offers_.size());
    offers_.push_back(Offer{ns.pool, ns.model,
                            on_demand_rate_usd_h(pool, catalog.at(ns.model), ns.model), ns.gpus});
  }
}

bool SpotGuard::admits(NodeId n, const JobSpec& job) const {
  if (n >= offer_of_.size() || offer_of_[n] < 0) return true;
  const Offer& o = offers_[static_cast<size_t>(offer_of_[n])];
  return spot_cost(job, terms_[o.pool], o.on_demand_usd_h, o.node_gpus).pays();
}

bool SpotGuard::has_spot(GpuModelId m) const {
  return std::any_of(offers_.begin(), offers_.end(), [m](const Offer& o) { return o.model == m; });
}

bool SpotGuard::pays_on(GpuModelId m, const JobSpec& job) const {
  return std::any_of(offers_.begin(), offers_.end(), [&](const Offer& o) {
    return o.model == m && spot_cost(job, terms_[o.pool], o.on_demand_usd_h, o.node_gpus).pays();
  });
}

std::shared_ptr<const SpotGuard> make_spot_guard(const ClusterSpec& spec,
                                                 const GpuCatalog& catalog) {
  if (!spec.has_spot()) return nullptr;
  return std::make_shared<const SpotGuard>(spec, catalog);
}

}  // namespace frugal
