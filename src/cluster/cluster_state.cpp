#include "cluster/cluster_state.h"

#include <fmt/format.h>
#include <algorithm>

namespace frugal {
namespace {
const std::set<NodeId> kEmptySet;
}

ClusterState::ClusterState(const ClusterSpec& spec, const GpuCatalog& catalog)
    : spec_(std::make_shared<ClusterSpec>(spec)) {
  const size_t n = spec_->nodes.size();
  nodes_.resize(n);
  offset_.resize(n + 1);
  gpu_mem_.resize(n);
  model_slot_.assign(catalog.size() + 1, -1);
  uint32_t off = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeSpec& ns = spec_->nodes[i];
    offset_[i] = off;
    off += static_cast<uint32_t>(ns.gpus);
    gpu_mem_[i] = ns.model == kNoGpuModel ? 0 : catalog.at(ns.model).memory_mib;
    nodes_[i].cpu_free = ns.cpu_milli;
    nodes_[i].mem_free = ns.memory_mib;
    nodes_[i].free_whole = ns.gpus;
    if (ns.model != kNoGpuModel && ns.gpus > 0 && model_slot_[ns.model + 1] < 0) {
      model_slot_[ns.model + 1] = 0;  // marked; slots assigned below in id order
    }
    capacity_gpus_ += ns.gpus;
  }
  offset_[n] = off;
  for (size_t m = 0; m < catalog.size(); ++m) {
    if (model_slot_[m + 1] < 0) continue;
    model_slot_[m + 1] = static_cast<int>(models_.size());
    models_.push_back(static_cast<GpuModelId>(m));
  }
  node_centre_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const NodeSpec& ns = spec_->nodes[i];
    const GpuModelId m = ns.gpus > 0 ? ns.model : kNoGpuModel;
    uint32_t c = 0;
    while (c < centre_pool_.size() && (centre_pool_[c] != ns.pool || centre_model_[c] != m)) ++c;
    if (c == centre_pool_.size()) {
      centre_pool_.push_back(ns.pool);
      centre_model_.push_back(m);
      centre_nodes_free_.emplace_back();
    }
    node_centre_[i] = c;
    auto& counts = centre_nodes_free_[c];
    if (counts.size() <= static_cast<size_t>(ns.gpus)) counts.resize(ns.gpus + 1, 0);
  }
  centre_up_gpus_.assign(centre_pool_.size(), 0);
  centre_alloc_.assign(centre_pool_.size(), 0);
  centre_version_.assign(centre_pool_.size(), 0);
  max_per_node_.assign(models_.size(), 0);
  for (const auto& ns : spec_->nodes)
    if (ns.model != kNoGpuModel && ns.gpus > 0)
      max_per_node_[slot_of(ns.model)] = std::max(max_per_node_[slot_of(ns.model)], ns.gpus);
  free_buckets_.resize(models_.size());
  for (size_t s = 0; s < models_.size(); ++s) free_buckets_[s].resize(max_per_node_[s] + 1);
  shared_.resize(models_.size());
  free_whole_by_slot_.assign(models_.size(), 0);
  gpu_free_milli_.assign(off, kMilliPerGpu);
  gpu_free_mem_.resize(off);
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t g = offset_[i]; g < offset_[i + 1]; ++g) gpu_free_mem_[g] = gpu_mem_[i];
    index(static_cast<NodeId>(i));
    centre_up_gpus_[node_centre_[i]] += spec_->nodes[i].gpus;
  }
  up_gpus_ = capacity_gpus_;
}

void ClusterState::set_takes(NodeId n, Tier t) {
  if (takes_.empty()) {
    if (t == Tier::kGeneral) return;
    takes_.assign(nodes_.size(), Tier::kGeneral);
  }
  takes_[n] = t;
}

bool ClusterState::host_fits(NodeId n, const JobSpec& job) const {
  return admits(n, job) && host_room(n, job);
}

bool ClusterState::host_room(NodeId n, const JobSpec& job) const {
  const NodeSpec& ns = spec_->nodes[n];
  if (job.cpu_milli > 0 && ns.cpu_milli > 0 && nodes_[n].cpu_free < job.cpu_milli) return false;
  if (job.memory_mib > 0 && ns.memory_mib > 0 && nodes_[n].mem_free < job.memory_mib) return false;
  return true;
}

