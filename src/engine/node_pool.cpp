#include "engine/node_pool.h"

#include <algorithm>

namespace frugal {

NodePool::NodePool(const ClusterSpec& spec, ClusterState& state, bool static_capacity)
    : spec_(spec),
      state_(state),
      life_(spec.nodes.size(), NodeLife::kUp),
      on_demand_(spec.nodes.size(), 0),
      jobs_on_(spec.nodes.size(), 0),
      idle_key_(spec.nodes.size(), kNever),
      idle_since_(spec.nodes.size(), 0),
      provisioned_(state.centre_count(), 0),
      provisioned_nodes_(state.centre_count(), 0),
      booting_(state.centre_count(), 0) {
  GpuModelId max_model = 0;
  for (const NodeSpec& n : spec.nodes) max_model = std::max(max_model, n.model);
  booting_by_model_.assign(static_cast<size_t>(max_model) + 2, 0);
  unprovisioned_.resize(booting_by_model_.size());
  unprovisioned_gpus_.assign(booting_by_model_.size(), 0);
  has_on_demand_.assign(booting_by_model_.size(), 0);
  for (NodeId n = 0; n < spec.nodes.size(); ++n) {
    const bool od = rented(spec.pools[spec.nodes[n].pool].capacity);
    on_demand_[n] = od;
    if (od && !static_capacity) {
      autoscaled_ = true;
      life_[n] = NodeLife::kUnprovisioned;
      state_.set_up(n, false);
      if (spec.nodes[n].gpus > 0) {
        unprovisioned_[spec.nodes[n].model + 1].insert(n);
        unprovisioned_gpus_[spec.nodes[n].model + 1] += spec.nodes[n].gpus;
        has_on_demand_[spec.nodes[n].model + 1] = 1;
      }
    } else {
      provisioned_[state.centre_of(n)] += spec.nodes[n].gpus;
      ++provisioned_nodes_[state.centre_of(n)];
    }
  }
}

void NodePool::set_life(NodeId n, NodeLife l) {
  const auto counted = [](NodeLife x) {
    return x != NodeLife::kUnprovisioned && x != NodeLife::kUnavailable;
  };
  const int64_t g = spec_.nodes[n].gpus;
  if (counted(life_[n]) != counted(l)) {
    provisioned_[state_.centre_of(n)] += counted(l) ? g : -g;
    provisioned_nodes_[state_.centre_of(n)] += counted(l) ? 1 : -1;
  }
  if (life_[n] == NodeLife::kProvisioning) {
    booting_by_model_[spec_.nodes[n].model + 1] -= g;
    booting_[state_.centre_of(n)] -= g;
  }
  if (l == NodeLife::kProvisioning) {
    booting_by_model_[spec_.nodes[n].model + 1] += g;
    booting_[state_.centre_of(n)] += g;
  }
  const size_t m = static_cast<size_t>(spec_.nodes[n].model + 1);
  if (g > 0 && life_[n] == NodeLife::kUnprovisioned) {
    unprovisioned_[m].erase(n);
    unprovisioned_gpus_[m] -= g;
  }
  if (g > 0 && l == NodeLife::kUnprovisioned) {
    unprovisioned_[m].insert(n);
    unprovisioned_gpus_[m] += g;
  }
  life_[n] = l;
  state_.set_up(n, l == NodeLife::kUp);
  if (l != NodeLife::kUp && idle_key_[n] != kNever) {
    idle_until_.erase({idle_key_[n], n});
    idle_key_[n] = kNever;
  }
}

bool NodePool::fail(NodeId n) {
  if (life_[n] != NodeLife::kUp) return false;
  set_life(n, NodeLife::kFailed);
  return true;
}

bool NodePool::repair(NodeId n, Seconds now) {
  if (life_[n] != NodeLife::kFailed) return false;
  set_life(n, NodeLife::kUp);
  if (jobs_on_[n] == 0) idle(n, now);  // an idle on-demand node's release timer restarts
  return true;
}

bool NodePool::provisioned(NodeId n, Seconds now) {
  if (life_[n] != NodeLife::kProvisioning) return false;
  set_life(n, NodeLife::kUp);
  if (jobs_on_[n] == 0) idle(n, now);
  return true;
}

bool NodePool::observe_power(NodeId n, NodePower p, Seconds now) {
  if (!on_demand_[n] || !autoscaled_) return false;
  const NodeLife l = life_[n];
  NodeLife to = l;
  switch (p) {
    case NodePower::kOn:
      if (l == NodeLife::kProvisioning || l == NodeLife::kUnprovisioned ||
          l == NodeLife::kUnavailable)
        to = NodeLife::kUp;
      break;
    case NodePower::kBooting:
      if (l == NodeLife::kUnprovisioned || l == NodeLife::kUnavailable)
        to = NodeLife::kProvisioning;
      break;
    case NodePower::kOff:
      if (l != NodeLife::kUnprovisioned) to = NodeLife::kUnprovisioned;
      break;
    case NodePower::kFailed:
      if (l != NodeLife::kUnavailable && l != NodeLife::kFailed) to = NodeLife::kUnavailable;
      break;
  }
  if (to == l) return false;
  set_life(n, to);
  if (to == NodeLife::kUp && jobs_on_[n] == 0) idle(n, now);
  return true;
}

bool NodePool::reclaim(NodeId n) {
  if (!spot(n) || !autoscaled_ || life_[n] == NodeLife::kUnprovisioned) return false;
  set_life(n, NodeLife::kUnprovisioned);
  return true;
}

void NodePool::busy(NodeId n) {
  ++jobs_on_[n];
  if (idle_key_[n] != kNever) {
    idle_until_.erase({idle_key_[n], n});
    idle_key_[n] = kNever;
  }
}

void NodePool::idle(NodeId n, Seconds now) {
  if (jobs_on_[n] > 0 && --jobs_on_[n] > 0) return;
  if (!on_demand_[n] || !autoscaled_ || life_[n] != NodeLife::kUp) return;
  start_idle(n, now);
}

void NodePool::start_idle(NodeId n, Seconds now) {
  if (idle_key_[n] != kNever) idle_until_.erase({idle_key_[n], n});
  idle_since_[n] = now;
  idle_key_[n] = now + (prompt_release_ ? 0 : timeout(n));
  idle_until_.emplace(idle_key_[n], n);
}

int64_t NodePool::unprovisioned_gpus(GpuModelId m) const {
  const size_t i = static_cast<size_t>(m + 1);
  return i < unprovisioned_gpus_.size() ? unprovisioned_gpus_[i] : 0;
}

Seconds NodePool::next_wakeup() const {
  return idle_until_.empty() ? kNever : idle_until_.begin()->first;
}

int64_t NodePool::provisioning_gpus(GpuModelId m) const {
  const size_t i = static_cast<size_t>(m + 1);
  return i < booting_by_model_.size() ? booting_by_model_[i] : 0;
}

void NodePool::plan(Seconds now, const std::vector<double>& demand, std::vector<Decision>& out,
                    const std::function<double(NodeId)>& rank, Seconds deferred_due) {
  if (!autoscaled_) return;
  // Release nodes idle past their timeout, unless queued work wants their model.
  while (!idle_until_.empty() && idle_until_.begin()->first <= now) {
    const NodeId n = idle_until_.begin()->second;
    const GpuModelId m = spec_.nodes[n].model;
    if (m != kNoGpuModel && static_cast<size_t>(m) < demand.size() && demand[m] > 0) {
      // Still wanted: keep it another timeout.
      idle_until_.erase(idle_until_.begin());
      idle_key_[n] = now + timeout(n);
      idle_until_.emplace(idle_key_[n], n);
      if (idle_key_[n] <= now) break;  // zero timeout: avoid spinning
      continue;
    }
    if (const Seconds full = idle_since_[n] + timeout(n);
        prompt_release_ && deferred_due <= full && full > now) {
      // Prompt release, but deferred work falls due within the usual timeout: wait it out.
      idle_until_.erase(idle_until_.begin());
      idle_key_[n] = full;
      idle_until_.emplace(full, n);
      continue;
    }
    set_life(n, NodeLife::kUnprovisioned);
    Decision d;
    d.kind = Decision::Kind::kRelease;
    d.node = n;
    d.reason = idle_since_[n] + timeout(n) <= now ? "idle past the pool's idle timeout"
                                                  : "idle, and no known work due for it";
    out.push_back(d);
  }
  // Provision the lowest-ranked (else lowest-numbered) unprovisioned on-demand nodes of each
  // model in demand.
  for (size_t m = 0; m < demand.size() && m + 1 < unprovisioned_.size(); ++m) {
    double need = demand[m] - static_cast<double>(provisioning_gpus(static_cast<GpuModelId>(m)));
    auto& pool = unprovisioned_[m + 1];
    while (need > 0 && !pool.empty()) {
      NodeId n = *pool.begin();
      if (rank) {
        double best = rank(n);
        for (NodeId k : pool) {
          const double r = rank(k);
          if (r < best) best = r, n = k;
        }
      }
      set_life(n, NodeLife::kProvisioning);  // removes n from `pool`
      need -= spec_.nodes[n].gpus;
      Decision d;
      d.kind = Decision::Kind::kProvision;
      d.node = n;
      d.reason = "queued work does not fit on provisioned capacity";
      out.push_back(d);
    }
  }
}

}  // namespace frugal
