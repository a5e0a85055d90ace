// The firstfit and bestfit placers on hand-built states where the right answer is known.

#include "policy/placer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../common/test_util.h"
#include "policy/admit_filter.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::fraction;
using testing::job;
using testing::kA100;
using testing::kT4;
using testing::kV100;
using testing::node;
using testing::StateView;
using testing::test_gpus;

// Occupies `count` whole free GPUs of node `n` (lowest indexes first).
void occupy(ClusterState& st, NodeId n, int count) {
  Placement p;
  p.model = st.model(n);
  for (int g = 0; g < st.gpus(n) && count > 0; ++g) {
    if (st.free_milli(n, g) != kMilliPerGpu) continue;
    p.slots.push_back(Slot{n, static_cast<int16_t>(g), kMilliPerGpu});
    --count;
  }
  ASSERT_EQ(count, 0);
  ASSERT_TRUE(st.allocate(p, job("filler", 0, static_cast<int>(p.slots.size()), 1)).ok());
}

Candidates only(std::vector<GpuModelId> m) {
  return Candidates{std::move(m)};
}

// Checks the shared placer rules on `p` and applies it (allocate must accept it).
void expect_valid_and_apply(ClusterState& st, const JobSpec& j, const Placement& p) {
  int64_t milli = 0;
  std::set<std::pair<NodeId, int>> seen;
  for (const Slot& s : p.slots) {
    EXPECT_TRUE(seen.insert({s.node, s.gpu}).second) << "slot reused: node " << s.node;
    if (s.gpu >= 0) {
      EXPECT_EQ(st.model(s.node), p.model);
      milli += s.milli;
    }
  }
  EXPECT_EQ(milli, j.total_milli());
  const Status s = st.allocate(p, j);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(st.check_invariants(), "");
}

std::map<NodeId, int> per_node(const Placement& p) {
  std::map<NodeId, int> m;
  for (const Slot& s : p.slots) ++m[s.node];
  return m;
}

// Three 8-GPU A100 nodes with 6, 3 and 8 GPUs free.
ClusterState partly_used() {
  ClusterState st(cluster_of({node("n0", kA100, 8), node("n1", kA100, 8), node("n2", kA100, 8)}),
                  test_gpus());
  occupy(st, 0, 2);
  occupy(st, 1, 5);
  return st;
}

TEST(Placer, BestFitTakesTheFullestNodeThatFits) {
  const ClusterState st = partly_used();
  const auto best = make_best_fit_placer();
  EXPECT_EQ(best->name(), "bestfit");
  auto p = best->place(st, job("j", 0, 3, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{1, 3}}));  // 3 free: fits exactly
  p = best->place(st, job("j", 0, 4, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{0, 4}}));  // 6 free beats 8 free
  p = best->place(st, job("j", 0, 7, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{2, 7}}));
  // Whole cards are the free ones on that node.
  p = best->place(st, job("j", 0, 1, 1), only({kA100}));
  ASSERT_TRUE(p);
  ASSERT_EQ(p->slots.size(), 1u);
  EXPECT_EQ(p->slots[0].node, 1u);
  EXPECT_EQ(p->slots[0].gpu, 5);
  EXPECT_EQ(p->slots[0].milli, kMilliPerGpu);
  EXPECT_EQ(p->model, kA100);
}

TEST(Placer, FirstFitTakesTheLowestNumberedNodeThatFits) {
  const ClusterState st = partly_used();
  const auto first = make_first_fit_placer();
  EXPECT_EQ(first->name(), "firstfit");
  auto p = first->place(st, job("j", 0, 3, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{0, 3}}));
  p = first->place(st, job("j", 0, 7, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{2, 7}}));
  EXPECT_FALSE(first->place(st, job("j", 0, 9, 1), only({})));
}

TEST(Placer, BestFitBreaksTiesToTheLowestNode) {
  ClusterState st(cluster_of({node("n0", kA100, 8), node("n1", kA100, 8), node("n2", kA100, 8)}),
                  test_gpus());
  occupy(st, 1, 4);
  occupy(st, 2, 4);
  auto p = make_best_fit_placer()->place(st, job("j", 0, 2, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{1, 2}}));
}

TEST(Placer, NothingFitsGivesNullopt) {
  ClusterState st(cluster_of({node("n0", kA100, 8), node("n1", kA100, 8)}), test_gpus());
  occupy(st, 0, 5);
  occupy(st, 1, 5);
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    // 6 GPUs are free in all, but a job that fits on one node is never split.
    EXPECT_FALSE(placer->place(st, job("j", 0, 4, 1), only({kA100}))) << placer->name();
    EXPECT_FALSE(placer->place(st, job("j", 0, 1, 1), only({kV100}))) << placer->name();
    EXPECT_FALSE(placer->place(st, job("j", 0, 1, 1), only({}))) << placer->name();
  }
}

