// The limit of packing (pack/bound.h) against brute force and every policy, and migrations
// (pack/migration.h): budget, no pod lost, capacities kept, M = 0 the plain fill.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <utility>

#include "io/catalog_yaml.h"
#include "pack/bound.h"
#include "pack/experiment.h"
#include "pack/fill_engine.h"
#include "pack/fill_state.h"
#include "pack/migration.h"
#include "pack/pack_inputs.h"
#include "pack/swap.h"
#include "pack/typical_pods.h"
#include "pack/workload.h"

namespace frugal::pack {
namespace {

const std::string kOpenb = std::string(FRUGAL_SHARED_DATA) + "/traces/openb";

Pod pod(int64_t cpu, int64_t mem, int num_gpu, int32_t milli, uint64_t mask = 0) {
  Pod p;
  p.cpu = cpu;
  p.mem = mem;
  p.num_gpu = num_gpu;
  p.milli = num_gpu > 0 ? milli : 0;
  p.model_mask = mask;
  return p;
}

NodeSpec node(int64_t cpu, int64_t mem, int num_gpu, int model) {
  NodeSpec n;
  n.cpu = cpu;
  n.mem = mem;
  n.num_gpu = num_gpu;
  n.model = model;
  return n;
}

int64_t bound_of(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& pods) {
  AllocBound b(nodes, pods);
  std::vector<int64_t> count(b.classes(), 0);
  for (const Pod& p : pods)
    if (b.class_of(p) >= 0) count[static_cast<size_t>(b.class_of(p))] += 1;
  auto v = b.max_alloc_milli(count);
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  return v.ok() ? v.value() : -1;
}

// A small random instance (1-3 nodes of 0-4 cards, 1-6 pods of every kind) for the checks
// against the exhaustive optimum.
std::pair<std::vector<NodeSpec>, std::vector<Pod>> random_instance(std::mt19937_64& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t sizes[] = {100, 190, 250, 300, 470, 500, 600, 810, 1000};
  std::vector<NodeSpec> nodes;
  const int cards[] = {0, 1, 2, 4};
  for (int n = pick(1, 3); n > 0; --n)
    nodes.push_back(node(1000 * pick(2, 8), 1000 * pick(2, 8), cards[pick(0, 3)], pick(0, 1)));
  std::vector<Pod> pods;
  for (int k = pick(1, 6); k > 0; --k) {
    const int want = pick(0, 5) == 0 ? 0 : (pick(0, 4) == 0 ? 2 : 1);
    const int32_t m = want == 2 ? 1000 : sizes[pick(0, 8)];
    pods.push_back(pod(1000 * pick(0, 4), 1000 * pick(0, 3), want, m,
                       pick(0, 3) == 0 ? uint64_t{1} << pick(0, 1) : 0));
  }
  return {std::move(nodes), std::move(pods)};
}

// The most GPU milli any placement of any subset of `pods` allocates that holds every pod with
// keep[i] set (exhaustive search; empty keep: none); -1 when no placement holds them all.
struct Brute {
  const std::vector<NodeSpec>& nodes;
  const std::vector<Pod>& pods;
  std::vector<char> keep;
  std::vector<NodeState> st;
  int64_t best = -1;

