#include "policy/region_cost.h"

#include <algorithm>

namespace frugal {

RegionCost::RegionCost(const ClusterState& state, const GpuCatalog& catalog)
    : state_(state),
      pricing_(state.spec(), catalog, state),
      max_node_gpus_(state.centre_count(), 0),
      on_demand_(state.centre_count(), 0) {
  const ClusterSpec& spec = state.spec();
  for (NodeId n = 0; n < spec.nodes.size(); ++n) {
    int& m = max_node_gpus_[state.centre_of(n)];
    m = std::max(m, spec.nodes[n].gpus);
  }
  for (uint32_t c = 0; c < state.centre_count(); ++c)
    on_demand_[c] = rented(spec.pools[state.centre_pool(c)].capacity) ? 1 : 0;
}

double RegionCost::marginal_usd(uint32_t centre, double gpus, double utilization, double t0,
                                double t1) const {
  if (!(t1 > t0)) return 0;
  const SpanCost s = pricing_.span(centre, gpus, utilization, t0, t1);
  return s.energy_usd + (on_demand(centre) ? s.rental_usd : 0.0);
}

namespace {
struct CostCache final : PluginState {
  const ClusterState* state = nullptr;
  std::unique_ptr<RegionCost> cost;
};
}  // namespace

const RegionCost& region_cost(const CycleView& v, const void* owner) {
  CostCache& c = v.plugin_state().of<CostCache>(owner);
  if (c.state != &v.cluster() || !c.cost) {
    c.state = &v.cluster();
    c.cost = std::make_unique<RegionCost>(v.cluster(), v.catalog());
  }
  return *c.cost;
}

uint32_t node_region(const ClusterState& st, NodeId n) {
  return st.spec().region_of(st.spec().nodes[n]);
}

bool sun_placeable(const ClusterState& st, const JobSpec& job, GpuModelId m, int g) {
  return job.gpus > 0 && !job.fractional() && g > 0 && m != kNoGpuModel &&
         g <= st.max_gpus_per_node(m);
}

std::optional<Placement> place_in_region(const ClusterState& st, const JobSpec& job, GpuModelId m,
                                         uint32_t region, int g, std::optional<NodeId> skip) {
  if (!sun_placeable(st, job, m, g)) return std::nullopt;
  for (int k = g; k <= st.max_gpus_per_node(m); ++k) {
    for (NodeId n : st.nodes_with_free(m, k)) {  // ascending ids: lowest first on ties
      if ((skip && n == *skip) || node_region(st, n) != region || !st.host_fits(n, job) ||
          st.gpu_memory(n) < job.gpu_memory_mib)
        continue;
      Placement p;
      p.model = m;
      for (int i = 0; i < st.gpus(n) && static_cast<int>(p.slots.size()) < g; ++i)
        if (st.free_milli(n, i) == kMilliPerGpu)
          p.slots.push_back(Slot{n, static_cast<int16_t>(i), kMilliPerGpu});
      if (static_cast<int>(p.slots.size()) == g) return p;
    }
  }
  return std::nullopt;
}

}  // namespace frugal