TEST(Placer, MultiNodeJobTakesWholeFreeNodesFirst) {
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    ClusterState st(cluster_of({node("n0", kA100, 8), node("n1", kA100, 8), node("n2", kA100, 8),
                                node("n3", kA100, 8)}),
                    test_gpus());
    occupy(st, 1, 2);  // n1: 6 free
    const JobSpec j = job("j", 0, 20, 1);
    auto p = placer->place(st, j, only({kA100}));
    ASSERT_TRUE(p) << placer->name();
    // Two whole nodes (16) and 4 more from one node: never split over more nodes than that.
    const auto m = per_node(*p);
    int whole_nodes = 0;
    for (const auto& [n, c] : m) whole_nodes += c == 8;
    EXPECT_EQ(whole_nodes, 2) << placer->name();
    EXPECT_EQ(m.size(), 3u) << placer->name();
    expect_valid_and_apply(st, j, *p);
  }
}

// The multi-node placer used to count a node twice when the remainder's smallest
// covering node had already been taken whole: 8 + 8 + 3 + (3 again) = 20 on 4 nodes.
TEST(Placer, MultiNodeJobNeverReusesANode) {
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    ClusterState st(cluster_of({node("n0", kA100, 8), node("n1", kA100, 8), node("n2", kA100, 8),
                                node("n3", kA100, 8)}),
                    test_gpus());
    occupy(st, 2, 5);  // 3 free
    occupy(st, 3, 5);  // 3 free
    const JobSpec j = job("j", 0, 20, 1);
    auto p = placer->place(st, j, only({kA100}));
    ASSERT_TRUE(p) << placer->name();
    EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{0, 8}, {1, 8}, {2, 3}, {3, 1}}))
        << placer->name();
    expect_valid_and_apply(st, j, *p);
    // Only n3's 2 remaining GPUs are free: 2 fit there, 3 fit nowhere.
    EXPECT_EQ(st.free_whole_total(), 2);
    EXPECT_FALSE(placer->place(st, job("k", 0, 9, 1), only({kA100})));
    EXPECT_FALSE(placer->place(st, job("k", 0, 3, 1), only({kA100})));
    auto q = placer->place(st, job("k", 0, 2, 1), only({kA100}));
    ASSERT_TRUE(q);
    EXPECT_EQ(per_node(*q), (std::map<NodeId, int>{{3, 2}}));
  }
  // Every remainder from 1 to 23 on three nodes with 8, 8 and 7 free: a valid placement.
  for (int gpus = 9; gpus <= 23; ++gpus) {
    for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
      ClusterState st(
          cluster_of({node("n0", kA100, 8), node("n1", kA100, 8), node("n2", kA100, 8)}),
          test_gpus());
      occupy(st, 1, 1);
      const JobSpec j = job("j", 0, gpus, 1);
      auto p = placer->place(st, j, only({kA100}));
      ASSERT_TRUE(p) << placer->name() << " " << gpus;
      expect_valid_and_apply(st, j, *p);
    }
  }
}

TEST(Placer, MultiNodeJobDoesNotFitWhenTooFewWholeGpus) {
  ClusterState st(cluster_of({node("n0", kA100, 8), node("n1", kA100, 8), node("n2", kA100, 8)}),
                  test_gpus());
  ASSERT_TRUE(st.allocate(Placement{kA100, {Slot{2, 0, 100}}}, fraction("f", 0, 100, 1)).ok());
  // 23 whole GPUs free (one card is shared): 24 cannot be placed, 23 can.
  const auto best = make_best_fit_placer();
  EXPECT_FALSE(best->place(st, job("j", 0, 24, 1), only({kA100})));
  auto p = best->place(st, job("j", 0, 23, 1), only({kA100}));
  ASSERT_TRUE(p);
  for (const Slot& s : p->slots) EXPECT_FALSE(s.node == 2 && s.gpu == 0);
  expect_valid_and_apply(st, job("j", 0, 23, 1), *p);
}