  void cards(size_t i, size_t n, int from, int left, int64_t used) {
    NodeState& s = st[n];
    const Pod& p = pods[i];
    if (left == 0) {
      s.cpu_left -= p.cpu;
      s.mem_left -= p.mem;
      go(i + 1, used + p.total_milli());
      s.cpu_left += p.cpu;
      s.mem_left += p.mem;
      return;
    }
    for (int g = from; g < s.num_gpu; ++g) {
      auto& f = s.free[static_cast<size_t>(g)];
      if (f < p.milli) continue;
      f -= p.milli;
      cards(i, n, g + 1, left - 1, used);
      f += p.milli;
    }
  }
  void go(size_t i, int64_t used) {
    if (i == pods.size()) {
      best = std::max(best, used);
      return;
    }
    if (keep.empty() || !keep[i]) go(i + 1, used);  // left out
    const Pod& p = pods[i];
    for (size_t n = 0; n < st.size(); ++n) {
      const NodeState& s = st[n];
      if (s.cpu_left < p.cpu || s.mem_left < p.mem) continue;
      if (p.num_gpu > 0 && !model_ok(p.model_mask, s.model)) continue;
      cards(i, n, 0, p.num_gpu, used);
    }
  }
  int64_t solve() {
    for (const NodeSpec& n : nodes) st.push_back(initial_state(n));
    go(0, 0);
    return best;
  }
};

// AllocBound's bound with the pods in `keep` kept (max_alloc_milli(count, keep)).
int64_t kept_bound_of(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& pods,
                      const std::vector<char>& keep) {
  AllocBound b(nodes, pods);
  std::vector<int64_t> count(b.classes(), 0), kept(b.classes(), 0);
  for (size_t i = 0; i < pods.size(); ++i) {
    const int c = b.class_of(pods[i]);
    if (c < 0) continue;
    count[static_cast<size_t>(c)] += 1;
    kept[static_cast<size_t>(c)] += keep[i] ? 1 : 0;
  }
  auto v = b.max_alloc_milli(count, kept);
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  return v.ok() ? v.value() : -1;
}

TEST(PackBound, CardWeightsMakeItExactOnSmallCases) {
  // Two 600-milli pods on one card: only one fits; the plain milli capacity would say 1000.
  EXPECT_EQ(bound_of({node(8000, 8000, 1, 0)}, {pod(1, 1, 1, 600), pod(1, 1, 1, 600)}), 600);
  // 810 + 190 share a card; a second 810 cannot.
  EXPECT_EQ(
      bound_of({node(8000, 8000, 1, 0)}, {pod(1, 1, 1, 810), pod(1, 1, 1, 810), pod(1, 1, 1, 190)}),
      1000);
  // CPU limits the node; CPU-only pods allocate nothing; a wrong model, nothing.
  EXPECT_EQ(bound_of({node(4000, 8000, 2, 0)}, {pod(3000, 1, 1, 1000), pod(3000, 1, 1, 1000)}),
            1000);
  EXPECT_EQ(bound_of({node(4000, 8000, 2, 0)}, {pod(3000, 1, 0, 0)}), 0);
  EXPECT_EQ(bound_of({node(4000, 8000, 2, 0)}, {pod(1, 1, 1, 500, uint64_t{1} << 3)}), 0);
  // A 4-card pod never fits a 2-card node.
  EXPECT_EQ(bound_of({node(4000, 8000, 2, 0)}, {pod(1, 1, 4, 1000)}), 0);
}

// The card patterns (bound.h, pack/card_patterns.h): slivers no pod can use stay free.
TEST(PackBound, CardPatternsCountSliversNoPodCanUse) {
  // 470 + 470 leaves 60 milli, which the 110-milli pod cannot use (optimum 940). The
  // card-weight rows alone allow 1000 (every α row holds at 470·2 + 110·6/11); the pattern LP
  // mixes 8/9 of a card of 470 + 470 with 1/9 of a card of nine 110s: 945.6, floored.
  const NodeSpec one = node(8000, 8000, 1, 0);
  EXPECT_EQ(bound_of({one}, {pod(1, 1, 1, 470), pod(1, 1, 1, 470), pod(1, 1, 1, 110)}), 945);
  // Three 320s and a 110 (optimum 960): 8/9 of 320·3 and 1/9 of nine 110s, 963.3.
  EXPECT_EQ(
      bound_of({one}, {pod(1, 1, 1, 320), pod(1, 1, 1, 320), pod(1, 1, 1, 320), pod(1, 1, 1, 110)}),
      963);
  // 650 + 320 share a card: a pattern of two sizes, which the column generation has to find
  // (it starts from one size per pattern: 650, or three 320s).
  EXPECT_EQ(bound_of({one}, {pod(1, 1, 1, 650), pod(1, 1, 1, 320)}), 970);
  // Two cards: 650 + 320 on one, 470 + 470 on the other.
  EXPECT_EQ(bound_of({node(8000, 8000, 2, 0)},
                     {pod(1, 1, 1, 650), pod(1, 1, 1, 320), pod(1, 1, 1, 470), pod(1, 1, 1, 470)}),
            1910);
}

TEST(PackBound, NeverBelowTheBruteForceOptimum) {
  std::mt19937_64 rng(7);
  int tight = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const auto [nodes, pods] = random_instance(rng);
    const int64_t exact = Brute{nodes, pods, {}, {}}.solve();
    const int64_t b = bound_of(nodes, pods);
    ASSERT_GE(b, exact) << "trial " << trial;
    tight += b == exact;
  }
  EXPECT_GT(tight, 1500);  // and usually exact on such small cases
}

// The repack bound (max_alloc_milli with kept pods): a kept pod stays, whatever it costs.
TEST(PackBound, KeptPodsStay) {
  const NodeSpec one = node(8000, 8000, 1, 0);
  // A whole-card pod or an 810 on one card: the whole card, or the 810 when it is kept.
  EXPECT_EQ(kept_bound_of({one}, {pod(1, 1, 1, 1000), pod(1, 1, 1, 810)}, {0, 0}), 1000);
  EXPECT_EQ(kept_bound_of({one}, {pod(1, 1, 1, 1000), pod(1, 1, 1, 810)}, {0, 1}), 810);
  // A kept 810 leaves room for the 190 only, not the whole-card pod.
  EXPECT_EQ(
      kept_bound_of({one}, {pod(1, 1, 1, 810), pod(1, 1, 1, 190), pod(1, 1, 1, 1000)}, {1, 0, 0}),
      1000);
  EXPECT_EQ(kept_bound_of({node(8000, 8000, 2, 0)},
                          {pod(1, 1, 1, 810), pod(1, 1, 1, 810), pod(1, 1, 1, 1000)}, {1, 1, 0}),
            1620);
  // Counts and kept counts must agree, and the kept pods must fit.
  AllocBound b({one}, {pod(1, 1, 1, 600)});
  EXPECT_FALSE(b.max_alloc_milli({1}, {2}).ok());
  EXPECT_FALSE(b.max_alloc_milli({1}, {1, 0}).ok());
  AllocBound two({one}, {pod(1, 1, 1, 600)});
  const auto none = two.max_alloc_milli({2}, {2});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no placement holds the kept pods"), std::string::npos)
      << none.error().message;
  // Three 360s and two 330s on two cards: every row but the card patterns' allows it (1,740
  // milli of 2,000), yet no two cards hold them (360 + 360 + 330 > 1000 and 360 · 3 > 1000).
  const std::vector<Pod> five = {pod(1, 1, 1, 360), pod(1, 1, 1, 360), pod(1, 1, 1, 360),
                                 pod(1, 1, 1, 330), pod(1, 1, 1, 330)};
  AllocBound cards({node(8000, 8000, 2, 0)}, five);
  std::vector<int64_t> all(cards.classes(), 0);
  for (const Pod& p : five) all[static_cast<size_t>(cards.class_of(p))] += 1;
  const auto patterns = cards.max_alloc_milli(all, all);
  ASSERT_FALSE(patterns.ok()) << patterns.value();
  EXPECT_NE(patterns.error().message.find("no placement holds the kept pods"), std::string::npos)
      << patterns.error().message;
}

// Against exhaustive search: never below the best placement that holds the kept pods, never
// above the bound without them; and a later call without kept pods is the plain bound again.
TEST(PackBound, KeptBoundBetweenTheKeptOptimumAndThePlainBound) {
  std::mt19937_64 rng(11);
  int checked = 0, tighter = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const auto [nodes, pods] = random_instance(rng);
    std::vector<char> keep(pods.size());
    for (char& k : keep) k = std::uniform_int_distribution<int>(0, 2)(rng) == 0;
    const int64_t exact = Brute{nodes, pods, keep, {}}.solve();
    if (exact < 0) continue;  // the kept pods fit no placement: not a packer's state
    ++checked;
    const int64_t kept = kept_bound_of(nodes, pods, keep);
    const int64_t plain = bound_of(nodes, pods);
    ASSERT_GE(kept, exact) << "trial " << trial;
    ASSERT_LE(kept, plain) << "trial " << trial;
    tighter += kept < plain;
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(tighter, 20);  // keeping pods does bind
  // A kept call (slack columns, count rows bounded below) leaves later plain calls as they were.
  std::mt19937_64 again(5);
  int binding = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const auto [nodes, pods] = random_instance(again);
    AllocBound b(nodes, pods);
    std::vector<int64_t> count(b.classes(), 0);
    for (const Pod& p : pods)
      if (b.class_of(p) >= 0) count[static_cast<size_t>(b.class_of(p))] += 1;
    const auto before = b.max_alloc_milli(count);
    ASSERT_TRUE(before.ok());
    std::vector<int64_t> keep(count.size());  // some of each class kept (may fit nowhere)
    for (size_t c = 0; c < count.size(); ++c)
      keep[c] = std::uniform_int_distribution<int64_t>(0, count[c])(again);
    const auto kept = b.max_alloc_milli(count, keep);
    binding += kept.ok() && kept.value() < before.value();
    const auto after = b.max_alloc_milli(count);
    ASSERT_TRUE(after.ok());
    ASSERT_EQ(before.value(), after.value()) << "trial " << trial;
  }
  EXPECT_GT(binding, 5);  // the kept calls did bind before the plain ones came back
}

