// Pack-down (profile +packdown): the Engine's point that empties on-demand nodes so the
// autoscaler can hand them back.
//
// Runs after the queue walk when nothing is queued (a queued job would use the room
// anyway) on an autoscaled cluster. Donors: up on-demand nodes with every job on them
// whole-GPU, on that node only, not signalled, and not an elastic job below its request
// (left to elastic growth, which takes it back to its request; moving those too was measured
// and not kept, docs/EXPERIMENTS.md round 6); fewest used GPUs first, at most
// EngineOptions::pack_down_nodes a cycle. Each of a donor's jobs moves at its
// current size and needs a destination of the same model (so its speed does not change),
// an up node other than the donor with enough wholly free GPUs:
//  - reserved/owned (paid whatever happens), for any donor; or
//  - for a donor using at most half of its GPUs, an on-demand node that already runs jobs
//    and uses at least as many GPUs as the donor (moves only go towards fuller nodes, so
//    nothing ping-pongs and no idle node is kept alive).
// Among destinations, the least cost wins, then the best fit, then the lowest node id; at
// most pack_down_scan are examined per job. A destination's cost: on an on-demand node, the
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

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <tuple>

#include "engine/engine.h"
#include "engine/engine_util.h"

namespace frugal {

void Engine::pack_down(Seconds now) {
  auto used_of = [&](NodeId n) { return state_.gpus(n) - state_.free_whole(n); };
  auto node_end = [&](NodeId n) {
    Seconds e = now;
    for (JobIdx j : node_jobs_[n]) e = std::max(e, jobs_[j].expected_end(now));
    return e;
  };
  std::vector<std::pair<int, NodeId>> donors;
  for (NodeId n = 0; n < state_.node_count(); ++n) {
    if (!pool_.on_demand(n) || pool_.life(n) != NodeLife::kUp || !state_.up(n)) continue;
    const auto& js = node_jobs_[n];
    const int used = used_of(n);
    if (js.empty() || used <= 0) continue;
    const bool movable = std::all_of(js.begin(), js.end(), [&](JobIdx j) {
      const JobRuntime& r = jobs_[j];
      return r.spec->gpus > 0 && !r.spec->fractional() && !r.signalled() &&
             (!elastic(r) || r.size >= r.spec->gpus) && r.placement.nodes().size() == 1;
    });
    if (movable) donors.emplace_back(used, n);
  }
  std::sort(donors.begin(), donors.end());
  std::vector<char> emptied(state_.node_count(), 0);
  size_t tried = 0;
  for (const auto& [used, n] : donors) {
    if (tried++ >= options_.pack_down_nodes) break;
    if (node_jobs_[n].empty()) continue;
    const bool full = 2 * used > state_.gpus(n);
    const double saving = static_cast<double>(state_.gpus(n)) * (node_end(n) - now);
    double cost = 0;
    std::map<NodeId, int> taken;     // GPUs planned onto a destination
    std::map<NodeId, Seconds> ends;  // a destination's expected end with the planned jobs
    std::vector<std::pair<JobIdx, NodeId>> plan;
    bool ok = true;
    for (JobIdx j : node_jobs_[n]) {
      const JobRuntime& r = jobs_[j];
      const int g = r.size > 0 ? r.size : r.spec->gpus;
      const GpuModelId m = r.placement.model;
      const Seconds job_end = r.expected_end(now) + options_.migration_cost_s;
      std::tuple<double, int, NodeId> best{0, 0, 0};
      bool found = false;
      size_t scanned = 0;
      for (int k = g; k <= state_.max_gpus_per_node(m) && scanned < options_.pack_down_scan; ++k) {
        for (NodeId d : state_.nodes_with_free(m, k)) {
          if (scanned++ >= options_.pack_down_scan) break;
          if (d == n || emptied[d] || pool_.life(d) != NodeLife::kUp) continue;
          const int free = k - taken[d];
          if (free < g) continue;
          const int used_d = state_.gpus(d) - free;
          const bool paid_anyway = !pool_.on_demand(d);
          if (!paid_anyway && (full || node_jobs_[d].empty() || used_d < used)) continue;
          const Seconds dend = ends.count(d) ? ends[d] : node_end(d);
          const double ext =
              paid_anyway ? g * ondemand_delay_[static_cast<size_t>(m)]
                          : static_cast<double>(state_.gpus(d)) * std::max(0.0, job_end - dend);
          const std::tuple<double, int, NodeId> key{ext, free - g, d};
          if (!found || key < best) best = key, found = true;
        }
      }
      if (!found) {
        ok = false;
        break;
      }
      const NodeId d = std::get<2>(best);
      const Seconds lost = std::max(0.0, now - r.run_start - r.restart_s - r.kept_at(now));
      cost += std::get<0>(best) + g * (options_.migration_cost_s + lost);
      taken[d] += g;
      ends[d] = std::max(ends.count(d) ? ends[d] : node_end(d), job_end);
      plan.emplace_back(j, d);
    }
    if (!ok || !(cost < saving)) continue;
    const std::vector<JobIdx> moving = node_jobs_[n];  // migrate() edits node_jobs_
    for (const auto& [j, d] : plan) {
      Placement to;
      to.model = state_.model(d);
      const int g = jobs_[j].size > 0 ? jobs_[j].size : jobs_[j].spec->gpus;
      for (int i = 0; i < state_.gpus(d) && static_cast<int>(to.slots.size()) < g; ++i)
        if (state_.free_milli(d, i) == kMilliPerGpu)
          to.slots.push_back(Slot{d, static_cast<int16_t>(i), kMilliPerGpu});
      if (static_cast<int>(to.slots.size()) < g) break;
      Placement copy = to;
      if (!migrate(j, std::move(copy), now, options_.migration_cost_s).ok()) break;
      ++jobs_[j].migrations;
      // As consolidation's: `until` carries the restart cost.
      out_.push_back(engine_util::job_decision(
          Decision::Kind::kMigrate, j, std::move(to), options_.migration_cost_s,
          fmt::format("pack-down: emptying on-demand node {}", n)));
    }
    emptied[n] = 1;
  }
}

}  // namespace frugal
