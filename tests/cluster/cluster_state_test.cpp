// ClusterState: allocation bookkeeping, the placement indexes, refusals that change
// nothing, node health, and the invariant checker under random operation sequences.

#include "cluster/cluster_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>

#include "../common/test_util.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::fraction;
using testing::job;
using testing::kA100;
using testing::kV100;
using testing::node;
using testing::test_gpus;

// n0: A100 x8 (16 CPUs, 64 GiB host memory), n1: A100 x4 (untracked host), n2: V100 x4,
// n3: CPU-only (32 CPUs).
ClusterSpec mixed() {
  return cluster_of({node("n0", kA100, 8, 16000, 65536), node("n1", kA100, 4), node("n2", kV100, 4),
                     node("n3", kNoGpuModel, 0, 32000, 131072)});
}

Placement whole(GpuModelId m, NodeId n, std::vector<int> gpus) {
  Placement p;
  p.model = m;
  for (int g : gpus) p.slots.push_back(Slot{n, static_cast<int16_t>(g), kMilliPerGpu});
  return p;
}

Placement share(GpuModelId m, NodeId n, int gpu, Milli milli) {
  Placement p;
  p.model = m;
  p.slots.push_back(Slot{n, static_cast<int16_t>(gpu), milli});
  return p;
}

// Every observable piece of state, as text: two equal snapshots mean nothing changed.
std::string snapshot(const ClusterState& st) {
  std::ostringstream o;
  o << "cap=" << st.capacity_gpus() << " up=" << st.up_gpus() << " alloc=" << st.allocated_milli()
    << " free=" << st.free_whole_total() << "\n";
  for (NodeId n = 0; n < st.node_count(); ++n) {
    o << "node" << n << " up=" << st.up(n) << " whole=" << st.free_whole(n)
      << " cpu=" << st.cpu_free(n) << " gpus:";
    for (int g = 0; g < st.gpus(n); ++g)
      o << " " << st.free_milli(n, g) << "/" << st.free_gpu_memory(n, g);
    o << "\n";
  }
  for (GpuModelId m : st.models()) {
    o << "model" << m << " free=" << st.free_whole_of(m) << " shared:";
    for (NodeId n : st.shared_nodes(m)) o << " " << n;
    for (int k = 0; k <= st.max_gpus_per_node(m); ++k) {
      o << " [" << k << ":";
      for (NodeId n : st.nodes_with_free(m, k)) o << " " << n;
      o << "]";
    }
    o << "\n";
  }
  return o.str();
}

TEST(ClusterState, FreshStateIndexesEveryGpuNode) {
  ClusterState st(mixed(), test_gpus());
  EXPECT_EQ(st.node_count(), 4u);
  EXPECT_EQ(st.models(), (std::vector<GpuModelId>{kA100, kV100}));
  EXPECT_EQ(st.capacity_gpus(), 16);
  EXPECT_EQ(st.up_gpus(), 16);
  EXPECT_EQ(st.free_whole_total(), 16);
  EXPECT_EQ(st.allocated_milli(), 0);
  EXPECT_EQ(st.max_gpus_per_node(kA100), 8);
  EXPECT_EQ(st.max_gpus_per_node(kV100), 4);
  EXPECT_EQ(st.max_gpus_per_node(kNoGpuModel), 0);
  EXPECT_EQ(st.max_gpus_per_node(testing::kT4), 0);  // in the catalog, not the cluster
  EXPECT_EQ(st.nodes_with_free(kA100, 8), (std::set<NodeId>{0}));
  EXPECT_EQ(st.nodes_with_free(kA100, 4), (std::set<NodeId>{1}));
  EXPECT_TRUE(st.nodes_with_free(kA100, 5).empty());
  EXPECT_TRUE(st.nodes_with_free(kA100, 9).empty());  // out of range: empty, not UB
  EXPECT_TRUE(st.nodes_with_free(kA100, -1).empty());
  EXPECT_EQ(st.nodes_with_free(kV100, 4), (std::set<NodeId>{2}));
  EXPECT_TRUE(st.nodes_with_free(testing::kT4, 0).empty());
  EXPECT_TRUE(st.nodes_with_free(kNoGpuModel, 0).empty());
  EXPECT_TRUE(st.shared_nodes(kA100).empty());
  EXPECT_EQ(st.free_whole_of(kA100), 12);
  EXPECT_EQ(st.free_whole_of(kV100), 4);
  EXPECT_EQ(st.free_whole_of(kNoGpuModel), 0);
  EXPECT_EQ(st.gpu_memory(0), 81920);
  EXPECT_EQ(st.gpu_memory(2), 16384);
  EXPECT_EQ(st.free_gpu_memory(2, 3), 16384);
  EXPECT_EQ(st.check_invariants(), "");
}