// The integer bound (Cbc's dual bound, bound.h): never below the exhaustive optimum, never
// above the LP, and on cases where the LP is fractional, tighter.
TEST(PackBound, IntegerBoundBetweenTheOptimumAndTheLp) {
  std::mt19937_64 rng(11);
  int tighter = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const auto [nodes, pods] = random_instance(rng);
    const int64_t exact = Brute{nodes, pods, {}, {}}.solve();
    AllocBound b(nodes, pods);
    std::vector<int64_t> count(b.classes(), 0);
    for (const Pod& p : pods)
      if (b.class_of(p) >= 0) count[static_cast<size_t>(b.class_of(p))] += 1;
    auto lp = b.max_alloc_milli(count);
    auto ilp = b.max_alloc_milli_ilp(count, 5.0);
    ASSERT_TRUE(lp.ok() && ilp.ok()) << "trial " << trial;
    ASSERT_GE(ilp.value(), exact) << "trial " << trial;
    ASSERT_LE(ilp.value(), lp.value()) << "trial " << trial;
    tighter += ilp.value() < lp.value();
  }
  // CPU split across two 3000-CPU pods on a 4000-CPU node: the LP takes 4/3 of a pod.
  AllocBound b({node(4000, 8000, 2, 0)}, {pod(3000, 1, 1, 1000)});
  auto lp = b.max_alloc_milli({2});
  auto ilp = b.max_alloc_milli_ilp({2}, 5.0);
  ASSERT_TRUE(lp.ok() && ilp.ok());
  EXPECT_EQ(ilp.value(), 1000);
  EXPECT_GE(lp.value(), ilp.value());
  RecordProperty("ilp_tighter_than_lp", tighter);
}