int ClusterState::max_gpus_per_node(GpuModelId m) const {
  if (m == kNoGpuModel || static_cast<size_t>(m + 1) >= model_slot_.size()) return 0;
  const int s = slot_of(m);
  return s < 0 ? 0 : max_per_node_[s];
}

const std::set<NodeId>& ClusterState::nodes_with_free(GpuModelId m, int k) const {
  const int s = m == kNoGpuModel ? -1 : slot_of(m);
  if (s < 0 || k < 0 || k > max_per_node_[s]) return kEmptySet;
  return free_buckets_[s][k];
}

const std::set<NodeId>& ClusterState::shared_nodes(GpuModelId m) const {
  const int s = m == kNoGpuModel ? -1 : slot_of(m);
  return s < 0 ? kEmptySet : shared_[s];
}

int64_t ClusterState::free_whole_of(GpuModelId m) const {
  const int s = m == kNoGpuModel ? -1 : slot_of(m);
  return s < 0 ? 0 : free_whole_by_slot_[s];
}

int64_t ClusterState::centre_free_below(uint32_t c, int k) const {
  const auto& counts = centre_nodes_free_[c];
  int64_t free = 0;
  for (int j = 1; j < k && j < static_cast<int>(counts.size()); ++j) free += j * counts[j];
  return free;
}

void ClusterState::unindex(NodeId n) {
  const NodeSpec& ns = spec_->nodes[n];
  if (!nodes_[n].up) return;
  --centre_nodes_free_[node_centre_[n]][nodes_[n].free_whole];
  ++centre_version_[node_centre_[n]];
  if (ns.model == kNoGpuModel || ns.gpus == 0) return;
  const int s = slot_of(ns.model);
  free_buckets_[s][nodes_[n].free_whole].erase(n);
  if (nodes_[n].shared > 0) shared_[s].erase(n);
  free_whole_by_slot_[s] -= nodes_[n].free_whole;
  free_whole_total_ -= nodes_[n].free_whole;
}

void ClusterState::index(NodeId n) {
  const NodeSpec& ns = spec_->nodes[n];
  if (!nodes_[n].up) return;
  ++centre_nodes_free_[node_centre_[n]][nodes_[n].free_whole];
  ++centre_version_[node_centre_[n]];
  if (ns.model == kNoGpuModel || ns.gpus == 0) return;
  const int s = slot_of(ns.model);
  free_buckets_[s][nodes_[n].free_whole].insert(n);
  if (nodes_[n].shared > 0) shared_[s].insert(n);
  free_whole_by_slot_[s] += nodes_[n].free_whole;
  free_whole_total_ += nodes_[n].free_whole;
}

int64_t ClusterState::gpu_mem_need(const JobSpec& job, NodeId n, Milli milli) const {
  if (milli >= kMilliPerGpu) return gpu_mem_[n];
  return job.gpu_memory_mib;
}