TEST(ClusterState, WholeGpuAllocateAndReleaseMoveBuckets) {
  ClusterState st(mixed(), test_gpus());
  const std::string fresh = snapshot(st);
  JobSpec j = job("j", 0, 3, 10);
  j.cpu_milli = 4000;
  const Placement p = whole(kA100, 0, {1, 4, 7});
  ASSERT_TRUE(st.allocate(p, j).ok());
  EXPECT_EQ(st.free_whole(0), 5);
  EXPECT_EQ(st.free_milli(0, 1), 0);
  EXPECT_EQ(st.free_milli(0, 0), kMilliPerGpu);
  EXPECT_EQ(st.free_gpu_memory(0, 4), 0);  // a whole card takes all its memory
  EXPECT_EQ(st.cpu_free(0), 12000);
  EXPECT_EQ(st.allocated_milli(), 3000);
  EXPECT_EQ(st.free_whole_total(), 13);
  EXPECT_EQ(st.free_whole_of(kA100), 9);
  EXPECT_TRUE(st.nodes_with_free(kA100, 8).empty());
  EXPECT_EQ(st.nodes_with_free(kA100, 5), (std::set<NodeId>{0}));
  EXPECT_TRUE(st.shared_nodes(kA100).empty());  // whole cards are not "shared"
  EXPECT_EQ(st.check_invariants(), "");

  // A second job fills node 0 entirely: bucket 0.
  const Placement rest = whole(kA100, 0, {0, 2, 3, 5, 6});
  ASSERT_TRUE(st.allocate(rest, job("k", 0, 5, 10)).ok());
  EXPECT_EQ(st.nodes_with_free(kA100, 0), (std::set<NodeId>{0}));
  EXPECT_EQ(st.free_whole_of(kA100), 4);
  EXPECT_EQ(st.check_invariants(), "");

  st.release(p, j);
  st.release(rest, job("k", 0, 5, 10));
  EXPECT_EQ(snapshot(st), fresh);
  EXPECT_EQ(st.check_invariants(), "");
}

