// The consolidate plugin: migrate small jobs off one node so a blocked gang fits there.
#include "policy/consolidate.h"

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

namespace frugal {
namespace {

// Resources a plan has taken (or handed back, as negative amounts) on top of the state.
class Overlay {
 public:
  explicit Overlay(const ClusterState& st) : st_(st) {}

  Milli free_milli(NodeId n, int g) const {
    const auto it = card_.find({n, g});
    return st_.free_milli(n, g) - (it == card_.end() ? 0 : it->second.first);
  }
  int64_t free_mem(NodeId n, int g) const {
    const auto it = card_.find({n, g});
    return st_.free_gpu_memory(n, g) - (it == card_.end() ? 0 : it->second.second);
  }
  bool host_fits(NodeId n, const JobSpec& job) const {
    if (!st_.admits(n, job)) return false;
    const NodeSpec& ns = st_.spec().nodes[n];
    const auto it = host_.find(n);
    const int64_t cpu = it == host_.end() ? 0 : it->second.first;
    const int64_t mem = it == host_.end() ? 0 : it->second.second;
    if (job.cpu_milli > 0 && ns.cpu_milli > 0 && st_.cpu_free(n) - cpu < job.cpu_milli)
      return false;
    if (job.memory_mib > 0 && ns.memory_mib > 0 && st_.mem_free(n) - mem < job.memory_mib)
      return false;
    return true;
  }
  // sign +1: the plan takes `p`; -1: the plan frees it (a job moving away).
  void apply(const Placement& p, const JobSpec& job, int sign) {
    NodeId last = static_cast<NodeId>(-1);
    for (const Slot& s : p.slots) {
      if (s.node != last) {
        auto& h = host_[s.node];
        h.first += sign * job.cpu_milli;
        h.second += sign * job.memory_mib;
        last = s.node;
      }
      if (s.gpu < 0) continue;
      auto& c = card_[{s.node, s.gpu}];
      c.first += sign * s.milli;
      c.second += sign * (s.milli >= kMilliPerGpu ? st_.gpu_memory(s.node) : job.gpu_memory_mib);
    }
  }
  // Cards the plan has touched, in (node, gpu) order.
  const std::map<std::pair<NodeId, int>, std::pair<Milli, int64_t>>& cards() const { return card_; }

 private:
  const ClusterState& st_;
  std::map<std::pair<NodeId, int>, std::pair<Milli, int64_t>> card_;
  std::map<NodeId, std::pair<int64_t, int64_t>> host_;
};

// The best-fit card for a fraction so far: the least free milli that still holds it, then
// the lowest (node, card).
struct CardPick {
  bool found = false;
  Milli free = 0;
  NodeId node = 0;
  int gpu = 0;

  void offer(const Overlay& ov, const JobSpec& job, NodeId n, int g) {
    const Milli f = ov.free_milli(n, g);
    if (f < job.gpu_milli || f >= kMilliPerGpu || ov.free_mem(n, g) < job.gpu_memory_mib) return;
    if (!found || f < free || (f == free && std::make_pair(n, g) < std::make_pair(node, gpu))) {
      found = true;
      free = f;
      node = n;
      gpu = g;
    }
  }
};
// The cheapest set of jobs to move off one node.
struct NodePlan {
  double cost = 0;
  NodeId node = 0;
  std::vector<JobIdx> jobs;
};

class ConsolidatePlugin final : public Consolidate {
 public:
  explicit ConsolidatePlugin(ConsolidateOptions o) : o_(o) {}
  std::string name() const override { return "consolidate"; }

  std::optional<ConsolidationPlan> plan(const CycleView& v, JobIdx j,
                                        const Candidates& c) const override {
    const JobSpec& s = *v.job(j).spec;
    if (s.gpus <= 0 || s.fractional()) return std::nullopt;
    const ClusterState& st = v.cluster();
    for (GpuModelId m : c.models) {
      if (s.gpus > st.max_gpus_per_node(m)) continue;        // gangs spanning nodes: not handled
      if (free_milli_of(st, m) < s.total_milli()) continue;  // short of capacity, not fragmented
      if (auto p = plan_on(v, j, s, m)) return p;
    }
    return std::nullopt;
  }

 private:
  static int64_t free_milli_of(const ClusterState& st, GpuModelId m) {
    int64_t free = 0;
    for (uint32_t c = 0; c < st.centre_count(); ++c)
      if (st.centre_model(c) == m)
        free += st.centre_up_gpus(c) * kMilliPerGpu - st.centre_allocated_milli(c);
    return free;
  }

