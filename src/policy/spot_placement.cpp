#include "policy/spot_placement.h"

#include <algorithm>

#include "policy/region_cost.h"
#include "policy/spot_cost.h"

namespace frugal {
namespace {

class SpotPlacement final : public CyclePlugin {
 public:
  std::string name() const override { return "spot"; }
  // Nothing in the profile's description: the plugin acts only on clusters with spot pools,
  // and reports compare profiles by that string across clusters.
  std::vector<std::string> describe_words() const override { return {}; }

  std::shared_ptr<const NodeGuard> node_guard(const ClusterSpec& spec,
                                              const GpuCatalog& catalog) const override {
    return make_spot_guard(spec, catalog);
  }

  bool ranks_provisioning(const CycleOps& ops) const override {
    return ops.cluster().spec().has_spot();
  }

  double provision_rank(const CycleOps& ops, NodeId n) const override {
    const ClusterState& st = ops.cluster();
    const double usd =
        region_cost(ops, this).marginal_usd(st.centre_of(n), 1, 1, ops.now(), ops.now() + 3600);
    const auto m = static_cast<size_t>(st.model(n) + 1);
    const bool spot = st.spec().pools[st.spec().nodes[n].pool].capacity == Capacity::kSpot;
    return spot && m < short_.size() && short_[m] ? usd + kLast : usd;
  }

  void queue_empty(const CycleOps& /*ops*/) override { short_.clear(); }

  void adjust_demand(const CycleOps& ops, std::vector<double>& demand) override {
    short_.assign(demand.size() + 1, 0);
    const ClusterState& st = ops.cluster();
    if (!st.spec().has_spot()) return;
    if (!guard_) guard_ = make_spot_guard(st.spec(), ops.catalog());
    // GPUs per model (of models with spot) wanted by queued jobs (the autoscaler's
    // look-ahead) that may not use its spot nodes (`barred`), and by the others.
    std::vector<double> barred(demand.size(), 0.0), eligible(demand.size(), 0.0);
    size_t seen = 0;
    for (auto it = ops.pending().begin();
         it != ops.pending().end() && seen < ops.options().autoscale_lookahead; ++it, ++seen) {
      const JobSpec& s = *ops.job(it->job).spec;
      const GpuModelId m = s.gpus == 0 ? kNoGpuModel : ops.overflow_model(s);
      if (m == kNoGpuModel || static_cast<size_t>(m) >= demand.size() || !guard_->has_spot(m))
        continue;
      (guard_->pays_on(m, s) ? eligible : barred)[static_cast<size_t>(m)] +=
          static_cast<double>(s.total_milli()) / kMilliPerGpu;
    }
    for (size_t m = 0; m < demand.size(); ++m) {
      const auto model = static_cast<GpuModelId>(m);
      const double off_spot_free = free_off_spot(st, model);
      const double gap = barred[m] - off_spot_free;
      if (gap <= 0) continue;  // free non-spot capacity covers the barred work
      // The barred work's gap, as far as non-spot nodes can add it, then the rest's beyond
      // the free spot GPUs (all free non-spot GPUs go to the barred work).
      const double add_off_spot = std::min(gap, down_off_spot(st, model));
      const double spot_free = static_cast<double>(st.free_whole_of(model)) - off_spot_free;
      demand[m] = add_off_spot + std::max(0.0, eligible[m] - spot_free);
      short_[m + 1] = add_off_spot > 0 ? 1 : 0;
    }
  }

 private:
  static constexpr double kLast = 1e12;  // added to a spot node's rank: after every other

  // Wholly free GPUs of model m on up nodes outside spot pools.
  static double free_off_spot(const ClusterState& st, GpuModelId m) {
    double free = 0;
    for (uint32_t c = 0; c < st.centre_count(); ++c)
      if (st.centre_model(c) == m && st.spec().pools[st.centre_pool(c)].capacity != Capacity::kSpot)
        free += static_cast<double>(st.centre_free_below(c, kMaxGpusPerNode + 1));
    return free;
  }

  // GPUs of model m on rented nodes outside spot pools that are not up (unprovisioned,
  // booting or failed): what the autoscaler could still add there, at most.
  double down_off_spot(const ClusterState& st, GpuModelId m) {
    if (off_spot_.empty()) {
      off_spot_.resize(st.models().empty() ? 0 : static_cast<size_t>(st.models().back()) + 1);
      const ClusterSpec& spec = st.spec();
      for (NodeId n = 0; n < spec.nodes.size(); ++n) {
        const Capacity c = spec.pools[spec.nodes[n].pool].capacity;
        if (c == Capacity::kOnDemand && spec.nodes[n].model != kNoGpuModel)
          off_spot_[static_cast<size_t>(spec.nodes[n].model)].push_back(n);
      }
    }
    double down = 0;
    if (static_cast<size_t>(m) < off_spot_.size())
      for (NodeId n : off_spot_[static_cast<size_t>(m)])
        if (!st.up(n)) down += st.gpus(n);
    return down;
  }

  std::shared_ptr<const SpotGuard> guard_;
  std::vector<std::vector<NodeId>> off_spot_;  // per model id: its on-demand nodes
  std::vector<char> short_;                    // per model id + 1: spot nodes rank last this cycle
};

}  // namespace

std::unique_ptr<CyclePlugin> make_spot_placement() {
  return std::make_unique<SpotPlacement>();
}

}  // namespace frugal
