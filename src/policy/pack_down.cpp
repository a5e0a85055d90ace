// The pack-down cycle plugin (profile +packdown), at the Compact point: empties on-demand
// nodes so the autoscaler can hand them back.
//
// Runs after the queue walk when nothing is queued (a queued job would use the room
// anyway) on an autoscaled cluster. Donors: up on-demand nodes with every job on them
// whole-GPU, on that node only, not signalled, and not an elastic job below its request
// (left to elastic growth, which takes it back to its request; moving those too was measured
// and not kept, docs/EXPERIMENTS.md round 6); fewest used GPUs first, at most
// PackDownOptions::nodes a cycle. Each of a donor's jobs moves at its
// current size and needs a destination of the same model (so its speed does not change),
// an up node other than the donor with enough wholly free GPUs:
//  - reserved/owned (paid whatever happens), for any donor; or
//  - for a donor using at most half of its GPUs, an on-demand node that already runs jobs
//    and uses at least as many GPUs as the donor (moves only go towards fuller nodes, so
//    nothing ping-pongs and no idle node is kept alive).
// Among destinations, the least cost wins, then the best fit, then the lowest node id; at
// most PackDownOptions::scan are examined per job. A destination's cost: on an on-demand node, the
// extension of its life (its GPUs × how much later than its current jobs the moved job is
// expected to end); on a reserved/owned node, the moved GPUs × the model's on-demand
// provisioning delay (the node was a spare an arrival could start on at once; filled, the
// next such arrival may wait for a boot). The moves are made (kMigrate, the migration
// restart counted as rework) only when
//   saving = donor GPUs × (latest expected end of its jobs − now)
// exceeds
//   cost = Σ moved GPUs × (migration_cost_s + work since the job's last checkpoint)
//          + Σ destination costs,
// all in GPU-seconds from runtime estimates. The emptied node idles and is released after
// its pool's idle timeout (at once under +release). Deterministic (node order, stable keys).