  // GPU-seconds a move of `r` costs now: the restart plus the work since its checkpoint.
  static double move_cost(const CycleView& v, const JobRuntime& r) {
    const Seconds lost = std::max(0.0, (v.now() - r.run_start) - r.kept_at(v.now()));
    return r.gpus() * (v.migration_cost_s() + lost);
  }

  // A running job that may leave node n for a job of `s.gpus` cards: fractional, or a
  // smaller whole-GPU job, held wholly on n.
  static bool movable(const JobRuntime& r, const JobSpec& s, NodeId n) {
    if (r.state != JobState::kRunning || r.spec->gpus <= 0 || r.signalled()) return false;
    if (!r.spec->fractional() && r.spec->gpus >= s.gpus) return false;
    for (const Slot& x : r.placement.slots)
      if (x.node != n) return false;
    return true;
  }

  std::optional<ConsolidationPlan> plan_on(const CycleView& v, JobIdx j, const JobSpec& s,
                                           GpuModelId m) const {
    const ClusterState& st = v.cluster();
    std::vector<NodePlan> plans;
    size_t examined = 0;
    for (int k = std::min(s.gpus - 1, st.max_gpus_per_node(m)); k >= 0; --k) {
      for (NodeId n : st.nodes_with_free(m, k)) {
        if (examined >= o_.max_nodes) break;
        ++examined;
        if (auto np = node_plan(v, s, n)) plans.push_back(std::move(*np));
      }
    }
    if (plans.empty()) return std::nullopt;
    std::sort(plans.begin(), plans.end(), [](const NodePlan& a, const NodePlan& b) {
      if (a.cost != b.cost) return a.cost < b.cost;
      if (a.jobs.size() != b.jobs.size()) return a.jobs.size() < b.jobs.size();
      return a.node < b.node;
    });
    const double gain = s.gpus * expected_wait(v, s, m);
    for (size_t i = 0; i < plans.size() && i < o_.max_plans; ++i) {
      if (!(gain > plans[i].cost)) break;  // sorted by cost: no later plan pays off either
      if (auto p = realize(v, s, m, plans[i])) {
        p->blocked = j;
        p->gain_gpu_s = gain;
        p->cost_gpu_s = plans[i].cost;
        return p;
      }
    }
    return std::nullopt;
  }

  // Who holds node n's cards: per card, the bit set of the jobs in `on` on it and whether
  // one of them may not move; per job, what moving it costs (0 if it may not move).
  struct Occupancy {
    std::vector<uint64_t> occ;
    std::vector<char> pinned;
    std::vector<double> cost;
  };
  static Occupancy occupancy(const CycleView& v, const JobSpec& s, NodeId n,
                             const std::vector<JobIdx>& on, int g_count) {
    Occupancy o{std::vector<uint64_t>(g_count, 0), std::vector<char>(g_count, 0),
                std::vector<double>(on.size(), 0)};
    for (size_t i = 0; i < on.size(); ++i) {
      const JobRuntime& r = v.job(on[i]);
      const bool mov = movable(r, s, n);
      if (mov) o.cost[i] = move_cost(v, r);
      for (const Slot& x : r.placement.slots) {
        if (x.node != n || x.gpu < 0 || x.gpu >= g_count) continue;
        o.occ[x.gpu] |= uint64_t{1} << i;
        if (!mov) o.pinned[x.gpu] = 1;
      }
    }
    return o;
  }

  // Whether moving the jobs `jobs` at cost c beats the best so far (`found`: there is one):
  // cheaper, then fewer jobs, then the smaller bit set.
  static bool better_set(bool found, double c, uint64_t jobs, double best_cost,
                         uint64_t best_jobs) {
    if (!found || c < best_cost) return true;
    if (c != best_cost) return false;
    return std::popcount(jobs) < std::popcount(best_jobs) ||
           (std::popcount(jobs) == std::popcount(best_jobs) && jobs < best_jobs);
  }