TEST(Placer, FractionalJobsShareACardWithinItsCapacity) {
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    ClusterState st(cluster_of({node("n0", kA100, 2)}), test_gpus());
    const JobSpec a = fraction("a", 0, 500, 1);
    auto p = placer->place(st, a, only({kA100}));
    ASSERT_TRUE(p);
    expect_valid_and_apply(st, a, *p);
    const int first_card = p->slots[0].gpu;
    const JobSpec b = fraction("b", 0, 300, 1);
    p = placer->place(st, b, only({kA100}));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->slots[0].gpu, first_card) << placer->name() << ": shares the used card";
    EXPECT_EQ(p->slots[0].milli, 300);
    expect_valid_and_apply(st, b, *p);
    // 200 milli left on that card: a 300 share goes to the other card.
    p = placer->place(st, b, only({kA100}));
    ASSERT_TRUE(p);
    EXPECT_NE(p->slots[0].gpu, first_card) << placer->name();
    expect_valid_and_apply(st, b, *p);
    // Fill up with 100-milli shares until nothing fits: never above 1000 per card.
    const JobSpec c = fraction("c", 0, 100, 1);
    int placed = 0;
    while (auto q = placer->place(st, c, only({kA100}))) {
      expect_valid_and_apply(st, c, *q);
      ASSERT_LT(++placed, 100);
    }
    EXPECT_EQ(placed, 2 + 7);
    EXPECT_EQ(st.free_milli(0, 0), 0);
    EXPECT_EQ(st.free_milli(0, 1), 0);
    EXPECT_EQ(st.allocated_milli(), 2000);
  }
}

TEST(Placer, BestFitPutsAShareOnTheTightestCard) {
  ClusterState st(cluster_of({node("n0", kA100, 4), node("n1", kA100, 4)}), test_gpus());
  ASSERT_TRUE(st.allocate(Placement{kA100, {Slot{0, 1, 200}}}, fraction("x", 0, 200, 1)).ok());
  ASSERT_TRUE(st.allocate(Placement{kA100, {Slot{1, 2, 600}}}, fraction("y", 0, 600, 1)).ok());
  // Free: n0 card1 800, n1 card2 400. A 300 share fits both; best fit is the 400 one.
  auto p = make_best_fit_placer()->place(st, fraction("z", 0, 300, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->slots[0].node, 1u);
  EXPECT_EQ(p->slots[0].gpu, 2);
  // firstfit: the lowest-numbered node with room.
  p = make_first_fit_placer()->place(st, fraction("z", 0, 300, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->slots[0].node, 0u);
  // A share bigger than any partly used card takes a whole free card.
  p = make_best_fit_placer()->place(st, fraction("z", 0, 900, 1), only({kA100}));
  ASSERT_TRUE(p);
  EXPECT_EQ(st.free_milli(p->slots[0].node, p->slots[0].gpu), kMilliPerGpu);
}

TEST(Placer, FractionalJobsRespectCardMemory) {
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    // V100 cards have 16 GiB: two 10 GiB shares never share a card, even at 100 milli.
    ClusterState st(cluster_of({node("v0", kV100, 2)}), test_gpus());
    const JobSpec j = fraction("m", 0, 100, 1, 10240);
    auto p = placer->place(st, j, only({kV100}));
    ASSERT_TRUE(p);
    expect_valid_and_apply(st, j, *p);
    p = placer->place(st, j, only({kV100}));
    ASSERT_TRUE(p);
    expect_valid_and_apply(st, j, *p);
    EXPECT_EQ(st.free_milli(0, 0), 900);
    EXPECT_EQ(st.free_milli(0, 1), 900);
    EXPECT_FALSE(placer->place(st, j, only({kV100}))) << placer->name();
    // A small one still fits next to either.
    EXPECT_TRUE(placer->place(st, fraction("s", 0, 100, 1, 6144), only({kV100})));
    EXPECT_FALSE(placer->place(st, fraction("s", 0, 100, 1, 6145), only({kV100})));
    // A whole-card job cannot take a card that holds shares.
    EXPECT_FALSE(placer->place(st, job("w", 0, 1, 1), only({kV100})));
  }
}

ClusterSpec two_models() {
  return cluster_of({node("a0", kA100, 8), node("v0", kV100, 4), node("v1", kV100, 4)});
}

TEST(Placer, AllowedModelsConstrainThePlacement) {
  const ClusterState st(two_models(), test_gpus());
  const StateView view(st);
  const auto filter = make_model_filter();
  JobSpec j = job("j", 0, 2, 1);
  EXPECT_EQ(filter->filter(view, j).models, (std::vector<GpuModelId>{kA100, kV100}));
  j.allowed_models = {kV100};
  const Candidates c = filter->filter(view, j);
  EXPECT_EQ(c.models, (std::vector<GpuModelId>{kV100}));
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    auto p = placer->place(st, j, c);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->model, kV100);
    for (const Slot& s : p->slots) EXPECT_EQ(st.model(s.node), kV100);
  }
  // A model absent from the cluster leaves no candidate.
  j.allowed_models = {kT4};
  EXPECT_TRUE(filter->filter(view, j).models.empty());
  // A job bigger than any allowed node spans nodes of that model only.
  j.allowed_models = {kV100};
  j.gpus = 6;
  auto p = make_best_fit_placer()->place(st, j, filter->filter(view, j));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->model, kV100);
  EXPECT_EQ(per_node(*p).size(), 2u);
}