#include "policy/pack_down.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace frugal {
namespace {

// The donors of the header, fewest used GPUs first (ties: node id).
std::vector<std::pair<int, NodeId>> donors(const CycleOps& ops) {
  const ClusterState& state = ops.cluster();
  std::vector<std::pair<int, NodeId>> out;
  for (NodeId n = 0; n < state.node_count(); ++n) {
    if (!ops.capacity().on_demand(n) || !ops.capacity().usable(n) || !state.up(n)) continue;
    const auto& js = ops.jobs_on(n);
    const int used = state.gpus(n) - state.free_whole(n);
    if (js.empty() || used <= 0) continue;
    const bool movable = std::all_of(js.begin(), js.end(), [&](JobIdx j) {
      const JobRuntime& r = ops.job(j);
      return r.spec->gpus > 0 && !r.spec->fractional() && !r.signalled() &&
             (!r.elastic() || r.size >= r.spec->gpus) && r.placement.nodes().size() == 1;
    });
    if (movable) out.emplace_back(used, n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Latest expected end of the jobs on node n (now when none).
Seconds node_end(const CycleOps& ops, NodeId n) {
  Seconds e = ops.now();
  for (JobIdx j : ops.jobs_on(n)) e = std::max(e, ops.job(j).expected_end(ops.now()));
  return e;
}

// Planning one donor: GPUs planned onto each destination, and a destination's expected end
// with the planned jobs.
struct DonorPlan {
  NodeId donor = 0;
  int used = 0;       // the donor's used GPUs
  bool full = false;  // it uses more than half its GPUs
  double cost = 0;
  std::map<NodeId, int> taken;
  std::map<NodeId, Seconds> ends;
  std::vector<std::pair<JobIdx, NodeId>> moves;
};

// The best destination for job j of the donor (cost, then fit, then node id) and its cost in
// GPU-seconds; nullopt when none qualifies.
std::optional<std::pair<double, NodeId>> destination(const CycleOps& ops, const DonorPlan& plan,
                                                     const std::vector<char>& emptied, JobIdx j,
                                                     size_t scan) {
  const ClusterState& state = ops.cluster();
  const CapacityView& pool = ops.capacity();
  const JobRuntime& r = ops.job(j);
  const int g = r.size > 0 ? r.size : r.spec->gpus;
  const GpuModelId m = r.placement.model;
  const Seconds job_end = r.expected_end(ops.now()) + ops.options().migration_cost_s;
  std::optional<std::tuple<double, int, NodeId>> best;
  size_t scanned = 0;
  for (int k = g; k <= state.max_gpus_per_node(m) && scanned < scan; ++k) {
    for (NodeId d : state.nodes_with_free(m, k)) {
      if (scanned++ >= scan) break;
      if (d == plan.donor || emptied[d] || !pool.usable(d) || !state.admits(d, *r.spec)) continue;
      const auto t = plan.taken.find(d);
      const int free = k - (t == plan.taken.end() ? 0 : t->second);
      if (free < g) continue;
      const int used_d = state.gpus(d) - free;
      const bool paid_anyway = !pool.on_demand(d);
      if (!paid_anyway && (plan.full || ops.jobs_on(d).empty() || used_d < plan.used)) continue;
      const auto e = plan.ends.find(d);
      const Seconds dend = e != plan.ends.end() ? e->second : node_end(ops, d);
      const double ext = paid_anyway
                             ? g * ops.on_demand_shape().delay[static_cast<size_t>(m)]
                             : static_cast<double>(state.gpus(d)) * std::max(0.0, job_end - dend);
      const std::tuple<double, int, NodeId> key{ext, free - g, d};
      if (!best || key < *best) best = key;
    }
  }
  if (!best) return std::nullopt;
  return std::make_pair(std::get<0>(*best), std::get<2>(*best));
}

// Plans moving every job off donor n; false when one has no destination.
bool plan_donor(const CycleOps& ops, const std::vector<char>& emptied, size_t scan,
                DonorPlan& plan) {
  const Seconds now = ops.now();
  const Seconds restart = ops.options().migration_cost_s;
  for (JobIdx j : ops.jobs_on(plan.donor)) {
    const std::optional<std::pair<double, NodeId>> dest = destination(ops, plan, emptied, j, scan);
    if (!dest) return false;
    const JobRuntime& r = ops.job(j);
    const int g = r.size > 0 ? r.size : r.spec->gpus;
    const NodeId d = dest->second;
    const Seconds lost = std::max(0.0, now - r.run_start - r.restart_s - r.kept_at(now));
    plan.cost += dest->first + g * (restart + lost);
    plan.taken[d] += g;
    const auto e = plan.ends.find(d);
    const Seconds before = e != plan.ends.end() ? e->second : node_end(ops, d);
    plan.ends[d] = std::max(before, r.expected_end(now) + restart);
    plan.moves.emplace_back(j, d);
  }
  return true;
}

// Carries out the moves (kMigrate) until one fails.
void apply(CycleOps& ops, const DonorPlan& plan) {
  const ClusterState& state = ops.cluster();
  for (const auto& [j, d] : plan.moves) {
    Placement to;
    to.model = state.model(d);
    const int g = ops.job(j).size > 0 ? ops.job(j).size : ops.job(j).spec->gpus;
    for (int i = 0; i < state.gpus(d) && static_cast<int>(to.slots.size()) < g; ++i)
      if (state.free_milli(d, i) == kMilliPerGpu)
        to.slots.push_back(Slot{d, static_cast<int16_t>(i), kMilliPerGpu});
    if (static_cast<int>(to.slots.size()) < g) break;
    // As consolidation's: the decision's `until` carries the restart cost.
    if (!ops.move(j, std::move(to), Decision::Kind::kMigrate, ops.options().migration_cost_s,
                  fmt::format("pack-down: emptying on-demand node {}", plan.donor))
             .ok())
      break;
  }
}

void pack_down(CycleOps& ops, const PackDownOptions& o) {
  const ClusterState& state = ops.cluster();
  std::vector<char> emptied(state.node_count(), 0);
  size_t tried = 0;
  for (const auto& [used, n] : donors(ops)) {
    if (tried++ >= o.nodes) break;
    if (ops.jobs_on(n).empty()) continue;
    DonorPlan plan;
    plan.donor = n;
    plan.used = used;
    plan.full = 2 * used > state.gpus(n);
    const double saving = static_cast<double>(state.gpus(n)) * (node_end(ops, n) - ops.now());
    if (!plan_donor(ops, emptied, o.scan, plan) || !(plan.cost < saving)) continue;
    apply(ops, plan);
    emptied[n] = 1;
  }
}

class PackDown final : public CyclePlugin {
 public:
  explicit PackDown(PackDownOptions o) : o_(o) {}
  std::string name() const override { return "packdown"; }
  void compact(CycleOps& ops) override {
    if (ops.pending().empty() && ops.capacity().autoscaled()) pack_down(ops, o_);
  }

 private:
  PackDownOptions o_;
};

}  // namespace

std::unique_ptr<CyclePlugin> make_pack_down(PackDownOptions o) {
  return std::make_unique<PackDown>(o);
}

}  // namespace frugal