  // The least-cost jobs to move so that `need` of `cards` are freed, over every choice of
  // `need` cards (a minimal plan always frees some `need` of them): their bit set into
  // `best_jobs` and cost into `best_cost`; false when there is no choice.
  static bool cheapest_jobs(const std::vector<int>& cards, int need, const Occupancy& o,
                            double& best_cost, uint64_t& best_jobs) {
    bool found = false;
    for (uint32_t sub = 0; sub < (1u << cards.size()); ++sub) {
      if (std::popcount(sub) != need) continue;
      uint64_t jobs = 0;
      for (size_t b = 0; b < cards.size(); ++b)
        if (sub >> b & 1u) jobs |= o.occ[cards[b]];
      double c = 0;
      for (size_t i = 0; i < o.cost.size(); ++i)
        if (jobs >> i & 1u) c += o.cost[i];
      if (better_set(found, c, jobs, best_cost, best_jobs)) {
        found = true;
        best_cost = c;
        best_jobs = jobs;
      }
    }
    return found;
  }

  // The least-cost set of movable jobs on n whose departure leaves s.gpus whole cards.
  std::optional<NodePlan> node_plan(const CycleView& v, const JobSpec& s, NodeId n) const {
    const ClusterState& st = v.cluster();
    const int need = s.gpus - st.free_whole(n);
    if (need <= 0) return std::nullopt;  // enough cards already: host resources block it
    const std::vector<JobIdx>& on = v.jobs_on(n);
    if (on.size() > 64) return std::nullopt;
    const int g_count = st.gpus(n);
    const Occupancy o = occupancy(v, s, n, on, g_count);
    std::vector<int> cards;  // busy cards whose every occupant may move
    for (int g = 0; g < g_count; ++g)
      if (st.free_milli(n, g) < kMilliPerGpu && !o.pinned[g] && o.occ[g] != 0) cards.push_back(g);
    if (static_cast<int>(cards.size()) < need || static_cast<int>(cards.size()) > o_.max_cards)
      return std::nullopt;
    double best_cost = 0;
    uint64_t best_jobs = 0;
    if (!cheapest_jobs(cards, need, o, best_cost, best_jobs)) return std::nullopt;
    NodePlan np;
    np.cost = best_cost;
    np.node = n;
    for (size_t i = 0; i < on.size(); ++i)
      if (best_jobs >> i & 1u) np.jobs.push_back(on[i]);
    return np;
  }

  // Wait avoided: from now to the earliest expected end of a running job whose release
  // (with those ending before it) leaves some node of model m with s.gpus whole cards.
  // A lower bound (the last end looked at) when none within the look-ahead does.
  Seconds expected_wait(const CycleView& v, const JobSpec& s, GpuModelId m) const {
    const ClusterState& st = v.cluster();
    std::map<std::pair<NodeId, int>, Milli> freed;
    std::map<NodeId, int> extra;
    Seconds last = v.now();
    size_t seen = 0;
    for (const auto& [end, jj] : v.running_by_end()) {
      if (seen++ >= o_.lookahead) break;
      last = end;
      const JobRuntime& r = v.job(jj);
      if (r.placement.model != m) continue;
      bool fits = false;
      for (const Slot& x : r.placement.slots) {
        if (x.gpu < 0) continue;
        Milli& f = freed[{x.node, x.gpu}];
        const Milli before = st.free_milli(x.node, x.gpu) + f;
        f += x.milli;
        if (before < kMilliPerGpu && before + x.milli >= kMilliPerGpu) {
          const int e = ++extra[x.node];
          if (st.up(x.node) && st.free_whole(x.node) + e >= s.gpus && st.host_fits(x.node, s))
            fits = true;
        }
      }
      if (fits) return std::max(0.0, end - v.now());
    }
    return std::max(0.0, last - v.now());
  }

  // Places the plan's moved jobs elsewhere and the blocked job on the freed node.
  std::optional<ConsolidationPlan> realize(const CycleView& v, const JobSpec& s, GpuModelId m,
                                           const NodePlan& np) const {
    const ClusterState& st = v.cluster();
    Overlay ov(st);
    std::vector<JobIdx> order = np.jobs;
    for (JobIdx x : order) ov.apply(v.job(x).placement, *v.job(x).spec, -1);
    // Largest first: whole-GPU jobs by card count, then fractional ones by share.
    std::stable_sort(order.begin(), order.end(), [&](JobIdx a, JobIdx b) {
      const JobRuntime& x = v.job(a);
      const JobRuntime& y = v.job(b);
      if (x.spec->total_milli() != y.spec->total_milli())
        return x.spec->total_milli() > y.spec->total_milli();
      return x.seq < y.seq;
    });
    ConsolidationPlan plan;
    for (JobIdx x : order) {
      const JobSpec& js = *v.job(x).spec;
      std::optional<Placement> to = js.fractional() ? place_fraction(st, ov, js, m, np.node)
                                                    : place_whole(st, ov, js, m, np.node);
      if (!to) return std::nullopt;
      ov.apply(*to, js, +1);
      plan.moves.push_back(Move{x, std::move(*to)});
    }
    if (!ov.host_fits(np.node, s)) return std::nullopt;
    plan.placement.model = m;
    int left = s.gpus;
    for (int g = 0; g < st.gpus(np.node) && left > 0; ++g) {
      if (ov.free_milli(np.node, g) != kMilliPerGpu) continue;
      plan.placement.slots.push_back(Slot{np.node, static_cast<int16_t>(g), kMilliPerGpu});
      --left;
    }
    if (left > 0) return std::nullopt;
    return plan;
  }