// bound_per_event with the integer bound: per event between the exhaustive optimum of the
// prefix and the LP curve.
TEST(PackBound, IntegerCurveBetweenTheOptimumAndTheLpCurve) {
  std::mt19937_64 rng(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t sizes[] = {190, 300, 470, 600, 810, 1000};
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<NodeSpec> nodes{node(8000, 8000, 2, 0), node(3000, 8000, 1, 1)};
    std::vector<Pod> seq;
    for (int k = pick(3, 7); k > 0; --k)
      seq.push_back(pod(1000 * pick(0, 3), 1000, 1, sizes[pick(0, 5)]));
    auto lp = bound_per_event(nodes, seq);
    auto ilp = bound_per_event(nodes, seq, BoundOptions{true, 5.0});
    ASSERT_TRUE(lp.ok() && ilp.ok());
    for (size_t i = 0; i < seq.size(); ++i) {
      const std::vector<Pod> prefix(seq.begin(), seq.begin() + static_cast<long>(i) + 1);
      ASSERT_LE(ilp.value()[i], lp.value()[i]) << "trial " << trial << " event " << i;
      const int64_t exact = Brute{nodes, prefix, {}, {}}.solve();
      ASSERT_GE(ilp.value()[i], exact) << "trial " << trial << " event " << i;
    }
  }
}

struct Openb {
  std::vector<NodeSpec> nodes;
  std::vector<Pod> pods;
};

Openb load_default() {
  Openb o;
  auto catalog = load_builtin_catalog();
  EXPECT_TRUE(catalog.ok());
  auto nodes = load_pack_nodes(kOpenb + "/openb_node_list_gpu_node.csv", catalog.value());
  auto pods = load_pack_pods(kOpenb + "/openb_pod_list_default.csv", catalog.value());
  EXPECT_TRUE(nodes.ok() && pods.ok());
  if (nodes.ok() && pods.ok()) {
    o.nodes = std::move(nodes).value();
    o.pods = std::move(pods).value();
  }
  return o;
}

#define REQUIRE_OPENB()                                                   \
  do {                                                                    \
    if (!std::filesystem::exists(kOpenb + "/openb_pod_list_default.csv")) \
      GTEST_SKIP() << "no openb data at " << kOpenb;                      \
  } while (0)

TEST(PackBound, AboveEveryPolicyAtEveryLevelOfEveryRun) {
  REQUIRE_OPENB();
  const Openb o = load_default();
  ExperimentConfig cfg;
  cfg.policies = all_policies();
  cfg.seeds = 2;
  cfg.frugal_rules = ExperimentConfig::Rules::kOwn;  // its own rules, not calibrated
  cfg.migrations_per_100 = 10;
  const ExperimentResult r = run_experiment(o.nodes, o.pods, cfg);
  ASSERT_TRUE(r.bound_error.empty()) << r.bound_error;
  ASSERT_EQ(r.bound.size(), 2u);
  int binding = 0;
  for (const PolicyRuns& pr : r.runs)
    for (size_t k = 0; k < pr.seeds.size(); ++k)
      for (size_t x = 0; x < static_cast<size_t>(kLevels); ++x) {
        ASSERT_EQ(pr.seeds[k].has[x], r.bound[k].has[x]);
        if (!r.bound[k].has[x]) continue;
        EXPECT_GE(r.bound[k].alloc[x], pr.seeds[k].alloc[x])
            << policy_name(pr.policy) << " run " << k << " level " << x;
        binding += x >= 100 && r.bound[k].alloc[x] < static_cast<double>(x) - 0.5;
      }
  EXPECT_GT(binding, 0);  // the bound says something beyond "what arrived"
  // The medians keep the order too.
  for (const PolicyRuns& pr : r.runs)
    for (int x = 0; x < kLevels; ++x) {
      const auto a = level_stats(pr, Metric::kAlloc, x);
      const auto b = level_stats(r.bound, Metric::kAlloc, x);
      if (a.n) {
        EXPECT_GE(b.median, a.median);
      }
    }
}