Status ClusterState::allocate(const Placement& p, const JobSpec& job) {
  // Validate first so that a failure changes nothing.
  NodeId last = static_cast<NodeId>(-1);
  const Slot* prev = nullptr;
  for (const Slot& s : p.slots) {
    if (s.node >= nodes_.size()) return Error{fmt::format("node {} does not exist", s.node)};
    if (prev && (s.node < prev->node || (s.node == prev->node && s.gpu <= prev->gpu)))
      return Error{"placement slots are not in strictly increasing (node, gpu) order"};
    prev = &s;
    if (!nodes_[s.node].up) return Error{fmt::format("node {} is down", spec_->nodes[s.node].name)};
    if (s.node != last) {
      // The guard, not takes(): a job kept out of new placements there may still resume.
      if ((guard_ && !guard_->admits(s.node, job)) || !host_room(s.node, job))
        return Error{fmt::format("node {} lacks CPU or memory, or does not admit the job",
                                 spec_->nodes[s.node].name)};
      last = s.node;
    }
    if (s.gpu < 0) continue;
    if (s.gpu >= spec_->nodes[s.node].gpus || s.milli <= 0 || s.milli > kMilliPerGpu)
      return Error{fmt::format("bad slot on node {}", spec_->nodes[s.node].name)};
    const uint32_t g = offset_[s.node] + static_cast<uint32_t>(s.gpu);
    if (gpu_free_milli_[g] < s.milli || gpu_free_mem_[g] < gpu_mem_need(job, s.node, s.milli))
      return Error{
          fmt::format("GPU {} of node {} is over-committed", s.gpu, spec_->nodes[s.node].name)};
  }
  last = static_cast<NodeId>(-1);
  for (const Slot& s : p.slots) {
    if (s.node != last) {
      if (last != static_cast<NodeId>(-1)) index(last);
      unindex(s.node);
      nodes_[s.node].cpu_free -= job.cpu_milli;
      nodes_[s.node].mem_free -= job.memory_mib;
      last = s.node;
    }
    if (s.gpu < 0) continue;
    const uint32_t g = offset_[s.node] + static_cast<uint32_t>(s.gpu);
    const Milli before = gpu_free_milli_[g];
    gpu_free_milli_[g] -= s.milli;
    gpu_free_mem_[g] -= gpu_mem_need(job, s.node, s.milli);
    allocated_milli_ += s.milli;
    centre_alloc_[node_centre_[s.node]] += s.milli;
    NodeState& ns = nodes_[s.node];
    if (before == kMilliPerGpu) --ns.free_whole;
    const bool was_shared = before > 0 && before < kMilliPerGpu;
    const bool is_shared = gpu_free_milli_[g] > 0 && gpu_free_milli_[g] < kMilliPerGpu;
    ns.shared += static_cast<int>(is_shared) - static_cast<int>(was_shared);
  }
  if (last != static_cast<NodeId>(-1)) index(last);
  return Status::Ok();
}

void ClusterState::release(const Placement& p, const JobSpec& job) {
  NodeId last = static_cast<NodeId>(-1);
  for (const Slot& s : p.slots) {
    if (s.node != last) {
      if (last != static_cast<NodeId>(-1)) index(last);
      unindex(s.node);
      nodes_[s.node].cpu_free += job.cpu_milli;
      nodes_[s.node].mem_free += job.memory_mib;
      last = s.node;
    }
    if (s.gpu < 0) continue;
    const uint32_t g = offset_[s.node] + static_cast<uint32_t>(s.gpu);
    const Milli before = gpu_free_milli_[g];
    gpu_free_milli_[g] += s.milli;
    gpu_free_mem_[g] += gpu_mem_need(job, s.node, s.milli);
    allocated_milli_ -= s.milli;
    centre_alloc_[node_centre_[s.node]] -= s.milli;
    NodeState& ns = nodes_[s.node];
    if (gpu_free_milli_[g] == kMilliPerGpu) ++ns.free_whole;
    const bool was_shared = before > 0 && before < kMilliPerGpu;
    const bool is_shared = gpu_free_milli_[g] > 0 && gpu_free_milli_[g] < kMilliPerGpu;
    ns.shared += static_cast<int>(is_shared) - static_cast<int>(was_shared);
  }
  if (last != static_cast<NodeId>(-1)) index(last);
}

void ClusterState::set_up(NodeId n, bool is_up) {
  if (nodes_[n].up == is_up) return;
  if (!is_up) {
    unindex(n);
    nodes_[n].up = false;
    up_gpus_ -= spec_->nodes[n].gpus;
    centre_up_gpus_[node_centre_[n]] -= spec_->nodes[n].gpus;
  } else {
    nodes_[n].up = true;
    index(n);
    up_gpus_ += spec_->nodes[n].gpus;
    centre_up_gpus_[node_centre_[n]] += spec_->nodes[n].gpus;
  }
}

std::string ClusterState::check_node_gpus(NodeId n, int64_t& alloc, int& whole, int& shared) const {
  const NodeSpec& ns = spec_->nodes[n];
  for (uint32_t g = offset_[n]; g < offset_[n + 1]; ++g) {
    const Milli f = gpu_free_milli_[g];
    if (f < 0 || f > kMilliPerGpu)
      return fmt::format("node {} GPU {} free milli {} out of range", ns.name, g - offset_[n], f);
    if (gpu_free_mem_[g] < 0 || gpu_free_mem_[g] > gpu_mem_[n])
      return fmt::format("node {} GPU {} free memory out of range", ns.name, g - offset_[n]);
    alloc += kMilliPerGpu - f;
    whole += f == kMilliPerGpu;
    shared += f > 0 && f < kMilliPerGpu;
  }
  return {};
}

