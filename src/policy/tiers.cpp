#include "policy/tiers.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

namespace frugal {

Tier effective_tier(const JobRuntime& r) {
  if (r.starved && r.spec->tier == Tier::kGeneral) return Tier::kImportant;
  return r.spec->tier;
}

namespace {

class TierSort final : public QueueSort {
 public:
  explicit TierSort(Seconds starvation_s) : starvation_s_(starvation_s) {}
  std::string name() const override { return "tier"; }
  QueueKey key(const JobRuntime& j) const override {
    return {static_cast<double>(effective_tier(j)), j.spec->submit, j.seq, 0};
  }
  Seconds starvation_after() const override { return starvation_s_ > 0 ? starvation_s_ : kNever; }

 private:
  Seconds starvation_s_;
};

struct Victim {
  JobIdx job;
  double cost;  // work at risk: GPU-seconds since the last periodic checkpoint
  double gpus;
  uint64_t seq;
  int tier;  // effective_tier()
};

// A plan's rank: (work at risk, jobs, GPUs, node).
struct Plan {
  std::vector<size_t> victims;  // indexes into the candidate list
  double cost = 0;
  double gpus = 0;
  NodeId node = 0;
  bool better_than(const Plan& o) const {
    const size_t a = victims.size(), b = o.victims.size();
    return std::tie(cost, a, gpus, node) < std::tie(o.cost, b, o.gpus, o.node);
  }
};

class TierPreempt final : public Preempt {
 public:
  explicit TierPreempt(TierOptions o) : o_(o) {}
  std::string name() const override { return "tier-preempt"; }
  Seconds checkpoint_grace() const override { return std::max(0.0, o_.checkpoint_grace_s); }

  std::vector<JobIdx> victims(const CycleView& v, const std::set<QueueKey>& pending,
                              const std::set<QueueKey>& running) override {
    std::vector<JobIdx> out;
    if (pending.empty() || running.empty()) return out;
    if (!queue_outranks_running(v, pending, running)) return out;
    // The cluster once the signalled jobs have stopped (their GPUs are spoken for).
    copy_cluster(v);
    ClusterState* future = &*future_;
    for (const auto& [stop_at, j] : v.draining())
      future->release(v.job(j).placement, *v.job(j).spec);
    // The candidates and their index are built when the first plan is needed: most cycles
    // place every examined job without one, and the candidates cost a pass over every
    // running job.
    std::vector<Victim> cand;
    std::vector<char> taken;
    bool built = false;

    size_t examined = 0, plans = 0;
    for (const QueueKey& k : pending) {
      if (++examined > o_.max_examined || plans >= o_.max_plans) break;
      const JobRuntime& p = v.job(k.job);
      const JobSpec& s = *p.spec;
      if (auto pl = v.try_place(*future, s)) {  // starts now or once drains end
        (void)future->allocate(*pl, s);
        continue;
      }
      // The autoscaler will add a node for it within its provisioning delay: preempting
      // would gain the job at most that delay and cost the victim its place (tiers.h).
      if (v.can_add_capacity(s)) continue;
      if (!built) {
        cand = candidates(v, running);
        if (cand.empty()) return out;
        index_by_node(v, cand);
        taken.assign(cand.size(), 0);
        built = true;
      }
      // No plan for this job: it stays blocked, and a job behind it may start only by
      // backfilling around it, so GPUs freed for that job would go to work that ends
      // sooner and be fought for again next cycle (tiers.h). Stop here.
      const std::optional<Plan> plan = plan_for(v, *future, p, cand, taken);
      if (!plan) break;
      for (size_t i : plan->victims) {
        const JobRuntime& r = v.job(cand[i].job);
        future->release(r.placement, *r.spec);
        taken[i] = 1;
        out.push_back(cand[i].job);
      }
      if (auto pl = v.try_place(*future, s)) (void)future->allocate(*pl, s);
      ++plans;
    }
    return out;
  }