// The repack bound of every run (experiment.h): at the level's last arrival, never below the
// policy's own allocation there (its placement is one of the rearrangements), and binding.
TEST(PackBound, RepackBoundAboveThePolicyItKeeps) {
  REQUIRE_OPENB();
  const Openb o = load_default();
  ExperimentConfig cfg;
  cfg.policies = {Policy::kFgd, Policy::kFrugal};
  cfg.seeds = 2;
  cfg.bound = false;
  cfg.frugal_rules = ExperimentConfig::Rules::kOwn;
  cfg.migrations_per_100 = 5;
  cfg.repack = true;
  const ExperimentResult r = run_experiment(o.nodes, o.pods, cfg);
  ASSERT_TRUE(r.repack_error.empty()) << r.repack_error;
  for (const PolicyRuns& pr : r.runs) {
    ASSERT_EQ(pr.repack.size(), 2u);
    ASSERT_EQ(pr.repack_policy.size(), 2u);
    for (size_t k = 0; k < 2; ++k)
      for (int level : kRepackLevels) {
        const auto x = static_cast<size_t>(level);
        ASSERT_TRUE(pr.repack[k].has[x]) << level;
        EXPECT_GE(pr.repack[k].alloc[x], pr.repack_policy[k].alloc[x])
            << policy_name(pr.policy) << " run " << k << " level " << level;
        EXPECT_LT(pr.repack[k].alloc[x], 99.0);  // the slivers stay: it binds
      }
  }
  // Against the plain bound over the same arrivals (the level's last): never above it, and
  // below it somewhere (the policy's placed pods are kept).
  int below = 0;
  for (size_t k = 0; k < 2; ++k) {
    const GoDraws d = go_rand_draws(o.pods, o.nodes, cfg.tune, static_cast<int64_t>(42 + k));
    AllocBound plain(o.nodes, d.order);
    int64_t total = 0, arrived = 0;
    for (const NodeSpec& n : o.nodes) total += n.num_gpu;
    std::vector<int64_t> count(plain.classes(), 0);
    std::vector<double> at(kLevels, -1);  // the plain bound at each level's last arrival
    for (size_t i = 0; i < d.order.size(); ++i) {
      arrived += d.order[i].total_milli();
      const int c = plain.class_of(d.order[i]);
      if (c >= 0) count[static_cast<size_t>(c)] += 1;
      const auto x = static_cast<size_t>(arrived_level(arrived, total));
      const bool last =
          i + 1 == d.order.size() ||
          arrived_level(arrived + d.order[i + 1].total_milli(), total) != static_cast<double>(x);
      if (!last || std::find(kRepackLevels.begin(), kRepackLevels.end(), static_cast<int>(x)) ==
                       kRepackLevels.end())
        continue;
      const auto b = plain.max_alloc_milli(count);
      ASSERT_TRUE(b.ok());
      at[x] = round2(static_cast<double>(b.value()) / static_cast<double>(total) / 10);
    }
    for (const PolicyRuns& pr : r.runs)
      for (int level : kRepackLevels) {
        const auto x = static_cast<size_t>(level);
        ASSERT_GE(at[x], 0) << level;
        EXPECT_LE(pr.repack[k].alloc[x], at[x]) << policy_name(pr.policy) << " level " << level;
        below += pr.repack[k].alloc[x] < at[x] - 0.1;
      }
  }
  EXPECT_GT(below, 0);
  cfg.repack = false;
  cfg.policies = {Policy::kFgd};
  EXPECT_TRUE(run_experiment(o.nodes, o.pods, cfg).runs[0].repack.empty());
}

// A fill of openb default (seed 42's Go draws) by frugal with M migrations per 100 arrivals.
struct Fill {
  FillEvents ev;
  int checks = 0;
};