std::string ClusterState::check_node(NodeId n, int64_t& alloc, int64_t& free_total,
                                     std::vector<int64_t>& by_slot) const {
  const NodeSpec& ns = spec_->nodes[n];
  int whole = 0, shared = 0;
  if (std::string e = check_node_gpus(n, alloc, whole, shared); !e.empty()) return e;
  if (whole != nodes_[n].free_whole) return fmt::format("node {} free_whole mismatch", ns.name);
  if (shared != nodes_[n].shared) return fmt::format("node {} shared count mismatch", ns.name);
  if ((ns.cpu_milli > 0 && (nodes_[n].cpu_free < 0 || nodes_[n].cpu_free > ns.cpu_milli)) ||
      (ns.memory_mib > 0 && (nodes_[n].mem_free < 0 || nodes_[n].mem_free > ns.memory_mib)))
    return fmt::format("node {} host resources out of range", ns.name);
  if (ns.model == kNoGpuModel || ns.gpus == 0) return {};
  const int s = slot_of(ns.model);
  const bool in_bucket = free_buckets_[s][whole].count(n) > 0;
  const bool in_shared = shared_[s].count(n) > 0;
  if (!nodes_[n].up)
    return in_bucket || in_shared ? fmt::format("down node {} is indexed", ns.name) : "";
  if (!in_bucket) return fmt::format("node {} missing from its free bucket", ns.name);
  if (in_shared != (shared > 0)) return fmt::format("node {} shared index wrong", ns.name);
  by_slot[s] += whole;
  free_total += whole;
  return {};
}

std::string ClusterState::check_centres() const {
  std::vector<int64_t> by_centre(centre_pool_.size(), 0), up(centre_pool_.size(), 0);
  std::vector<std::vector<int64_t>> counts(centre_pool_.size());
  for (size_t c = 0; c < counts.size(); ++c) counts[c].assign(centre_nodes_free_[c].size(), 0);
  for (NodeId n = 0; n < nodes_.size(); ++n) {
    const uint32_t c = node_centre_[n];
    for (uint32_t g = offset_[n]; g < offset_[n + 1]; ++g)
      by_centre[c] += kMilliPerGpu - gpu_free_milli_[g];
    if (nodes_[n].up) {
      up[c] += spec_->nodes[n].gpus;
      ++counts[c][nodes_[n].free_whole];
    }
  }
  if (by_centre != centre_alloc_) return "allocated milli by centre mismatch";
  if (up != centre_up_gpus_) return "up GPUs by centre mismatch";
  if (counts != centre_nodes_free_) return "free-count histogram by centre mismatch";
  return {};
}

std::string ClusterState::check_slots(const std::vector<int64_t>& by_slot) const {
  for (size_t s = 0; s < models_.size(); ++s) {
    if (by_slot[s] != free_whole_by_slot_[s]) return "free whole by model mismatch";
    size_t indexed = 0;
    for (const auto& b : free_buckets_[s]) indexed += b.size();
    size_t expect = 0;
    for (NodeId n = 0; n < nodes_.size(); ++n)
      expect += nodes_[n].up && spec_->nodes[n].gpus > 0 && spec_->nodes[n].model == models_[s];
    if (indexed != expect) return "bucket index has stale entries";
  }
  return {};
}

std::string ClusterState::check_invariants() const {
  int64_t alloc = 0, free_total = 0;
  std::vector<int64_t> by_slot(models_.size(), 0);
  for (NodeId n = 0; n < nodes_.size(); ++n)
    if (std::string e = check_node(n, alloc, free_total, by_slot); !e.empty()) return e;
  if (alloc != allocated_milli_) return "allocated milli mismatch";
  if (std::string e = check_centres(); !e.empty()) return e;
  if (free_total != free_whole_total_) return "free whole total mismatch";
  return check_slots(by_slot);
}

void ClusterState::set_region_series(uint32_t r, const HourlySeries& electricity,
                                     const HourlySeries& carbon, const HourlySeries& offpeak) {
  Region& region = spec_->regions.at(r);
  region.electricity_usd_per_mwh = electricity;
  region.carbon_g_per_kwh = carbon;
  region.offpeak = offpeak;
}

}  // namespace frugal