 private:
  // Quick exits: whether someone queued (among the first max_examined) outranks the
  // lowest-ranked running job, with general work never outranking anything.
  bool queue_outranks_running(const CycleView& v, const std::set<QueueKey>& pending,
                              const std::set<QueueKey>& running) const {
    int highest_pending = kTierCount;
    size_t seen = 0;
    for (auto it = pending.begin(); it != pending.end() && seen < o_.max_examined; ++it, ++seen)
      highest_pending = std::min(highest_pending, static_cast<int>(effective_tier(v.job(it->job))));
    if (highest_pending >= kTierCount - 1) return false;  // only general work waits
    // From the back: with a tier-first order (tier, tier-shortest) the lowest-ranked running
    // job comes first, so this usually stops at once.
    int lowest_running = 0;
    for (auto it = running.rbegin(); it != running.rend(); ++it) {
      lowest_running = std::max(lowest_running, static_cast<int>(effective_tier(v.job(it->job))));
      if (lowest_running == kTierCount - 1) break;  // general work runs: no lower rank exists
    }
    return highest_pending < lowest_running;
  }

  // future_ = the cluster now. Copy-assigning into the state kept from the previous cycle
  // reuses its index nodes: no allocation per node, as a fresh copy would make.
  void copy_cluster(const CycleView& v) {
    if (future_)
      *future_ = v.cluster();
    else
      future_.emplace(v.cluster());
  }

  // The running jobs worth preempting, in running order (not those already signalled: they
  // free their GPUs soon, and victims() released them in future_). With max_candidates, only
  // that many running jobs are looked at, the lowest-ranked (the back of the running order).
  std::vector<Victim> candidates(const CycleView& v, const std::set<QueueKey>& running) const {
    const Seconds now = v.now();
    std::vector<Victim> cand;
    const auto consider = [&](JobIdx j) {
      const JobRuntime& r = v.job(j);
      if (r.signalled()) return;
      if (r.spec->gpus == 0) return;
      if (r.starved && now < r.run_start + o_.protect_s) return;
      // About to end anyway: not worth a preemption. Not a job that has outlived its
      // estimate (expected_end is then `now`): when it ends is unknown, and skipping it would
      // leave higher-tier work waiting behind it for as long as it runs.
      const bool outlived = r.work_done(now) >= r.spec->runtime_estimate();
      if (!outlived && r.expected_end(now) <= now + checkpoint_grace()) return;
      const Seconds interval = r.spec->checkpoint_interval;
      const Seconds since = interval > 0 ? std::fmod(now - r.run_start, interval) : 0.0;
      cand.push_back({j, since * r.gpus(), r.gpus(), r.seq, static_cast<int>(effective_tier(r))});
    };
    if (o_.max_candidates == 0 || running.size() <= o_.max_candidates) {
      for (const QueueKey& k : running) consider(k.job);
      return cand;
    }
    size_t seen = 0;
    for (auto it = running.rbegin(); it != running.rend() && seen < o_.max_candidates; ++it, ++seen)
      consider(it->job);
    std::reverse(cand.begin(), cand.end());
    return cand;
  }

  // by_node_[n]: the candidates on node n, cheapest first (work at risk, GPUs, arrival), for
  // the nodes in with_cand_ (in no particular order: rank_nodes' result does not depend on
  // it); the other lists are empty.
  void index_by_node(const CycleView& v, const std::vector<Victim>& cand) {
    for (NodeId n : with_cand_) by_node_[n].clear();
    with_cand_.clear();
    by_node_.resize(v.cluster().node_count());
    for (size_t i = 0; i < cand.size(); ++i) {
      const std::vector<Slot>& slots = v.job(cand[i].job).placement.slots;
      for (size_t k = 0; k < slots.size(); ++k) {
        const NodeId n = slots[k].node;
        if (k > 0 && slots[k - 1].node == n) continue;  // as Placement::nodes()
        if (by_node_[n].empty()) with_cand_.push_back(n);
        by_node_[n].push_back(i);
      }
    }
    for (NodeId n : with_cand_)
      if (by_node_[n].size() > 1)
        std::sort(by_node_[n].begin(), by_node_[n].end(), [&](size_t a, size_t b) {
          return std::tie(cand[a].cost, cand[a].gpus, cand[a].seq) <
                 std::tie(cand[b].cost, cand[b].gpus, cand[b].seq);
        });
  }