Fill fill_default(const Openb& o, double m, bool check) {
  const GoDraws d = go_rand_draws(o.pods, o.nodes, 1.3, 42);
  const TypicalPods typical = typical_pods(o.pods);
  FragMemo memo(typical);
  Fill f;
  auto observe = [&](const FillState& fs) {
    ++f.checks;
    // Every node's state is its spec minus exactly the pods listed on it.
    std::vector<int> seen(d.order.size(), 0);
    for (size_t r = 0; r < fs.size(); ++r) {
      NodeState want = initial_state(fs.spec(r));
      for (const Placed& q : fs.on(r)) {
        const Pod& p = fs.pod(q.pod);
        seen[q.pod] += 1;
        want.cpu_left -= p.cpu;
        want.mem_left -= p.mem;
        ASSERT_EQ(q.cards.n, p.num_gpu);
        for (int k = 0; k < q.cards.n; ++k)
          want.free[static_cast<size_t>(q.cards.ids[static_cast<size_t>(k)])] -= p.milli;
      }
      const NodeState& s = fs.node(r);
      ASSERT_EQ(s.cpu_left, want.cpu_left);
      ASSERT_EQ(s.mem_left, want.mem_left);
      ASSERT_GE(s.cpu_left, 0);
      ASSERT_GE(s.mem_left, 0);
      ASSERT_EQ(s.pods, static_cast<int32_t>(fs.on(r).size()));
      for (int g = 0; g < s.num_gpu; ++g) {
        ASSERT_EQ(s.free[static_cast<size_t>(g)], want.free[static_cast<size_t>(g)]);
        ASSERT_GE(s.free[static_cast<size_t>(g)], 0);
      }
    }
    for (int c : seen) ASSERT_LE(c, 1);  // no pod twice
  };
  f.ev = run_fill(o.nodes, d.rank, d.order, Policy::kFrugal, memo, PolicyRng(d.after), nullptr, m,
                  check ? std::function<void(const FillState&)>(observe) : nullptr);
  return f;
}

TEST(PackMigration, StaysWithinTheBudgetAndLosesNoPod) {
  REQUIRE_OPENB();
  const Openb o = load_default();
  for (double m : {1.0, 5.0}) {
    const Fill f = fill_default(o, m, true);
    ASSERT_EQ(f.ev.migrated.size(), f.ev.used_milli.size());
    EXPECT_GT(f.ev.migrations, 0) << "M " << m;
    EXPECT_GT(f.checks, 0);
    int64_t before = 0;
    for (size_t i = 0; i < f.ev.migrated.size(); ++i) {
      const auto allowed = static_cast<int64_t>(std::floor(m * static_cast<double>(i + 1) / 100));
      ASSERT_LE(f.ev.migrated[i], allowed) << "arrival " << i;
      ASSERT_GE(f.ev.migrated[i], before);
      before = f.ev.migrated[i];
    }
    // What is allocated is what was placed: used never falls, never exceeds what arrived.
    for (size_t i = 1; i < f.ev.used_milli.size(); ++i) {
      ASSERT_GE(f.ev.used_milli[i], f.ev.used_milli[i - 1]);
      ASSERT_LE(f.ev.used_milli[i], f.ev.arrived_milli[i]);
    }
  }
}

TEST(PackMigration, ZeroBudgetIsThePlainFill) {
  REQUIRE_OPENB();
  const Openb o = load_default();
  const Fill none = fill_default(o, 0, false);
  const GoDraws d = go_rand_draws(o.pods, o.nodes, 1.3, 42);
  const TypicalPods typical = typical_pods(o.pods);
  FragMemo memo(typical);
  const FillEvents plain =
      run_fill(o.nodes, d.rank, d.order, Policy::kFrugal, memo, PolicyRng(d.after));
  EXPECT_TRUE(none.ev.migrated.empty());
  EXPECT_EQ(none.ev.migrations, 0);
  EXPECT_EQ(none.ev.used_milli, plain.used_milli);
  EXPECT_EQ(none.ev.idle_milli, plain.idle_milli);
  EXPECT_EQ(none.ev.frag_milli, plain.frag_milli);
  EXPECT_EQ(none.ev.failed, plain.failed);
}

// Nodes 0 and 1 of `nodes` holding pods 0 and 1 of `seq` (best fit's cards).
FillState first_two_placed(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& seq,
                           FragMemo& memo, PolicyRng& rng) {
  FillState fs(nodes, {0, 1}, seq, Policy::kBestFit, memo, nullptr, true);
  fs.place(0, 0, rng, true);
  fs.place(1, 1, rng, true);
  return fs;
}

