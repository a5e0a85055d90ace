// firstfit and bestfit placement over ClusterState's indexes.
#include <algorithm>

#include "policy/placer.h"

namespace frugal {
namespace {

enum class Fit { kFirst, kBest };

// A candidate node choice: ordering key (lower is better) and node.
struct Choice {
  long key = 0;
  NodeId node = 0;
  bool found = false;
  void offer(long k, NodeId n) {
    if (!found || k < key || (k == key && n < node)) {
      key = k;
      node = n;
      found = true;
    }
  }
};

// The first node of `set` that has room for the job's host share, or nullopt.
std::optional<NodeId> first_host_fit(const ClusterState& st, const std::set<NodeId>& set,
                                     const JobSpec& job) {
  for (NodeId n : set)
    if (st.host_fits(n, job)) return n;
  return std::nullopt;
}

void take_whole(const ClusterState& st, NodeId n, int count, Placement& p) {
  for (int g = 0; g < st.gpus(n) && count > 0; ++g) {
    if (st.free_milli(n, g) == kMilliPerGpu) {
      p.slots.push_back(Slot{n, static_cast<int16_t>(g), kMilliPerGpu});
      --count;
    }
  }
}

class FitPlacer final : public Placer {
 public:
  explicit FitPlacer(Fit fit) : fit_(fit) {}
  std::string name() const override { return fit_ == Fit::kFirst ? "firstfit" : "bestfit"; }

  std::optional<Placement> place(const ClusterState& st, const JobSpec& job,
                                 const Candidates& c) const override {
    if (job.gpus == 0) return place_host_only(st, job);
    // With a preferred model (listed first), take it whenever it fits.
    const bool prefer_first = job.preferred_model != kNoGpuModel && !c.models.empty() &&
                              c.models.front() == job.preferred_model;
    std::optional<Placement> best;
    long best_key = 0;
    for (size_t i = 0; i < c.models.size(); ++i) {
      const GpuModelId m = c.models[i];
      long key = 0;
      std::optional<Placement> p;
      if (job.fractional()) {
        p = place_fraction(st, job, m, key);
      } else if (job.gpus <= st.max_gpus_per_node(m)) {
        p = place_single_node(st, job, m, key);
      } else {
        p = place_multi_node(st, job, m, key);
      }
      if (!p) continue;
      if (prefer_first && i == 0) return p;
      if (!best || key < best_key) {
        best = std::move(p);
        best_key = key;
      }
    }
    return best;
  }

 private:
  // Key combines fit quality and node number so different models compare fairly.
  long make_key(long fit_quality, NodeId n) const {
    return fit_ == Fit::kFirst ? static_cast<long>(n) : fit_quality * (1L << 32) + n;
  }

  std::optional<Placement> place_single_node(const ClusterState& st, const JobSpec& job,
                                             GpuModelId m, long& key) const {
    Choice ch;
    for (int k = job.gpus; k <= st.max_gpus_per_node(m); ++k) {
      const auto n = first_host_fit(st, st.nodes_with_free(m, k), job);
      if (!n) continue;
      ch.offer(make_key(k, *n), *n);
      if (fit_ == Fit::kBest) break;  // smallest k that fits is the best fit
    }
    if (!ch.found) return std::nullopt;
    key = ch.key;
    Placement p;
    p.model = m;
    take_whole(st, ch.node, job.gpus, p);
    return p;
  }

