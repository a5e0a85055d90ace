#include "pack/fill_engine.h"

#include <algorithm>
#include <random>
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

struct CacheEntry {
  int64_t score = 0;
  uint32_t version = 0;  // node version the score was computed at; 0 = never
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

// The random policy's node among n by score_of(r) (kInfeasible: not feasible): the k-th
// feasible one in rank order, k drawn from `rng`; n when none is feasible.
template <class Score>
size_t choose_random(size_t n, const Score& score_of, PolicyRng& rng) {
  size_t feasible = 0;
  for (size_t r = 0; r < n; ++r) feasible += score_of(r) != kInfeasible;
  if (feasible == 0) return n;
  auto k = static_cast<size_t>(
      feasible == 1 && rng.is_go() ? 0 : rng.below(static_cast<int64_t>(feasible)));
  for (size_t r = 0; r < n; ++r)
    if (score_of(r) != kInfeasible && k-- == 0) return r;
  return n;
}

// The best-scoring feasible node among n, the lowest rank on ties; n when none is feasible.
template <class Score>
size_t choose_best(size_t n, const Score& score_of) {
  size_t chosen = n;
  int64_t best = kInfeasible;
  for (size_t r = 0; r < n; ++r) {
    const int64_t s = score_of(r);
    if (s > best) {
      best = s;
      chosen = r;
    }
  }
  return chosen;
}

// Pod p's resources taken on node s, on the GPUs of c; the node's version moves on.
void take_pod(NodeState& s, const Pod& p, const GpuChoice& c) {
  s.cpu_left -= p.cpu;
  s.mem_left -= p.mem;
  s.pods += 1;
  for (int k = 0; k < c.n; ++k)
    s.free[static_cast<size_t>(c.ids[static_cast<size_t>(k)])] -= p.milli;
  const int tag = affinity_tag(p);
  if (tag >= 0) s.affinity[static_cast<size_t>(tag)] += 1;
  s.version += 1;
}

}  // namespace

FillEvents run_fill(const std::vector<NodeSpec>& nodes, const std::vector<int>& rank,
                    const std::vector<Pod>& sequence, Policy policy, FragMemo& metric,
                    PolicyRng rng, FragMemo* scoring) {
  FragMemo& memo = scoring ? *scoring : metric;  // the policy's own measure (NodeState::frag)
  const bool split = &memo != &metric;
  const size_t n = nodes.size();
  // States are stored in rank order: position r holds the node of rank r, so a strict '>'
  // scan keeps the lowest rank on ties.
  std::vector<size_t> by_rank(n);
  for (size_t i = 0; i < n; ++i) by_rank[static_cast<size_t>(rank[i])] = i;
  std::vector<NodeState> st(n);
  std::vector<double> metric_frag(n);  // F(node) under the metric's typical pods
  FillEvents ev;
  int64_t idle = 0;
  double frag = 0;
  for (size_t r = 0; r < n; ++r) {
    st[r] = initial_state(nodes[by_rank[r]]);
    st[r].frag = memo(st[r]);
    metric_frag[r] = split ? metric(st[r]) : st[r].frag;
    idle += st[r].gpu_left();
    frag += metric_frag[r];
    ev.total_gpus += st[r].num_gpu;
  }

  size_t classes = 0;
  const std::vector<int> pod_class = pod_classes(sequence, classes);
  std::vector<CacheEntry> cache(classes * n);

  ev.arrived_milli.reserve(sequence.size());
  ev.used_milli.reserve(sequence.size());
  ev.idle_milli.reserve(sequence.size());
  ev.frag_milli.reserve(sequence.size());
  int64_t arrived = 0, used = 0;
  // frugal's GPU-pod rules switch on once, when the arrived load passes the threshold; the
  // cached scores are then stale and dropped (version 0 = never computed).
  const auto rules_from =
      static_cast<int64_t>(kFrugalGpuRulesFrom * static_cast<double>(ev.total_gpus * kMilli));
  bool gpu_rules = policy != Policy::kFrugal;

  for (size_t i = 0; i < sequence.size(); ++i) {
    const Pod& p = sequence[i];
    arrived += p.total_milli();
    if (!gpu_rules && arrived > rules_from) {
      gpu_rules = true;
      std::fill(cache.begin(), cache.end(), CacheEntry{});
    }
    CacheEntry* row = &cache[static_cast<size_t>(pod_class[i]) * n];
    auto score_of = [&](size_t r) -> int64_t {
      NodeState& s = st[r];
      if (!mem_pods_fit(s, p)) return kInfeasible;
      CacheEntry& e = row[r];
      if (e.version != s.version) {
        e.score = score_node(policy, s, p, memo, gpu_rules);
        e.version = s.version;
      }
      return e.score;
    };
    const size_t chosen =
        policy == Policy::kRandom ? choose_random(n, score_of, rng) : choose_best(n, score_of);
    if (chosen == n) {
      ++ev.failed;
    } else {
      NodeState& s = st[chosen];
      const GpuChoice c = select_gpus(policy, s, p, memo, rng, gpu_rules);
      idle -= s.gpu_left();
      frag -= metric_frag[chosen];
      take_pod(s, p, c);
      s.frag = memo(s);
      metric_frag[chosen] = split ? metric(s) : s.frag;
      idle += s.gpu_left();
      frag += metric_frag[chosen];
      used += p.total_milli();
    }
    ev.arrived_milli.push_back(arrived);
    ev.used_milli.push_back(used);
    ev.idle_milli.push_back(idle);
    ev.frag_milli.push_back(frag);
  }
  return ev;
}

}  // namespace frugal::pack