TEST(PackMigration, MovesAPodToFreeACard) {
  // Two one-card nodes each hold a 400-milli pod; a whole-card pod fits only once one of them
  // moves next to the other.
  const std::vector<NodeSpec> nodes{node(8000, 8000, 1, 0), node(8000, 8000, 1, 0)};
  const std::vector<Pod> seq{pod(1000, 1000, 1, 400), pod(1000, 1000, 1, 400),
                             pod(1000, 1000, 1, 1000)};
  TypicalPods typical;
  typical.pods.push_back(TypicalPod{1000, 400, 1, 0, "", 1, 1});
  FragMemo memo(typical);
  PolicyRng rng(1);
  FillState fs = first_two_placed(nodes, seq, memo, rng);
  EXPECT_EQ(fs.best(2, true, fs.size()), fs.size());  // nowhere as it stands
  PlanCache plans(fs);
  EXPECT_EQ(make_room(fs, 2, 0 + 1, rng, true, plans), 1);
  EXPECT_EQ(fs.on(0).size() + fs.on(1).size(), 3u);
  EXPECT_EQ(fs.node(0).gpu_left() + fs.node(1).gpu_left(), 200);
  EXPECT_EQ(fs.idle(), 200);
  // No budget, no move; and a failed attempt changes nothing.
  FillState none = first_two_placed(nodes, seq, memo, rng);
  const int64_t idle = none.idle();
  const double frag = none.frag();
  PlanCache none_plans(none);
  EXPECT_EQ(make_room(none, 2, 0, rng, true, none_plans), 0);
  const std::vector<Pod> big{pod(1000, 1000, 1, 700), pod(1000, 1000, 1, 700),
                             pod(1000, 1000, 1, 1000)};
  FillState stuck = first_two_placed(nodes, big, memo, rng);
  const int64_t stuck_idle = stuck.idle();
  const double stuck_frag = stuck.frag();
  PlanCache stuck_plans(stuck);
  EXPECT_EQ(make_room(stuck, 2, 5, rng, true, stuck_plans), 0);
  EXPECT_EQ(stuck.idle(), stuck_idle);
  EXPECT_EQ(stuck.frag(), stuck_frag);
  EXPECT_EQ(stuck.on(0).size() + stuck.on(1).size(), 2u);
  EXPECT_EQ(none.idle(), idle);
  EXPECT_EQ(none.frag(), frag);
}

// The victims PlanCache serves are those found afresh: random clusters filled by FGD, with
// make_room for every arrival no node takes (so nodes gain and lose pods), and pods whose
// classes repeat with other memory; at every arrival, every node's kept victims for it are
// compared with a new cache's.
TEST(PackMigration, KeptVictimsAreTheFreshOnes) {
  std::mt19937_64 gen(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  const int32_t sizes[] = {250, 470, 500, 810, 1000};
  int moves = 0, found = 0;
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<NodeSpec> nodes;
    std::vector<int> rank;
    for (int r = 0; r < pick(4, 10); ++r) {
      nodes.push_back(node(16000 * pick(1, 4), 64000 * pick(1, 2), pick(1, 8), pick(0, 1)));
      rank.push_back(r);
    }
    std::vector<Pod> seq;
    for (int k = 0; k < 200; ++k) {  // few classes (cpu, cards, milli, models), so they repeat
      const int g = pick(0, 6) == 0 ? 2 : 1;
      seq.push_back(pod(4000 * pick(1, 2), 8000 * pick(1, 3), g, g > 1 ? 1000 : sizes[pick(0, 4)],
                        pick(0, 4) == 0 ? 1u : 0u));
    }
    const TypicalPods typical = typical_pods(seq);
    FragMemo memo(typical);
    FillState fs(nodes, rank, seq, Policy::kFgd, memo, nullptr, true);
    PlanCache plans(fs);
    PolicyRng rng(trial);
    for (size_t i = 0; i < seq.size(); ++i) {
      for (size_t r = 0; r < fs.size(); ++r) {
        const PlanCache::Entry& kept = plans.victims(fs, r, i);
        PlanCache once(fs);
        const PlanCache::Entry& fresh = once.victims(fs, r, i);
        ASSERT_EQ(kept.found, fresh.found) << "trial " << trial << " pod " << i << " node " << r;
        ASSERT_EQ(kept.victims, fresh.victims) << "trial " << trial << " pod " << i;
        ASSERT_EQ(kept.moved_milli, fresh.moved_milli);
        found += fresh.found;
      }
      const size_t r = fs.best(i, true, fs.size());
      if (r != fs.size())
        fs.place(r, i, rng, true);
      else
        moves += make_room(fs, i, 4, rng, true, plans);
    }
  }
  EXPECT_GT(moves, 20);  // nodes also lost pods to migrations
  EXPECT_GT(found, 1000);
}