  // Spans nodes: wholly free capacity first, largest free counts first while they do not
  // overshoot the remainder, then the smallest node that covers what is left.
  std::optional<Placement> place_multi_node(const ClusterState& st, const JobSpec& job,
                                            GpuModelId m, long& key) const {
    if (st.free_whole_of(m) < job.gpus) return std::nullopt;
    int left = job.gpus;
    std::vector<std::pair<NodeId, int>> used;
    for (int k = st.max_gpus_per_node(m); k >= 1 && left > 0; --k) {
      if (k > left) continue;
      for (NodeId n : st.nodes_with_free(m, k)) {
        if (left < k) break;
        if (!st.host_fits(n, job)) continue;
        used.emplace_back(n, k);
        left -= k;
      }
    }
    for (int k = left + 1; k <= st.max_gpus_per_node(m) && left > 0; ++k) {
      for (NodeId n : st.nodes_with_free(m, k)) {
        const bool taken =
            std::any_of(used.begin(), used.end(), [n](const auto& u) { return u.first == n; });
        if (taken || !st.host_fits(n, job)) continue;
        used.emplace_back(n, left);
        left = 0;
        break;
      }
    }
    if (left > 0) return std::nullopt;
    std::sort(used.begin(), used.end());
    Placement p;
    p.model = m;
    for (const auto& [n, take] : used) take_whole(st, n, take, p);
    key = make_key(static_cast<long>(used.size()), used.front().first);
    return p;
  }

  std::optional<Placement> place_fraction(const ClusterState& st, const JobSpec& job, GpuModelId m,
                                          long& key) const {
    const Milli need = job.gpu_milli;
    Choice ch;
    int chosen_gpu = -1;
    auto consider_node = [&](NodeId n) {
      if (!st.host_fits(n, job)) return;
      for (int g = 0; g < st.gpus(n); ++g) {
        const Milli f = st.free_milli(n, g);
        if (f < need || st.free_gpu_memory(n, g) < job.gpu_memory_mib) continue;
        const long k = make_key(f, n);
        if (!ch.found || k < ch.key) {
          ch.offer(k, n);
          chosen_gpu = g;
        }
        if (fit_ == Fit::kFirst) return;
      }
    };
    for (NodeId n : st.shared_nodes(m)) {
      consider_node(n);
      if (fit_ == Fit::kFirst && ch.found) break;
    }
    // A wholly free card: best fit takes it on the node with the fewest free cards.
    for (int k = 1; k <= st.max_gpus_per_node(m); ++k) {
      const auto n = first_host_fit(st, st.nodes_with_free(m, k), job);
      if (!n) continue;
      if (fit_ == Fit::kBest && ch.found) break;  // a shared card always fits tighter
      consider_node(*n);
      if (fit_ == Fit::kBest) break;
    }
    if (!ch.found) return std::nullopt;
    key = ch.key;
    Placement p;
    p.model = m;
    p.slots.push_back(Slot{ch.node, static_cast<int16_t>(chosen_gpu), need});
    return p;
  }

  std::optional<Placement> place_host_only(const ClusterState& st, const JobSpec& job) const {
    // CPU-only work prefers CPU-only nodes, then GPU nodes; lowest number first (firstfit)
    // or least CPU left (bestfit). O(nodes): CPU-only jobs are rare in GPU traces.
    Choice ch;
    for (int pass = 0; pass < 2 && !ch.found; ++pass) {
      for (NodeId n = 0; n < st.node_count(); ++n) {
        const bool cpu_node = st.gpus(n) == 0;
        if (!st.up(n) || cpu_node != (pass == 0) || !st.host_fits(n, job)) continue;
        const long left = st.cpu_free(n);
        ch.offer(make_key(left, n), n);
        if (fit_ == Fit::kFirst) break;
      }
    }
    if (!ch.found) return std::nullopt;
    Placement p;
    p.slots.push_back(Slot{ch.node, -1, 0});
    return p;
  }

  Fit fit_;
};

}  // namespace

std::unique_ptr<Placer> make_first_fit_placer() {
  return std::make_unique<FitPlacer>(Fit::kFirst);
}
std::unique_ptr<Placer> make_best_fit_placer() {
  return std::make_unique<FitPlacer>(Fit::kBest);
}

std::unique_ptr<Placer> make_placer(const std::string& name) {
  if (name == "firstfit") return make_first_fit_placer();
  if (name == "bestfit") return make_best_fit_placer();
  return nullptr;
}

std::vector<std::string> placer_names() {
  return {"firstfit", "bestfit"};
}

}  // namespace frugal
