#pragma once
// Live allocation state of a cluster: per-GPU free milli-capacity and memory, per-node
// free CPU and memory, node health, and the indexes that keep placement fast on large
// clusters: for every GPU model, the up nodes bucketed by their count of wholly free GPUs,
// and the up nodes that hold a partly used (shared) GPU.
//
// Not thread-safe; owned by one engine. allocate()/release() take placements produced
// against this state; allocate() verifies capacity and returns an Error instead of
// over-committing.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cluster/node_guard.h"
#include "cluster/placement.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "model/result.h"

namespace frugal {

class ClusterState {
 public:
  ClusterState(const ClusterSpec& spec, const GpuCatalog& catalog);

  const ClusterSpec& spec() const { return *spec_; }
  // Region `r`'s hourly series are replaced (a live service's calendar moved on: engine
  // price-change event). Nothing else of the spec changes; copies of this state share the
  // spec and see the new series too.
  void set_region_series(uint32_t r, const HourlySeries& electricity, const HourlySeries& carbon,
                         const HourlySeries& offpeak);
  size_t node_count() const { return nodes_.size(); }

  // --- per-node and per-GPU views ---
  bool up(NodeId n) const { return nodes_[n].up; }
  GpuModelId model(NodeId n) const { return spec_->nodes[n].model; }
  int gpus(NodeId n) const { return spec_->nodes[n].gpus; }
  int free_whole(NodeId n) const { return nodes_[n].free_whole; }
  Milli free_milli(NodeId n, int gpu) const { return gpu_free_milli_[offset_[n] + gpu]; }
  int64_t free_gpu_memory(NodeId n, int gpu) const { return gpu_free_mem_[offset_[n] + gpu]; }
  int64_t gpu_memory(NodeId n) const { return gpu_mem_[n]; }
  // True when the node may take the job (admits()) and has room for its host CPU and
  // memory share.
  bool host_fits(NodeId n, const JobSpec& job) const;
  // Whether new work of `job` may go to node n: the state's node guard (cluster/node_guard.h;
  // none: every node) admits it and the node takes its tier (takes()).
  bool admits(NodeId n, const JobSpec& job) const {
    return (!guard_ || guard_->admits(n, job)) && job.tier <= takes(n);
  }
  // A placement limit that telemetry put on node n (the engine's Health point,
  // framework/telemetry.h): the least important tier it takes new work of; kGeneral (every
  // tier) unless set. Unlike the guard it changes over time, so only placement honours it:
  // allocate() accepts a job the limit keeps out (a running job resuming where it was).
  Tier takes(NodeId n) const { return takes_.empty() ? Tier::kGeneral : takes_[n]; }
  void set_takes(NodeId n, Tier t);
  // Sets the node guard (nullptr: none). Copies made afterwards share it.
  void set_guard(std::shared_ptr<const NodeGuard> guard) { guard_ = std::move(guard); }
  int64_t cpu_free(NodeId n) const { return nodes_[n].cpu_free; }
  int64_t mem_free(NodeId n) const { return nodes_[n].mem_free; }

  // --- indexes (up nodes only) ---
  // Distinct GPU models present in the cluster, in catalog-id order.
  const std::vector<GpuModelId>& models() const { return models_; }
  int max_gpus_per_node(GpuModelId m) const;
  // Up nodes of model m with exactly k wholly free GPUs (k in 0..max_gpus_per_node(m)).
  const std::set<NodeId>& nodes_with_free(GpuModelId m, int k) const;
  // Up nodes of model m with at least one partly used GPU.
  const std::set<NodeId>& shared_nodes(GpuModelId m) const;
  // Sum of wholly free GPUs of model m on up nodes.
  int64_t free_whole_of(GpuModelId m) const;

  // --- cost centres: one per (pool, GPU model) pair present; CPU-only nodes form their
  // own centre per pool. Costs are priced per centre (src/cost). ---
  size_t centre_count() const { return centre_pool_.size(); }
  uint32_t centre_of(NodeId n) const { return node_centre_[n]; }
  uint32_t centre_pool(uint32_t c) const { return centre_pool_[c]; }
  GpuModelId centre_model(uint32_t c) const { return centre_model_[c]; }
  // GPUs of the centre on up nodes, and milli-GPU allocated on them.
  int64_t centre_up_gpus(uint32_t c) const { return centre_up_gpus_[c]; }
  int64_t centre_allocated_milli(uint32_t c) const { return centre_alloc_[c]; }
  // Changes whenever anything in the centre changes (allocation, release, node up/down):
  // consumers cache derived figures against it.
  uint64_t centre_version(uint32_t c) const { return centre_version_[c]; }
  // Wholly free GPUs of the centre on up nodes that have fewer than `k` of them free.
  int64_t centre_free_below(uint32_t c, int k) const;