TEST(ClusterState, FractionalSharesTrackMilliMemoryAndTheSharedIndex) {
  ClusterState st(mixed(), test_gpus());
  const JobSpec a = fraction("a", 0, 500, 10, 30000);
  const JobSpec b = fraction("b", 0, 500, 10, 20000);
  ASSERT_TRUE(st.allocate(share(kA100, 1, 2, 500), a).ok());
  EXPECT_EQ(st.free_milli(1, 2), 500);
  EXPECT_EQ(st.free_gpu_memory(1, 2), 81920 - 30000);
  EXPECT_EQ(st.free_whole(1), 3);
  EXPECT_EQ(st.nodes_with_free(kA100, 3), (std::set<NodeId>{1}));
  EXPECT_EQ(st.shared_nodes(kA100), (std::set<NodeId>{1}));
  EXPECT_EQ(st.allocated_milli(), 500);
  EXPECT_EQ(st.check_invariants(), "");

  // Filling the card takes it out of the shared index (nothing left to share).
  ASSERT_TRUE(st.allocate(share(kA100, 1, 2, 500), b).ok());
  EXPECT_EQ(st.free_milli(1, 2), 0);
  EXPECT_EQ(st.free_gpu_memory(1, 2), 81920 - 50000);
  EXPECT_TRUE(st.shared_nodes(kA100).empty());
  EXPECT_EQ(st.free_whole(1), 3);
  EXPECT_EQ(st.check_invariants(), "");

  // Releasing one share makes it shared again; releasing both makes the card whole.
  st.release(share(kA100, 1, 2, 500), a);
  EXPECT_EQ(st.shared_nodes(kA100), (std::set<NodeId>{1}));
  EXPECT_EQ(st.free_gpu_memory(1, 2), 81920 - 20000);
  st.release(share(kA100, 1, 2, 500), b);
  EXPECT_TRUE(st.shared_nodes(kA100).empty());
  EXPECT_EQ(st.free_whole(1), 4);
  EXPECT_EQ(st.nodes_with_free(kA100, 4), (std::set<NodeId>{1}));
  EXPECT_EQ(st.free_gpu_memory(1, 2), 81920);
  EXPECT_EQ(st.allocated_milli(), 0);
  EXPECT_EQ(st.check_invariants(), "");
}

TEST(ClusterState, CpuOnlyHostShareUsesNoGpu) {
  ClusterState st(mixed(), test_gpus());
  JobSpec j = job("cpu", 0, 0, 10);
  j.cpu_milli = 30000;
  Placement p;
  p.slots.push_back(Slot{3, -1, 0});
  ASSERT_TRUE(st.allocate(p, j).ok());
  EXPECT_EQ(st.cpu_free(3), 2000);
  EXPECT_EQ(st.allocated_milli(), 0);
  EXPECT_FALSE(st.host_fits(3, j));
  EXPECT_FALSE(st.allocate(p, j).ok());  // a second copy does not fit
  EXPECT_EQ(st.cpu_free(3), 2000);
  EXPECT_TRUE(st.host_fits(1, j));  // n1 does not track CPU: never limits
  st.release(p, j);
  EXPECT_EQ(st.cpu_free(3), 32000);
  EXPECT_EQ(st.check_invariants(), "");
}

// Each refused allocation leaves every counter and index exactly as it was.
TEST(ClusterState, RefusedAllocationsChangeNothing) {
  ClusterState st(mixed(), test_gpus());
  ASSERT_TRUE(st.allocate(whole(kA100, 0, {0, 1}), job("base", 0, 2, 1)).ok());
  ASSERT_TRUE(st.allocate(share(kA100, 1, 0, 700), fraction("f", 0, 700, 1, 60000)).ok());
  st.set_up(2, false);
  const std::string before = snapshot(st);

  struct Case {
    const char* what;
    Placement p;
    JobSpec j;
  };
  Placement dup = whole(kA100, 0, {2, 2});
  Placement dup_share;
  dup_share.model = kA100;
  dup_share.slots = {Slot{1, 1, 600}, Slot{1, 1, 600}};  // each fits alone, not together
  Placement unordered = whole(kA100, 0, {5, 3});
  // Valid first slots, over-committed last one: the first must not be applied.
  Placement tail_bad = whole(kA100, 0, {2, 3, 4, 0});
  Placement across;
  across.model = kA100;
  across.slots = {Slot{0, 2, 1000}, Slot{0, 3, 1000}, Slot{1, 0, 1000}};
  JobSpec hungry = job("hungry", 0, 1, 1);
  hungry.cpu_milli = 17000;  // n0 has 16 CPUs
  JobSpec big_mem = job("mem", 0, 1, 1);
  big_mem.memory_mib = 65537;
  std::vector<Case> cases = {
      {"used GPU", whole(kA100, 0, {1}), job("x", 0, 1, 1)},
      {"duplicate slot", dup, job("x", 0, 2, 1)},
      {"duplicate share", dup_share, fraction("x", 0, 600, 1)},
      {"unordered slots", unordered, job("x", 0, 2, 1)},
      {"last slot over-committed", tail_bad, job("x", 0, 4, 1)},
      {"whole card on a shared card", across, job("x", 0, 3, 1)},
      {"share too big", share(kA100, 1, 0, 301), fraction("x", 0, 301, 1)},
      {"card memory", share(kA100, 1, 0, 100), fraction("x", 0, 100, 1, 21921)},
      {"down node", whole(kV100, 2, {0}), job("x", 0, 1, 1)},
      {"no such node", whole(kA100, 9, {0}), job("x", 0, 1, 1)},
      {"no such GPU", whole(kA100, 1, {4}), job("x", 0, 1, 1)},
      {"zero milli", share(kA100, 0, 3, 0), fraction("x", 0, 1, 1)},
      {"over 1000 milli", share(kA100, 0, 3, 1001), job("x", 0, 1, 1)},
      {"host CPU", whole(kA100, 0, {3}), hungry},
      {"host memory", whole(kA100, 0, {3}), big_mem},
  };
  for (const Case& c : cases) {
    const Status s = st.allocate(c.p, c.j);
    EXPECT_FALSE(s.ok()) << c.what;
    if (!s.ok()) {
      EXPECT_FALSE(s.error().message.empty()) << c.what;
    }
    EXPECT_EQ(snapshot(st), before) << c.what;
    EXPECT_EQ(st.check_invariants(), "") << c.what;
  }
  // The memory case above fails on memory alone: 300 milli are free on that card.
  EXPECT_TRUE(st.allocate(share(kA100, 1, 0, 300), fraction("x", 0, 300, 1, 21920)).ok());
}

