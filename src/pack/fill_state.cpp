#include "pack/fill_state.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "pack/filter.h"

namespace frugal::pack {
namespace {

struct ClassKey {
  int64_t cpu;
  int num_gpu;
  int32_t milli;
  uint64_t mask;
  bool operator==(const ClassKey&) const = default;
};
struct ClassKeyHash {
  size_t operator()(const ClassKey& k) const {
    uint64_t h = static_cast<uint64_t>(k.cpu) * 0x9E3779B97F4A7C15ull;
    h ^= (static_cast<uint64_t>(k.milli) << 8 | static_cast<uint64_t>(k.num_gpu)) + (h << 6);
    h ^= k.mask * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

// Each pod's class: pods equal in (cpu, num_gpu, milli, model mask) share one, numbered in
// order of first appearance. `classes`: how many there are.
std::vector<int> pod_classes(const std::vector<Pod>& sequence, size_t& classes) {
  std::unordered_map<ClassKey, int, ClassKeyHash> class_of;
  std::vector<int> pod_class(sequence.size());
  for (size_t i = 0; i < sequence.size(); ++i) {
    const Pod& p = sequence[i];
    auto [it, added] = class_of.try_emplace(ClassKey{p.cpu, p.num_gpu, p.milli, p.model_mask},
                                            static_cast<int>(class_of.size()));
    pod_class[i] = it->second;
  }
  classes = class_of.size();
  return pod_class;
}

}  // namespace

FillState::FillState(const std::vector<NodeSpec>& nodes, const std::vector<int>& rank,
                     const std::vector<Pod>& sequence, Policy policy, FragMemo& metric,
                     FragMemo* scoring, bool track)
    : seq_(&sequence),
      policy_(policy),
      memo_(scoring ? scoring : &metric),
      metric_(&metric),
      split_(memo_ != metric_),
      track_(track) {
  const size_t n = nodes.size();
  std::vector<size_t> by_rank(n);
  for (size_t i = 0; i < n; ++i) by_rank[static_cast<size_t>(rank[i])] = i;
  spec_.resize(n);
  st_.resize(n);
  metric_frag_.resize(n);
  if (track_) on_.resize(n);
  for (size_t r = 0; r < n; ++r) {
    spec_[r] = &nodes[by_rank[r]];
    st_[r] = initial_state(*spec_[r]);
    st_[r].frag = (*memo_)(st_[r]);
    metric_frag_[r] = split_ ? (*metric_)(st_[r]) : st_[r].frag;
    idle_ += st_[r].gpu_left();
    frag_ += metric_frag_[r];
    total_gpus_ += st_[r].num_gpu;
  }
  size_t classes = 0;
  pod_class_ = pod_classes(sequence, classes);
  cache_.resize(classes * n);
}

int64_t FillState::score(size_t r, size_t i, bool gpu_rules) {
  const NodeState& s = st_[r];
  const Pod& p = (*seq_)[i];
  if (!mem_pods_fit(s, p)) return kInfeasible;
  CacheEntry& e = cache_[static_cast<size_t>(pod_class_[i]) * st_.size() + r];
  if (e.version != s.version) {
    e.score = score_node(policy_, s, p, *memo_, gpu_rules);
    if (policy_ == Policy::kFgdAlt && e.score != kInfeasible)
      e.score = e.score * (int64_t{1} << 32) + alt_tie(r);
    e.version = s.version;
  }
  return e.score;
}

size_t FillState::best(size_t i, bool gpu_rules, size_t skip) {
  size_t chosen = st_.size();
  int64_t top = kInfeasible;
  for (size_t r = 0; r < st_.size(); ++r) {
    if (r == skip) continue;
    const int64_t s = score(r, i, gpu_rules);
    if (s > top) {
      top = s;
      chosen = r;
    }
  }
  return chosen;
}

void FillState::account(size_t r, int sign) {
  if (sign < 0) {
    idle_ -= st_[r].gpu_left();
    frag_ -= metric_frag_[r];
  } else {
    idle_ += st_[r].gpu_left();
    frag_ += metric_frag_[r];
  }
}

void FillState::take(size_t r, const Pod& p, const GpuChoice& c, int sign) {
  NodeState& s = st_[r];
  account(r, -1);
  s.cpu_left -= sign * p.cpu;
  s.mem_left -= sign * p.mem;
  s.pods += sign;
  for (int k = 0; k < c.n; ++k)
    s.free[static_cast<size_t>(c.ids[static_cast<size_t>(k)])] -= sign * p.milli;
  const int tag = affinity_tag(p);
  if (tag >= 0) s.affinity[static_cast<size_t>(tag)] += sign;
  s.version += 1;
  s.frag = (*memo_)(s);
  metric_frag_[r] = split_ ? (*metric_)(s) : s.frag;
  account(r, +1);
}

void FillState::place(size_t r, size_t i, PolicyRng& rng, bool gpu_rules) {
  const Pod& p = (*seq_)[i];
  const GpuChoice c = select_gpus(policy_, st_[r], p, *memo_, rng, gpu_rules);
  take(r, p, c, +1);
  if (track_) on_[r].push_back(Placed{static_cast<uint32_t>(i), c});
}

Placed FillState::remove(size_t r, size_t k) {
  std::vector<Placed>& list = on_[r];
  const Placed out = list[k];
  list.erase(list.begin() + static_cast<std::ptrdiff_t>(k));
  take(r, (*seq_)[out.pod], out.cards, -1);
  return out;
}

void FillState::clear_cache() {
  std::fill(cache_.begin(), cache_.end(), CacheEntry{});
}

FillState::Saved FillState::save(size_t r) const {
  return Saved{r, st_[r], metric_frag_[r], track_ ? on_[r] : std::vector<Placed>{}};
}

double FillState::frag_growth(std::span<const Saved> saved) const {
  double d = 0;
  for (const Saved& s : saved) d += st_[s.r].frag - s.state.frag;
  return d;
}

void FillState::restore(const Saved& s) {
  account(s.r, -1);
  const uint32_t version = st_[s.r].version;
  st_[s.r] = s.state;
  st_[s.r].version = version + 1;
  metric_frag_[s.r] = s.metric_frag;
  if (track_) on_[s.r] = s.on;
  account(s.r, +1);
}

}  // namespace frugal::pack
