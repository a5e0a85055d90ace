#include "policy/dataset_locality.h"

#include <algorithm>
#include <vector>

namespace frugal {
namespace {

// The single node of a whole-GPU placement, or nullopt.
std::optional<NodeId> single_node(const Placement& p) {
  if (p.slots.empty()) return std::nullopt;
  const NodeId n = p.slots.front().node;
  for (const Slot& s : p.slots)
    if (s.node != n || s.gpu < 0 || s.milli != kMilliPerGpu) return std::nullopt;
  return n;
}

// Staging onto n in GPU-hours of the job's `k` GPUs there.
double stage_gpu_h(const CycleView& v, const DatasetResidency& d, const JobSpec& job, NodeId n,
                   int k, const DatasetOptions& o) {
  const StagingCost c = staging_cost(v.cluster(), d, job, n, o);
  const double rate = gpu_hour_usd(v.cluster(), v.catalog(), n);
  return k * c.seconds / 3600.0 + (rate > 0 ? c.usd / rate : 0.0);
}

bool can_take(const ClusterState& st, NodeId n, GpuModelId m, int k, const JobSpec& job) {
  return st.up(n) && st.model(n) == m && st.free_whole(n) >= k && st.host_fits(n, job);
}

Placement whole_on(const ClusterState& st, NodeId n, GpuModelId m, int k) {
  Placement p;
  p.model = m;
  for (int g = 0; g < st.gpus(n) && k > 0; ++g) {
    if (st.free_milli(n, g) != kMilliPerGpu) continue;
    p.slots.push_back(Slot{n, static_cast<int16_t>(g), kMilliPerGpu});
    --k;
  }
  return p;
}

class DatasetLocality final : public CyclePlugin {
 public:
  explicit DatasetLocality(DatasetOptions o) : o_(o) {}
  std::string name() const override { return "locality"; }
  std::vector<std::string> describe_words() const override { return {}; }

  std::optional<Placement> size(const CycleOps& ops, const JobRuntime& r,
                                std::optional<Placement> p, const Candidates& c) const override {
    (void)c;
    if (!p) return p;
    if (std::optional<Placement> q = prefer_local(ops, *r.spec, *p, o_)) return q;
    return p;
  }

 private:
  DatasetOptions o_;
};

}  // namespace

std::optional<Placement> prefer_local(const CycleView& v, const JobSpec& job, const Placement& p,
                                      const DatasetOptions& o) {
  const DatasetResidency* d = v.datasets();
  if (d == nullptr || d->empty() || (job.datasets.empty() && job.dataset.empty()))
    return std::nullopt;
  const std::optional<NodeId> n0 = single_node(p);
  if (!n0) return std::nullopt;
  const std::vector<NodeId> holding = d->nodes_holding(job);
  if (holding.empty()) return std::nullopt;
  const ClusterState& st = v.cluster();
  const int k = static_cast<int>(p.slots.size());
  const double base = stage_gpu_h(v, *d, job, *n0, k, o);
  std::optional<NodeId> best;
  double best_net = 0;
  for (NodeId n : holding) {
    if (n == *n0 || !can_take(st, n, p.model, k, job)) continue;
    const double worse = std::max(0, st.free_whole(n) - st.free_whole(*n0));
    const double net = base - stage_gpu_h(v, *d, job, n, k, o) - worse * o.fit_gpu_h;
    if (net > best_net) {
      best = n;
      best_net = net;
    }
  }
  if (!best) return std::nullopt;
  return whole_on(st, *best, p.model, k);
}

std::unique_ptr<CyclePlugin> make_dataset_locality(DatasetOptions o) {
  return std::make_unique<DatasetLocality>(o);
}

}  // namespace frugal