TEST(Placer, PreferredModelIsTakenWhenItFits) {
  ClusterState st(two_models(), test_gpus());
  const StateView view(st);
  const auto filter = make_model_filter();
  JobSpec j = job("j", 0, 4, 1);
  j.preferred_model = kV100;
  const Candidates c = filter->filter(view, j);
  EXPECT_EQ(c.models, (std::vector<GpuModelId>{kV100, kA100}));
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    auto p = placer->place(st, j, c);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->model, kV100) << placer->name();
  }
  // Preferred model full: falls back to another allowed model.
  occupy(st, 1, 1);
  occupy(st, 2, 1);
  auto p = make_best_fit_placer()->place(st, j, filter->filter(view, j));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->model, kA100);
  // Unless the allowed models exclude it.
  j.allowed_models = {kV100};
  EXPECT_FALSE(make_best_fit_placer()->place(st, j, filter->filter(view, j)));
}

TEST(Placer, CpuOnlyJobGoesToACpuOnlyNodeFirst) {
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    ClusterState st(cluster_of({node("g0", kA100, 8, 64000, 0), node("c0", kNoGpuModel, 0, 8000),
                                node("c1", kNoGpuModel, 0, 10000)}),
                    test_gpus());
    JobSpec j = job("cpu", 0, 0, 1);
    j.cpu_milli = 6000;
    auto p = placer->place(st, j, Candidates{});
    ASSERT_TRUE(p) << placer->name();
    ASSERT_EQ(p->slots.size(), 1u);
    EXPECT_EQ(p->slots[0].gpu, -1);
    // firstfit: c0 (lowest CPU-only node); bestfit: c0 too (least CPU free: 8000 < 10000).
    EXPECT_EQ(p->slots[0].node, 1u) << placer->name();
    expect_valid_and_apply(st, j, *p);
    p = placer->place(st, j, Candidates{});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->slots[0].node, 2u) << placer->name();
    expect_valid_and_apply(st, j, *p);
    // Both CPU-only nodes too full now: the GPU node takes it.
    p = placer->place(st, j, Candidates{});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->slots[0].node, 0u) << placer->name();
    expect_valid_and_apply(st, j, *p);
    EXPECT_EQ(st.allocated_milli(), 0);
    EXPECT_EQ(st.free_whole(0), 8);
  }
}

TEST(Placer, BestFitCpuOnlyJobTakesTheNodeWithLeastCpuLeft) {
  ClusterState st(cluster_of({node("c0", kNoGpuModel, 0, 32000), node("c1", kNoGpuModel, 0, 8000)}),
                  test_gpus());
  JobSpec j = job("cpu", 0, 0, 1);
  j.cpu_milli = 4000;
  auto p = make_best_fit_placer()->place(st, j, Candidates{});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->slots[0].node, 1u);
  p = make_first_fit_placer()->place(st, j, Candidates{});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->slots[0].node, 0u);
}

TEST(Placer, HostCpuAndMemoryLimitsAreRespected) {
  for (const auto& placer : {make_first_fit_placer(), make_best_fit_placer()}) {
    // n0 is the fullest node (best fit) and the lowest (first fit), but has few CPUs.
    ClusterState st(cluster_of({node("n0", kA100, 8, 8000, 65536), node("n1", kA100, 8, 64000, 0),
                                node("n2", kA100, 8, 64000, 1024)}),
                    test_gpus());
    occupy(st, 0, 4);
    JobSpec j = job("j", 0, 2, 1);
    j.cpu_milli = 16000;
    auto p = placer->place(st, j, only({kA100}));
    ASSERT_TRUE(p);
    EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{1, 2}})) << placer->name();
    // Host memory: only n1 (untracked) can hold 100 GiB.
    j.cpu_milli = 0;
    j.memory_mib = 102400;
    p = placer->place(st, j, only({kA100}));
    ASSERT_TRUE(p);
    EXPECT_EQ(per_node(*p), (std::map<NodeId, int>{{1, 2}})) << placer->name();
    // Fractional and multi-node jobs too.
    JobSpec f = fraction("f", 0, 500, 1);
    f.cpu_milli = 9000;
    p = placer->place(st, f, only({kA100}));
    ASSERT_TRUE(p);
    EXPECT_NE(p->slots[0].node, 0u) << placer->name();
    JobSpec m = job("m", 0, 12, 1);
    m.cpu_milli = 9000;  // n0 cannot host its share: n1 and n2 must
    p = placer->place(st, m, only({kA100}));
    ASSERT_TRUE(p);
    EXPECT_EQ(per_node(*p).count(0), 0u) << placer->name();
    expect_valid_and_apply(st, m, *p);
    m.gpus = 9;  // 8 whole GPUs left, 4 of them on n0
    EXPECT_FALSE(placer->place(st, m, only({kA100}))) << placer->name();
  }
}

}  // namespace
}  // namespace frugal