TEST(ClusterState, SetUpRemovesAndRestoresANodeInTheIndexes) {
  ClusterState st(mixed(), test_gpus());
  const JobSpec j = job("j", 0, 2, 1);
  const Placement p = whole(kA100, 0, {0, 1});
  ASSERT_TRUE(st.allocate(p, j).ok());
  st.set_up(0, false);
  EXPECT_FALSE(st.up(0));
  EXPECT_EQ(st.up_gpus(), 8);
  EXPECT_EQ(st.capacity_gpus(), 16);
  EXPECT_EQ(st.free_whole_of(kA100), 4);
  EXPECT_EQ(st.free_whole_total(), 8);
  EXPECT_TRUE(st.nodes_with_free(kA100, 6).empty());
  EXPECT_EQ(st.allocated_milli(), 2000);  // allocations stay until released
  EXPECT_EQ(st.check_invariants(), "");
  st.set_up(0, false);  // idempotent
  EXPECT_EQ(st.up_gpus(), 8);
  EXPECT_FALSE(st.allocate(whole(kA100, 0, {5}), job("k", 0, 1, 1)).ok());

  // A job stopped while its node is down releases into an unindexed node.
  st.release(p, j);
  EXPECT_EQ(st.free_whole(0), 8);
  EXPECT_EQ(st.free_whole_total(), 8);
  EXPECT_TRUE(st.nodes_with_free(kA100, 8).empty());
  EXPECT_EQ(st.check_invariants(), "");

  st.set_up(0, true);
  EXPECT_EQ(st.up_gpus(), 16);
  EXPECT_EQ(st.nodes_with_free(kA100, 8), (std::set<NodeId>{0}));
  EXPECT_EQ(st.free_whole_of(kA100), 12);
  EXPECT_EQ(st.free_whole_total(), 16);
  st.set_up(0, true);
  EXPECT_EQ(st.up_gpus(), 16);
  EXPECT_EQ(st.check_invariants(), "");

  // A CPU-only node can go down and back up too.
  st.set_up(3, false);
  EXPECT_EQ(st.up_gpus(), 16);
  JobSpec cpu = job("cpu", 0, 0, 1);
  Placement host;
  host.slots.push_back(Slot{3, -1, 0});
  EXPECT_FALSE(st.allocate(host, cpu).ok());
  st.set_up(3, true);
  EXPECT_TRUE(st.allocate(host, cpu).ok());
  EXPECT_EQ(st.check_invariants(), "");
}