  // Best fit for a fractional job off node `away`: the partly used card with the least
  // room that fits, else a free card on the node with the fewest free cards.
  std::optional<Placement> place_fraction(const ClusterState& st, const Overlay& ov,
                                          const JobSpec& job, GpuModelId m, NodeId away) const {
    const CardPick shared = shared_card(st, ov, job, m, away);
    std::optional<std::pair<NodeId, int>> card;
    if (shared.found)
      card = std::make_pair(shared.node, shared.gpu);
    else
      card = free_card(st, ov, job, m, away);
    if (!card) return std::nullopt;
    Placement p;
    p.model = m;
    p.slots.push_back(Slot{card->first, static_cast<int16_t>(card->second), job.gpu_milli});
    return p;
  }

  // The best-fit partly used card for `job` off node `away`: on the shared index's nodes
  // (at most max_scan_nodes), then on cards this plan made partly used outside it.
  CardPick shared_card(const ClusterState& st, const Overlay& ov, const JobSpec& job, GpuModelId m,
                       NodeId away) const {
    CardPick pick;
    size_t scanned = 0;
    for (NodeId n : st.shared_nodes(m)) {
      if (n == away) continue;
      if (scanned++ >= o_.max_scan_nodes) break;
      if (!ov.host_fits(n, job)) continue;
      for (int g = 0; g < st.gpus(n); ++g) pick.offer(ov, job, n, g);
    }
    // Cards this plan made partly used on nodes outside the shared index.
    for (const auto& [card, taken] : ov.cards()) {
      const NodeId n = card.first;
      if (n == away || st.model(n) != m || !st.up(n) || !ov.host_fits(n, job)) continue;
      pick.offer(ov, job, n, card.second);
    }
    return pick;
  }

  // The first free card (with the memory `job` needs) off node `away`, on the nodes with
  // the fewest free cards first.
  static std::optional<std::pair<NodeId, int>> free_card(const ClusterState& st, const Overlay& ov,
                                                         const JobSpec& job, GpuModelId m,
                                                         NodeId away) {
    for (int k = 1; k <= st.max_gpus_per_node(m); ++k) {
      for (NodeId n : st.nodes_with_free(m, k)) {
        if (n == away || !ov.host_fits(n, job)) continue;
        for (int g = 0; g < st.gpus(n); ++g)
          if (ov.free_milli(n, g) == kMilliPerGpu && ov.free_mem(n, g) >= job.gpu_memory_mib)
            return std::make_pair(n, g);
      }
    }
    return std::nullopt;
  }

  // Best fit for a whole-GPU job off node `away`: the node with the fewest free cards that
  // still holds it.
  std::optional<Placement> place_whole(const ClusterState& st, const Overlay& ov,
                                       const JobSpec& job, GpuModelId m, NodeId away) const {
    for (int k = job.gpus; k <= st.max_gpus_per_node(m); ++k) {
      for (NodeId n : st.nodes_with_free(m, k)) {
        if (n == away || !ov.host_fits(n, job)) continue;
        Placement p;
        p.model = m;
        for (int g = 0; g < st.gpus(n) && static_cast<int>(p.slots.size()) < job.gpus; ++g)
          if (ov.free_milli(n, g) == kMilliPerGpu)
            p.slots.push_back(Slot{n, static_cast<int16_t>(g), kMilliPerGpu});
        if (static_cast<int>(p.slots.size()) == job.gpus) return p;
      }
    }
    return std::nullopt;
  }

  ConsolidateOptions o_;
};

}  // namespace

std::unique_ptr<Consolidate> make_consolidate(ConsolidateOptions o) {
  return std::make_unique<ConsolidatePlugin>(o);
}

}  // namespace frugal
