#pragma once
// Node lifecycle and the autoscaler for on-demand pools.
//
// Spot pools (Capacity::kSpot) are autoscaled exactly like on-demand ones (spot() tells
// them apart); the provider may also take a provisioned spot node back (reclaim()).
//
// Owned and reserved nodes are always provisioned. On-demand nodes start unprovisioned;
// when queued work cannot fit, the autoscaler asks for enough nodes of the model that work
// would use (kProvision; usable after the pool's provisioning delay, when the driver calls
// Engine::node_provisioned) and hands back a node that stayed idle for the pool's idle
// timeout (kRelease). Provisioned capacity — including nodes still booting and failed
// nodes not yet handed back — is what the ledger charges for.
//
// Live capacity (a backend that powers nodes, src/drivers/driver.h): the backend reports
// what it sees of an on-demand node's power (observe_power), whether or not the engine asked
// for it — a node found up at start, a power-up that failed, a node powered down outside
// frugal. A node whose power-up failed is kUnavailable: neither provisioned nor offered to the
// autoscaler, until the backend sees it powered down again (an operator brought it back).
//
// Owned by the Engine; not thread-safe.

#include <functional>
#include <set>
#include <vector>

#include "cluster/cluster_state.h"
#include "framework/capacity_view.h"
#include "framework/decision.h"

namespace frugal {

enum class NodeLife : uint8_t { kUp, kFailed, kUnprovisioned, kProvisioning, kUnavailable };

// An on-demand node's power as a backend sees it.
enum class NodePower : uint8_t {
  kOff,      // powered down (or powering down)
  kBooting,  // power-up requested or in progress
  kOn,       // up and registered
  kFailed,   // did not come up (e.g. Slurm's ResumeTimeout passed); stays so until repaired
};

class NodePool final : public CapacityView {
 public:
  // `static_capacity`: treat on-demand nodes as always provisioned (no autoscaling).
  NodePool(const ClusterSpec& spec, ClusterState& state, bool static_capacity);

  NodeLife life(NodeId n) const { return life_[n]; }
  bool autoscaled() const override { return autoscaled_; }
  bool usable(NodeId n) const override { return life_[n] == NodeLife::kUp; }
  // Provisioned GPUs per cost centre (ClusterState::centre_*), for the ledger.
  const std::vector<int64_t>& provisioned_gpus() const { return provisioned_; }
  // Provisioned nodes per cost centre (as provisioned_gpus counts their GPUs).
  const std::vector<int64_t>& provisioned_nodes() const { return provisioned_nodes_; }
  // Of those, GPUs on nodes still booting (requested, not yet usable), per cost centre.
  const std::vector<int64_t>& booting_gpus() const { return booting_; }

  // Transitions driven by events. Each returns false (and changes nothing) when the node
  // is not in a state where the event applies.
  bool fail(NodeId n);                      // kUp → kFailed
  bool repair(NodeId n, Seconds now);       // kFailed → kUp (idle from now if no jobs)
  bool provisioned(NodeId n, Seconds now);  // kProvisioning → kUp (idle from now)
  // What the backend sees of on-demand node n's power (no effect on other nodes):
  //   kOn      kProvisioning, kUnprovisioned, kUnavailable → kUp (idle from now)
  //   kBooting kUnprovisioned, kUnavailable → kProvisioning (powered up outside frugal)
  //   kOff     kUp, kFailed, kProvisioning, kUnavailable → kUnprovisioned
  //   kFailed  kUp, kProvisioning, kUnprovisioned → kUnavailable
  // Returns whether n's life changed. The caller stops n's jobs first (Engine::node_power).
  bool observe_power(NodeId n, NodePower p, Seconds now);
  // The provider took spot node n back: kUp, kFailed or kProvisioning → kUnprovisioned
  // (it may be provisioned again later). Jobs on it must have been stopped by the caller.
  bool reclaim(NodeId n);
  bool spot(NodeId n) const { return spec_.pools[spec_.nodes[n].pool].capacity == Capacity::kSpot; }

  // Jobs arriving on / leaving a node (for idle timers).
  void busy(NodeId n);
  void idle(NodeId n, Seconds now);

  // Prompt release (profile option +release): an idle on-demand node is handed back at the
  // next plan() instead of after its pool's idle timeout, unless plan() is told of deferred
  // work due within that timeout (then it waits out the timeout as usual). Off by default.
  void set_prompt_release(bool on) { prompt_release_ = on; }

  // One autoscaling step. `demand[m]` = GPUs of model m that queued work needs and that
  // free capacity does not cover. Appends kProvision and kRelease decisions. Nodes of a
  // model are provisioned lowest `rank` first (ties → node id); without `rank`, by node id.
  // `deferred_due`: the earliest time a deferred job becomes due (kNever: none); only prompt
  // release looks at it.
  void plan(Seconds now, const std::vector<double>& demand_by_model, std::vector<Decision>& out,
            const std::function<double(NodeId)>& rank = {}, Seconds deferred_due = kNever);
  // Earliest idle-timeout expiry (kNever if none).
  Seconds next_wakeup() const;
  // GPUs of model m on nodes currently booting.
  int64_t provisioning_gpus(GpuModelId m) const;
  // GPUs of model m on on-demand nodes not provisioned (what the autoscaler could still add).
  int64_t unprovisioned_gpus(GpuModelId m) const override;
  bool on_demand(NodeId n) const override { return on_demand_[n]; }
  // Whether the cluster has autoscaled on-demand nodes of model m.
  bool has_on_demand(GpuModelId m) const override {
    const size_t i = static_cast<size_t>(m + 1);
    return i < has_on_demand_.size() && has_on_demand_[i];
  }

 private:
  void set_life(NodeId n, NodeLife l);
  // Starts n's idle timer at `now` (at once under prompt release).
  void start_idle(NodeId n, Seconds now);
  Seconds timeout(NodeId n) const { return spec_.pools[spec_.nodes[n].pool].idle_timeout_s; }

  const ClusterSpec& spec_;
  ClusterState& state_;
  bool autoscaled_ = false;
  bool prompt_release_ = false;
  std::vector<NodeLife> life_;
  std::vector<char> on_demand_;
  std::vector<int> jobs_on_;                         // running jobs per node
  std::set<std::pair<Seconds, NodeId>> idle_until_;  // release deadlines of idle on-demand nodes
  std::vector<Seconds> idle_key_;                    // per node: its key in idle_until_
  std::vector<Seconds> idle_since_;                  // per node: when it last became idle
  std::vector<int64_t> provisioned_;                 // per centre
  std::vector<int64_t> provisioned_nodes_;           // per centre
  std::vector<int64_t> booting_;                     // per centre
  std::vector<int64_t> booting_by_model_;            // per catalog model id + 1
  std::vector<std::set<NodeId>> unprovisioned_;      // per catalog model id + 1
  std::vector<int64_t> unprovisioned_gpus_;          // their GPUs, per catalog model id + 1
  std::vector<char> has_on_demand_;                  // per catalog model id + 1
};

}  // namespace frugal