  // The victims to preempt for pending job `p` among the candidates not yet taken and of a
  // lower tier: a one-node plan if there is one, else a greedy one; nullopt when none.
  std::optional<Plan> plan_for(const CycleView& v, ClusterState& future, const JobRuntime& p,
                               const std::vector<Victim>& cand,
                               const std::vector<char>& taken) const {
    const Eligible ok{cand, taken, static_cast<int>(effective_tier(p))};
    std::optional<Plan> plan = per_node_plan(v, future, *p.spec, cand, ok);
    if (plan) return plan;
    std::vector<size_t> lower;
    for (size_t i = 0; i < cand.size(); ++i)
      if (ok(i)) lower.push_back(i);
    if (lower.empty()) return std::nullopt;
    return greedy_plan(v, future, *p.spec, cand, std::move(lower));
  }
  // Whether candidate i may be preempted for a job of this tier: not taken by an earlier
  // plan and of a lower tier.
  struct Eligible {
    const std::vector<Victim>& cand;
    const std::vector<char>& taken;
    int tier;
    bool operator()(size_t i) const { return !taken[i] && cand[i].tier > tier; }
  };
  static void release(const CycleView& v, ClusterState& st, const std::vector<Victim>& cand,
                      const std::vector<size_t>& set) {
    for (size_t i : set) {
      const JobRuntime& r = v.job(cand[i].job);
      st.release(r.placement, *r.spec);
    }
  }
  static void restore(const CycleView& v, ClusterState& st, const std::vector<Victim>& cand,
                      const std::vector<size_t>& set) {
    for (size_t i : set) {
      const JobRuntime& r = v.job(cand[i].job);
      (void)st.allocate(r.placement, *r.spec);
    }
  }
  static bool fits_without(const CycleView& v, ClusterState& st, const JobSpec& s,
                           const std::vector<Victim>& cand, const std::vector<size_t>& set) {
    release(v, st, cand, set);
    const bool ok = v.try_place(st, s).has_value();
    restore(v, st, cand, set);
    return ok;
  }

  // Viable nodes (up, an allowed model, enough GPUs if every eligible victim there went),
  // ranked by the greedy estimate (cheapest victims first until enough GPUs); the exact
  // subset search runs on the best kMaxNodes only, which bounds the work per plan.
  std::vector<std::pair<double, NodeId>> rank_nodes(const ClusterState& st, const JobSpec& s,
                                                    const std::vector<Victim>& cand,
                                                    const Eligible& ok, bool whole) const {
    constexpr size_t kMaxNodes = 16;
    std::vector<std::pair<double, NodeId>> ranked;
    for (NodeId n : with_cand_) {
      if (!st.up(n)) continue;
      if (!s.allowed_models.empty() && std::find(s.allowed_models.begin(), s.allowed_models.end(),
                                                 st.model(n)) == s.allowed_models.end())
        continue;
      double freed = st.free_whole(n), estimate = 0;
      bool any = false;
      for (size_t i : by_node_[n]) {
        if (!ok(i)) continue;
        any = true;
        if (whole && freed + 1e-9 >= s.gpus) break;
        freed += cand[i].gpus;
        estimate += cand[i].cost;
      }
      if (!any || (whole && freed + 1e-9 < s.gpus)) continue;
      ranked.emplace_back(estimate, n);
    }
    const size_t keep = std::min(kMaxNodes, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep),
                      ranked.end());
    ranked.resize(keep);
    return ranked;
  }

  // The plans on node n from its victims g (cheapest first), best first: every subset of
  // up to 10 victims, else every prefix; for a whole-GPU job only those that free enough.
  static std::vector<Plan> node_options(const ClusterState& st, const JobSpec& s,
                                        const std::vector<Victim>& cand,
                                        const std::vector<size_t>& g, NodeId n, bool whole) {
    std::vector<Plan> options;
    auto consider = [&](std::vector<size_t> set) {
      Plan p;
      double freed = 0;
      for (size_t i : set) {
        p.cost += cand[i].cost;
        p.gpus += cand[i].gpus;
        freed += cand[i].gpus;
      }
      if (whole && st.free_whole(n) + static_cast<int>(std::floor(freed + 1e-9)) < s.gpus) return;
      p.victims = std::move(set);
      p.node = n;
      options.push_back(std::move(p));
    };
    if (g.size() <= 10) {
      for (uint32_t mask = 1; mask < (1u << g.size()); ++mask) {
        std::vector<size_t> set;
        for (size_t b = 0; b < g.size(); ++b)
          if (mask & (1u << b)) set.push_back(g[b]);
        consider(std::move(set));
      }
    } else {
      for (size_t len = 1; len <= g.size(); ++len)
        consider(std::vector<size_t>(g.begin(), g.begin() + static_cast<long>(len)));
    }
    std::sort(options.begin(), options.end(),
              [](const Plan& a, const Plan& b) { return a.better_than(b); });
    return options;
  }