  // --- totals ---
  int64_t capacity_gpus() const { return capacity_gpus_; }  // all nodes, up or down
  int64_t up_gpus() const { return up_gpus_; }
  int64_t allocated_milli() const { return allocated_milli_; }
  int64_t free_whole_total() const { return free_whole_total_; }

  // --- mutation ---
  // Applies `p` for `job`. Fails (changing nothing) if any slot exceeds free capacity,
  // memory or host resources, or targets a down node.
  Status allocate(const Placement& p, const JobSpec& job);
  // Returns the resources of a placement previously allocated for `job`.
  void release(const Placement& p, const JobSpec& job);
  // Marks a node down/up. Allocations on a down node stay until released.
  void set_up(NodeId n, bool up);

  // Recomputes every counter and index from scratch and compares; returns a description of
  // the first inconsistency or an empty string. O(cluster); for tests and debug builds.
  std::string check_invariants() const;

 private:
  struct NodeState {
    bool up = true;
    int free_whole = 0;
    int64_t cpu_free = 0;
    int64_t mem_free = 0;
    int shared = 0;  // count of partly used GPUs
  };
  int slot_of(GpuModelId m) const { return model_slot_[static_cast<size_t>(m + 1)]; }
  void unindex(NodeId n);
  void index(NodeId n);
  int64_t gpu_mem_need(const JobSpec& job, NodeId n, Milli milli) const;
  // Room for the job's host CPU and memory share on node n.
  bool host_room(NodeId n, const JobSpec& job) const;
  // check_invariants()'s parts, each returning the first inconsistency or "". One node:
  // its GPUs (adding their allocated milli to `alloc`, counting its whole free and shared
  // GPUs), counters and indexes, adding an up node's whole free GPUs to `free_total` and
  // `by_slot`.
  std::string check_node_gpus(NodeId n, int64_t& alloc, int& whole, int& shared) const;
  std::string check_node(NodeId n, int64_t& alloc, int64_t& free_total,
                         std::vector<int64_t>& by_slot) const;
  std::string check_centres() const;  // per-centre counters against a recount
  std::string check_slots(const std::vector<int64_t>& by_slot) const;  // per-model indexes

  // Immutable after construction; copies of the state (tentative plans) share it.
  std::shared_ptr<ClusterSpec> spec_;
  std::shared_ptr<const NodeGuard> guard_;  // shared by copies too
  std::vector<Tier> takes_;                 // per node (empty: every node takes every tier)
  std::vector<NodeState> nodes_;
  std::vector<uint32_t> offset_;  // first GPU of each node in the flat arrays
  std::vector<Milli> gpu_free_milli_;
  std::vector<int64_t> gpu_free_mem_;
  std::vector<int64_t> gpu_mem_;  // per node: memory of one card

  std::vector<GpuModelId> models_;
  std::vector<int> model_slot_;                              // GpuModelId+1 → slot (or -1)
  std::vector<int> max_per_node_;                            // per slot
  std::vector<std::vector<std::set<NodeId>>> free_buckets_;  // [slot][k]
  std::vector<std::set<NodeId>> shared_;                     // [slot]
  std::vector<int64_t> free_whole_by_slot_;

  std::vector<uint32_t> node_centre_;
  std::vector<uint32_t> centre_pool_;
  std::vector<GpuModelId> centre_model_;
  std::vector<int64_t> centre_up_gpus_;
  std::vector<int64_t> centre_alloc_;
  std::vector<uint64_t> centre_version_;
  std::vector<std::vector<int64_t>> centre_nodes_free_;  // [centre][k]: up nodes with k free

  int64_t capacity_gpus_ = 0;
  int64_t up_gpus_ = 0;
  int64_t allocated_milli_ = 0;
  int64_t free_whole_total_ = 0;
};

}  // namespace frugal
