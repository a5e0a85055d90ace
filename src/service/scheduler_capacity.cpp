// Scheduler: live capacity (docs/SLURM.md, "Cloud nodes"). With a backend that powers nodes
// (Driver::powers_nodes: Slurm with on-demand pools in `slurm.pools`) the engine autoscales
// those pools as in simulation: its kProvision / kRelease decisions become power-up and
// power-down requests, and what the backend sees of the nodes' power (kPower events, and the
// inventory's at start) is the pools' real state — a node found up is used, a node that did
// not come up is unavailable (alert `node_power_failed`; the autoscaler asks for another), a
// node powered down outside frugal has its jobs requeued. The ledger prices the capacity
// from the engine's node pool, which follows that timeline (request → up → release).
// A spot node's reclaim notice (kReclaiming) takes it out of service: its jobs are preempted
// with their checkpoint signal and a grace of at most the pool's reclaim_notice_s, and
// requeued; the autoscaler finds them other capacity.
#include <fmt/format.h>

#include <algorithm>

#include "service/prom_text.h"
#include "service/scheduler.h"

namespace frugal {
namespace {

NodePower node_power_of(PowerState p) {
  switch (p) {
    case PowerState::kOn:
      return NodePower::kOn;
    case PowerState::kOff:
      return NodePower::kOff;
    case PowerState::kBooting:
      return NodePower::kBooting;
    case PowerState::kFailed:
      return NodePower::kFailed;
    case PowerState::kReclaiming:  // handled apart (Engine::reclaim_notice)
      return NodePower::kOn;
  }
  return NodePower::kOn;
}

}  // namespace

std::optional<NodeId> Scheduler::node_named(const std::string& name) const {
  const auto it = node_by_name_.find(name);
  if (it == node_by_name_.end()) return std::nullopt;
  return it->second;
}

void Scheduler::apply_initial_power(double now) {
  if (!driver_->powers_nodes()) return;
  size_t on = 0, off = 0, other = 0;
  for (const auto& [name, p] : initial_power_) {
    const std::optional<NodeId> n = node_named(name);
    if (!n || !engine_->nodes().on_demand(*n)) continue;
    engine_->node_power(*n, node_power_of(p), engine_time(now));
    if (p == PowerState::kReclaiming) {  // up, under a reclaim notice
      reclaiming_.insert(*n);
      engine_->reclaim_notice(*n, engine_time(now),
                              cluster_.pools[cluster_.nodes[*n].pool].spot.reclaim_notice_s);
    }
    (p == PowerState::kOn ? on : p == PowerState::kOff ? off : other) += 1;
    if (p == PowerState::kFailed)
      alerts_.raise("node_power_failed", name, "node " + name + " is down after a power-up", now);
  }
  log_(
      fmt::format("capacity: on-demand nodes at start: {} up, {} powered down, {} booting or "
                  "failed",
                  on, off, other));
}

void Scheduler::apply_power_decision(const Decision& d) {
  if (d.node >= cluster_.nodes.size()) return;
  const std::string& name = cluster_.nodes[d.node].name;
  const bool up = d.kind == Decision::Kind::kProvision;
  log_(fmt::format("capacity: power {} {} ({})", up ? "up" : "down", name, d.reason));
  if (up)
    driver_->power_up(name);
  else
    driver_->power_down(name);
}

void Scheduler::power_event(const DriverEvent& e, double now) {
  const std::optional<NodeId> n = node_named(e.node);
  if (!n) return;
  log_(fmt::format("capacity: {}", e.message));
  if (e.power == PowerState::kReclaiming) {
    reclaiming_.insert(*n);
    const Pool& pool = cluster_.pools[cluster_.nodes[*n].pool];
    engine_->reclaim_notice(*n, engine_time(now), pool.spot.reclaim_notice_s);
    engine_dirty_ = true;
    return;
  }
  reclaiming_.erase(*n);
  if (e.power == PowerState::kFailed)
    alerts_.raise("node_power_failed", e.node, e.message, now);
  else if (e.power == PowerState::kOn || e.power == PowerState::kOff)
    alerts_.clear("node_power_failed", e.node, now);
  if (engine_->node_power(*n, node_power_of(e.power), engine_time(now))) engine_dirty_ = true;
}

StopPlan Scheduler::preempt_plan(const Live& l) const {
  double notice = -1;
  for (NodeId n : l.placement.nodes())
    if (reclaiming_.count(n) != 0) {
      const double s = cluster_.pools[cluster_.nodes[n].pool].spot.reclaim_notice_s;
      notice = notice < 0 ? s : std::min(notice, s);
    }
  if (notice < 0) return stop_plan(l, false);
  // A reclaim notice: the checkpoint signal, and as much of the notice as the job's grace
  // asks for, before the requeue.
  StopPlan p = stop_plan(l, true);
  p.grace_s = std::min(p.grace_s, notice);
  return p;
}

void Scheduler::render_pool_metrics(std::string& out) const {
  const ClusterState& st = engine_->cluster();
  const NodePool& pool = engine_->nodes();
  std::vector<double> provisioned(cluster_.pools.size(), 0), booting(cluster_.pools.size(), 0),
      idle(cluster_.pools.size(), 0);
  for (uint32_t c = 0; c < st.centre_count(); ++c) {
    const uint32_t p = st.centre_pool(c);
    provisioned[p] += static_cast<double>(pool.provisioned_gpus()[c]);
    booting[p] += static_cast<double>(pool.booting_gpus()[c]);
    idle[p] += static_cast<double>(st.centre_up_gpus(c)) -
               static_cast<double>(st.centre_allocated_milli(c)) / kMilliPerGpu;
  }
  render_header("frugal_pool_gpus", "gauge",
                "GPUs per pool: provisioned (paid for, booting included), booting (requested, "
                "not yet up), idle (up and not allocated)",
                out);
  for (size_t p = 0; p < cluster_.pools.size(); ++p)
    for (const auto& [state, v] :
         {std::pair{"provisioned", provisioned[p]}, {"booting", booting[p]}, {"idle", idle[p]}})
      render_sample("frugal_pool_gpus", {{"pool", cluster_.pools[p].name}, {"state", state}}, v,
                    out);
}

}  // namespace frugal