  // Into `best`: the first of the (best-first) `options` better than it that lets the job
  // be placed, trying at most 8.
  static void first_fit(const CycleView& v, ClusterState& st, const JobSpec& s,
                        const std::vector<Victim>& cand, std::vector<Plan>& options,
                        std::optional<Plan>& best) {
    int tries = 0;
    for (Plan& p : options) {
      if (best && !p.better_than(*best)) break;
      if (++tries > 8) break;
      if (fits_without(v, st, s, cand, p.victims)) {
        best = std::move(p);
        break;
      }
    }
  }

  // Single-node jobs: the cheapest set of one node's victims that lets the job be placed.
  std::optional<Plan> per_node_plan(const CycleView& v, ClusterState& st, const JobSpec& s,
                                    const std::vector<Victim>& cand, const Eligible& ok) const {
    int biggest = 0;
    for (GpuModelId m : st.models()) biggest = std::max(biggest, st.max_gpus_per_node(m));
    if (s.gpus > biggest) return std::nullopt;
    std::optional<Plan> best;
    const bool whole = s.gpus > 0 && !s.fractional();
    std::vector<size_t> g;
    for (const auto& [estimate, n] : rank_nodes(st, s, cand, ok, whole)) {
      g.clear();
      for (size_t i : by_node_[n])
        if (ok(i)) g.push_back(i);
      std::vector<Plan> options = node_options(st, s, cand, g, n, whole);
      first_fit(v, st, s, cand, options, best);
    }
    return best;
  }

  // Any job (multi-node ones): victims by work at risk per GPU until it fits, then pruned.
  std::optional<Plan> greedy_plan(const CycleView& v, ClusterState& st, const JobSpec& s,
                                  const std::vector<Victim>& cand,
                                  std::vector<size_t> lower) const {
    std::sort(lower.begin(), lower.end(), [&](size_t a, size_t b) {
      const double ca = cand[a].cost / cand[a].gpus, cb = cand[b].cost / cand[b].gpus;
      return std::tie(ca, cand[a].seq) < std::tie(cb, cand[b].seq);
    });
    std::vector<size_t> chosen;
    bool fits = false;
    for (size_t i : lower) {
      chosen.push_back(i);
      release(v, st, cand, {i});
      if (v.try_place(st, s)) {
        fits = true;
        break;
      }
    }
    if (!fits) {
      restore(v, st, cand, chosen);
      return std::nullopt;
    }
    // Prune: give back the costliest victims the job does not need.
    std::vector<size_t> keep;
    for (auto it = chosen.rbegin(); it != chosen.rend(); ++it) {
      restore(v, st, cand, {*it});
      if (v.try_place(st, s)) continue;  // not needed
      release(v, st, cand, {*it});
      keep.push_back(*it);
    }
    restore(v, st, cand, keep);
    Plan p;
    for (size_t i : keep) {
      p.cost += cand[i].cost;
      p.gpus += cand[i].gpus;
    }
    p.victims = std::move(keep);
    return p;
  }

  TierOptions o_;
  // Per victims() call, kept between cycles only to reuse their memory: the cluster with
  // the planned preemptions applied, and the candidates by node (index_by_node).
  std::optional<ClusterState> future_;
  std::vector<std::vector<size_t>> by_node_;
  std::vector<NodeId> with_cand_;
};

}  // namespace

std::unique_ptr<QueueSort> make_tier_sort(Seconds starvation_s) {
  return std::make_unique<TierSort>(starvation_s);
}
std::unique_ptr<Preempt> make_tier_preempt(const TierOptions& o) {
  return std::make_unique<TierPreempt>(o);
}

}  // namespace frugal