// Random allocate/release/set_up sequences: the incremental indexes always agree with a
// recomputation, refusals change nothing, and releasing everything restores the start.
TEST(ClusterState, RandomSequencesKeepInvariants) {
  ClusterSpec spec = cluster_of({node("a0", kA100, 8, 64000, 0), node("a1", kA100, 8),
                                 node("a2", kA100, 4), node("v0", kV100, 4, 8000, 32768),
                                 node("v1", kV100, 2), node("c0", kNoGpuModel, 0, 16000, 0)});
  for (uint32_t seed : {1u, 2u, 3u, 42u, 1234u}) {
    std::mt19937 rng(seed);
    ClusterState st(spec, test_gpus());
    const std::string fresh = snapshot(st);
    struct Held {
      Placement p;
      JobSpec j;
    };
    std::vector<Held> held;
    std::vector<JobSpec> jobs;
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int step = 0; step < 2000; ++step) {
      const int op = pick(0, 9);
      if (op <= 5) {
        // A random placement: some slots valid, some not; allocate decides.
        const NodeId n = static_cast<NodeId>(pick(0, static_cast<int>(spec.nodes.size()) - 1));
        JobSpec j = job("r", 0, 1, 1);
        j.cpu_milli = pick(0, 3) == 0 ? pick(1, 20) * 1000 : 0;
        j.memory_mib = pick(0, 3) == 0 ? pick(1, 40) * 1024 : 0;
        Placement p;
        p.model = spec.nodes[n].model;
        if (spec.nodes[n].gpus == 0) {
          j.gpus = 0;
          p.slots.push_back(Slot{n, -1, 0});
        } else if (pick(0, 2) == 0) {
          const Milli m = static_cast<Milli>(pick(1, 10) * 100);
          j = fraction("r", 0, std::min<Milli>(m, 999), 1, pick(0, 2) * 8000);
          p.slots.push_back(Slot{n, static_cast<int16_t>(pick(0, spec.nodes[n].gpus - 1)),
                                 std::min<Milli>(m, 999)});
        } else {
          const int k = pick(1, spec.nodes[n].gpus);
          j.gpus = k;
          std::vector<int> g(static_cast<size_t>(spec.nodes[n].gpus));
          std::iota(g.begin(), g.end(), 0);
          std::shuffle(g.begin(), g.end(), rng);
          g.resize(static_cast<size_t>(k));
          std::sort(g.begin(), g.end());
          for (int x : g) p.slots.push_back(Slot{n, static_cast<int16_t>(x), kMilliPerGpu});
        }
        const std::string before = snapshot(st);
        if (st.allocate(p, j).ok()) {
          held.push_back({p, j});
        } else {
          ASSERT_EQ(snapshot(st), before) << "seed " << seed << " step " << step;
        }
      } else if (op <= 8) {
        if (held.empty()) continue;
        const size_t i = static_cast<size_t>(pick(0, static_cast<int>(held.size()) - 1));
        st.release(held[i].p, held[i].j);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        const NodeId n = static_cast<NodeId>(pick(0, static_cast<int>(spec.nodes.size()) - 1));
        st.set_up(n, !st.up(n));
      }
      ASSERT_EQ(st.check_invariants(), "") << "seed " << seed << " step " << step;
      int64_t milli = 0;
      for (const Held& h : held)
        for (const Slot& s : h.p.slots) milli += s.gpu >= 0 ? s.milli : 0;
      ASSERT_EQ(st.allocated_milli(), milli);
    }
    for (const Held& h : held) st.release(h.p, h.j);
    for (NodeId n = 0; n < spec.nodes.size(); ++n) st.set_up(n, true);
    EXPECT_EQ(snapshot(st), fresh) << "seed " << seed;
    EXPECT_EQ(st.check_invariants(), "");
  }
}

}  // namespace
}  // namespace frugal