TEST(PackMigration, KeepsAPlanOnlyWhenItStrandsNoMoreThanItPlaces) {
  // Node 0 (model 0, one card, 8 cores) holds V (500 milli, 7 cores); node 1 (model 1, two
  // cards, 8 cores) is empty. The arrival may run on model 0 only and needs V gone. Moving V
  // to node 1 leaves node 1 one core: its 1,500 free milli become useless to the typical pod
  // (one card, 2 cores), so F grows by 1,500 there and falls by node 0's change.
  const std::vector<NodeSpec> nodes{node(8000, 64000, 1, 0), node(8000, 64000, 2, 1)};
  TypicalPods typical;
  typical.pods.push_back(TypicalPod{2000, 1000, 1, 0, "", 1, 1});
  FragMemo memo(typical);
  PolicyRng rng(1);
  const auto trial = [&](int32_t milli) {
    const std::vector<Pod> seq{pod(7000, 1000, 1, 500), pod(2000, 1000, 1, milli, 1)};
    FillState fs(nodes, {0, 1}, seq, Policy::kBestFit, memo, nullptr, true);
    fs.place(0, 0, rng, true);
    EXPECT_EQ(fs.best(1, true, fs.size()), fs.size());
    const int64_t idle = fs.idle();
    const double frag = fs.frag();
    PlanCache plans(fs);
    const int moved = make_room(fs, 1, 1, rng, true, plans);
    if (moved == 0) {  // nothing changed
      EXPECT_EQ(fs.idle(), idle);
      EXPECT_EQ(fs.frag(), frag);
      EXPECT_EQ(fs.on(0).size(), 1u);
      EXPECT_TRUE(fs.on(1).empty());
      EXPECT_EQ(fs.node(1).cpu_left, 8000);
    }
    return moved;
  };
  // 600 milli placed: F grows by 1,500 + (400 − 500) = 1,400 > 600, so V stays.
  EXPECT_EQ(trial(600), 0);
  // A whole card placed: F grows by 1,500 + (0 − 500) = 1,000 ≤ 1,000, so V moves.
  EXPECT_EQ(trial(1000), 1);
}

TEST(PackMigration, SwapsACpuHeavyPodForALightOneToUseAFreeCard) {
  // Node 0 has a free card but its CPU is held by a whole-card pod V (14 cores); node 1's only
  // card holds W (3 cores) beside 13 free cores. The arrival (8 cores, one card) fits neither;
  // no single move helps (V and W fit nowhere else as things stand): V and W trade places.
  const std::vector<NodeSpec> nodes{node(16000, 64000, 2, 0), node(16000, 64000, 1, 0)};
  const std::vector<Pod> seq{pod(14000, 1000, 1, 1000), pod(3000, 1000, 1, 1000),
                             pod(8000, 1000, 1, 1000)};
  TypicalPods typical;
  typical.pods.push_back(TypicalPod{1000, 1000, 1, 0, "", 1, 1});
  FragMemo memo(typical);
  PolicyRng rng(1);
  FillState fs = first_two_placed(nodes, seq, memo, rng);
  EXPECT_EQ(fs.best(2, true, fs.size()), fs.size());
  const int64_t idle = fs.idle();
  // One migration left is not enough for a swap: nothing changes.
  PlanCache plans(fs);
  EXPECT_EQ(make_room(fs, 2, 1, rng, true, plans), 0);
  EXPECT_EQ(fs.idle(), idle);
  EXPECT_EQ(fs.node(0).cpu_left, 2000);
  EXPECT_EQ(fs.node(1).cpu_left, 13000);
  ASSERT_EQ(fs.on(0).size(), 1u);
  EXPECT_EQ(fs.on(0)[0].pod, 0u);
  // With two, V goes to node 1, W to node 0, and the arrival beside W.
  EXPECT_EQ(make_room(fs, 2, 2, rng, true, plans), 2);
  ASSERT_EQ(fs.on(0).size(), 2u);
  ASSERT_EQ(fs.on(1).size(), 1u);
  EXPECT_EQ(fs.on(1)[0].pod, 0u);
  EXPECT_EQ(fs.node(0).cpu_left, 16000 - 3000 - 8000);
  EXPECT_EQ(fs.node(1).cpu_left, 16000 - 14000);
  EXPECT_EQ(fs.idle(), 0);
  // swap_room alone, where W's model list excludes node 0's model: no change.
  const std::vector<NodeSpec> mixed{node(16000, 64000, 2, 0), node(16000, 64000, 1, 1)};
  const std::vector<Pod> picky{pod(14000, 1000, 1, 1000), pod(3000, 1000, 1, 1000, 2),
                               pod(8000, 1000, 1, 1000)};
  FillState none = first_two_placed(mixed, picky, memo, rng);
  EXPECT_EQ(swap_room(none, 2, 10, rng, true), 0);
  EXPECT_EQ(none.node(0).cpu_left, 2000);
  EXPECT_EQ(none.node(1).cpu_left, 13000);
  EXPECT_EQ(none.on(0).size() + none.on(1).size(), 2u);
}

}  // namespace
}  // namespace frugal::pack
