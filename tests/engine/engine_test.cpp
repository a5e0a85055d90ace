// The engine driven directly: its view of a job's progress must match the simulator's.

#include "engine/engine.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../common/test_util.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;
using testing::test_gpus;

const Decision* find(const std::vector<Decision>& ds, Decision::Kind k, JobIdx j) {
  for (const Decision& d : ds)
    if (d.kind == k && d.job == j) return &d;
  return nullptr;
}

// A LAS demotion must not restart the checkpoint clock: a job checkpointing every 100 s,
// demoted at 225 s and stopped at 250 s, has 200 s of work saved (as the simulator counts),
// not 225 s.
TEST(Engine, LasDemotionKeepsTheCheckpointClock) {
  Engine e(make_homogeneous_cluster(16, kA100, 8), test_gpus(), testing::profile("las"),
           EngineOptions{kA100});
  JobSpec j0 = job("j0", 0, 16, 1000);
  j0.checkpoint_interval = 100;
  const JobSpec j1 = job("j1", 250, 16, 100);
  e.submit(0, &j0, 0);
  ASSERT_TRUE(find(e.schedule(0), Decision::Kind::kStart, 0));
  EXPECT_DOUBLE_EQ(e.next_wakeup(), 225);  // 3,600 GPU-s / 16 GPUs
  EXPECT_TRUE(e.schedule(225).empty());
  EXPECT_EQ(e.job(0).las_level, 1);
  EXPECT_DOUBLE_EQ(e.job(0).attained_gpu_s, 3600);
  e.submit(1, &j1, 250);
  const auto& ds = e.schedule(250);
  ASSERT_TRUE(find(ds, Decision::Kind::kPreempt, 0));
  ASSERT_TRUE(find(ds, Decision::Kind::kStart, 1));
  EXPECT_DOUBLE_EQ(e.job(0).progress_ref_s, 200);
  EXPECT_DOUBLE_EQ(e.job(0).attained_gpu_s, 250.0 * 16);
  EXPECT_EQ(e.check_invariants(), "");
  // Resumed at 350 with 800 s of work left: expected end 1150, as simulated.
  e.finish(1, 350);
  ASSERT_TRUE(find(e.schedule(350), Decision::Kind::kStart, 0));
  EXPECT_DOUBLE_EQ(e.job(0).expected_end(350), 1150);
  // Next demotion at 36,000 GPU-s: 4,000 attained, 32,000 / 16 = 2,000 s after 350.
  EXPECT_DOUBLE_EQ(e.next_wakeup(), 2350);
}

// Without checkpoints, progress across a demotion is exact.
TEST(Engine, LasDemotionWithoutCheckpointsKeepsAllWork) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("las"),
           EngineOptions{kA100});
  const JobSpec j0 = job("j0", 0, 8, 1000);
  const JobSpec j1 = job("j1", 500, 8, 100);
  e.submit(0, &j0, 0);
  e.schedule(0);
  EXPECT_DOUBLE_EQ(e.next_wakeup(), 450);
  e.schedule(450);
  e.submit(1, &j1, 500);
  ASSERT_TRUE(find(e.schedule(500), Decision::Kind::kPreempt, 0));
  EXPECT_DOUBLE_EQ(e.job(0).progress_ref_s, 500);
  EXPECT_DOUBLE_EQ(e.job(0).attained_gpu_s, 4000);
  EXPECT_EQ(e.job(0).preemptions, 1);
  EXPECT_EQ(e.check_invariants(), "");
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

// Checkpoint-first protocol: kSignal (GPUs kept) at the preemption, a wakeup at the grace's
// end, then kPreempt (saved) and the waiting job's kStart in that cycle; the engine keeps
// all work up to the signal (not just up to the last periodic checkpoint).
TEST(Engine, TierPreemptSignalsThenStopsAfterTheGrace) {
  Engine e(make_homogeneous_cluster(2, kA100, 2), test_gpus(), testing::profile("tiers"),
           EngineOptions{kA100});
  JobSpec g = job("g", 0, 2, 1000);
  g.checkpoint_interval = 100;
  JobSpec c = job("c", 250, 1, 100);
  c.tier = Tier::kCore;
  e.submit(0, &g, 0);
  ASSERT_TRUE(find(e.schedule(0), Decision::Kind::kStart, 0));
  e.submit(1, &c, 250);
  {
    const auto& ds = e.schedule(250);
    const Decision* s = find(ds, Decision::Kind::kSignal, 0);
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->until, 310);
    EXPECT_FALSE(find(ds, Decision::Kind::kStart, 1));
    EXPECT_FALSE(find(ds, Decision::Kind::kPreempt, 0));
  }
  EXPECT_DOUBLE_EQ(e.next_wakeup(), 310);
  EXPECT_TRUE(e.job(0).signalled());
  EXPECT_TRUE(e.schedule(280).empty());  // no second signal while it drains
  const auto& ds = e.schedule(310);
  const Decision* p = find(ds, Decision::Kind::kPreempt, 0);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->saved);
  EXPECT_EQ(p->placement.slots.size(), 2u);
  ASSERT_TRUE(find(ds, Decision::Kind::kStart, 1));
  EXPECT_DOUBLE_EQ(e.job(0).progress_ref_s, 250);
  EXPECT_EQ(e.job(0).preemptions, 1);
  EXPECT_FALSE(e.job(0).signalled());
  EXPECT_EQ(e.check_invariants(), "");
}

// A job that checkpoints faster than the profile's grace (JobSpec::checkpoint_grace) frees
// its GPUs when its own grace ends; one asking more than the profile gets the profile's.
TEST(Engine, AJobsOwnShorterGraceEndsItsDrainSooner) {
  for (const auto& [own, until] : {std::pair{5.0, 255.0}, {600.0, 310.0}, {-1.0, 310.0}}) {
    SCOPED_TRACE(own);
    Engine e(make_homogeneous_cluster(2, kA100, 2), test_gpus(), testing::profile("tiers"),
             EngineOptions{kA100});
    JobSpec g = job("g", 0, 2, 1000);
    g.checkpoint_grace = own;
    JobSpec c = job("c", 250, 1, 100);
    c.tier = Tier::kCore;
    e.submit(0, &g, 0);
    ASSERT_TRUE(find(e.schedule(0), Decision::Kind::kStart, 0));
    e.submit(1, &c, 250);
    const Decision* s = find(e.schedule(250), Decision::Kind::kSignal, 0);
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->until, until);
    EXPECT_DOUBLE_EQ(e.next_wakeup(), until);
    EXPECT_TRUE(find(e.schedule(until), Decision::Kind::kPreempt, 0));
  }
}

TEST(Engine, ElasticResizeDecisions) {
  // One 8-GPU node. E asks for 2 (min 1, max 8): started at 2, grown to 8 in the same
  // cycle (kResize, restart = resize_cost_s). R (3 GPUs) arrives: E shrinks in place to 5
  // (its first 5 GPUs) and R starts on the other 3.
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("fifo+elastic"),
           EngineOptions{kA100});
  JobSpec el = job("E", 0, 2, 1000);
  el.min_gpus = 1;
  el.max_gpus = 8;
  JobSpec r = job("R", 100, 3, 100);
  e.submit(0, &el, 0);
  {
    const auto& ds = e.schedule(0);
    ASSERT_TRUE(find(ds, Decision::Kind::kStart, 0));
    const Decision* g = find(ds, Decision::Kind::kResize, 0);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->placement.slots.size(), 8u);
    EXPECT_DOUBLE_EQ(g->until, 30);
  }
  EXPECT_EQ(e.job(0).size, 8);
  EXPECT_DOUBLE_EQ(e.job(0).gpus(), 8);
  EXPECT_NEAR(e.job(0).speed, std::pow(4.0, 0.8), 1e-12);
  const Placement grown = e.job(0).placement;
  e.submit(1, &r, 100);
  {
    const auto& ds = e.schedule(100);
    const Decision* s = find(ds, Decision::Kind::kResize, 0);
    ASSERT_TRUE(s);
    ASSERT_EQ(s->placement.slots.size(), 5u);
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(s->placement.slots[i].gpu, grown.slots[i].gpu);
    ASSERT_TRUE(find(ds, Decision::Kind::kStart, 1));
    EXPECT_LT(s, find(ds, Decision::Kind::kStart, 1));  // the shrink comes first
  }
  EXPECT_EQ(e.job(0).resizes, 2);
  EXPECT_EQ(e.check_invariants(), "");
  EXPECT_STREQ(to_string(Decision::Kind::kResize), "resize");
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

// Every "no" carries a code and a reason (Engine::explain): the point that said it, and the
// resource at fault.
TEST(Engine, ExplainSaysWhichPointHoldsAJobAndWhy) {
  // Two 4-GPU nodes; fifo (strict): the head of the queue blocks everything behind it.
  Engine e(make_homogeneous_cluster(8, kA100, 4), test_gpus(), testing::profile("fifo"),
           EngineOptions{kA100});
  const JobSpec a = job("a", 0, 3, 1000), b = job("b", 0, 3, 1000), c = job("c", 0, 2, 100);
  const JobSpec d = job("d", 0, 1, 100);
  e.submit(0, &a, 0);
  e.submit(1, &b, 0);
  ASSERT_TRUE(find(e.schedule(0), Decision::Kind::kStart, 1));
  EXPECT_TRUE(e.explain(0).ok());  // running
  e.submit(2, &c, 1);              // 1 GPU free on each node: fragmentation
  e.submit(3, &d, 1);              // fits, but fifo holds it behind c
  EXPECT_FALSE(find(e.schedule(1), Decision::Kind::kStart, 3));
  const PluginStatus blocked = e.explain(2);
  EXPECT_EQ(blocked.code, PluginStatus::Code::kUnschedulable);
  EXPECT_EQ(blocked.point, "place");
  EXPECT_EQ(blocked.reason,
            "bestfit: needs 2 whole GPU(s) on one node (A100-80GB: at most 1 free on one node, 2 "
            "in total)");
  const PluginStatus held = e.explain(3);
  EXPECT_EQ(held.point, "postfilter");
  EXPECT_NE(held.reason.find("strict"), std::string::npos) << held.reason;
}

// EngineOptions::walk_limit: a cycle examines at most the limit, the head every cycle and
// the rest in turn, so every queued job is examined within a few cycles; without a limit
// the whole queue is walked each cycle.
TEST(Engine, ABoundedWalkExaminesEveryQueuedJobInTurn) {
  for (const size_t limit : {size_t{0}, size_t{4}}) {
    SCOPED_TRACE(limit);
    EngineOptions o{kA100};
    o.walk_limit = limit;
    Engine e(make_homogeneous_cluster(1, kA100, 1), test_gpus(), testing::profile("backfill"), o);
    std::vector<JobSpec> specs;
    specs.reserve(21);
    specs.push_back(job("holder", 0, 1, 1e6));
    for (int i = 0; i < 19; ++i) specs.push_back(job("w" + std::to_string(i), 1, 1, 100));
    JobSpec small = job("small", 1, 1, 100);  // a fraction: the walk goes on past full GPUs
    small.gpu_milli = 500;
    specs.push_back(small);
    e.submit(0, &specs[0], 0);
    ASSERT_TRUE(find(e.schedule(0), Decision::Kind::kStart, 0));
    for (JobIdx j = 1; j < specs.size(); ++j) e.submit(j, &specs[j], 1);
    int cycles = 0;
    auto unexamined = [&] {
      size_t n = 0;
      for (JobIdx j = 1; j < specs.size(); ++j) n += e.job(j).first_examined < 0;
      return n;
    };
    for (; cycles < 20 && unexamined() > 0; ++cycles) {
      (void)e.schedule(2 + cycles);
      // Jobs still unexamined count with the time they have waited so far.
      if (unexamined() > 0) {
        EXPECT_GE(e.max_wait_unexamined(100), 99.0);
      }
    }
    EXPECT_EQ(unexamined(), 0u);
    // 20 queued jobs, 2 in the head and 2 more a cycle: 9 cycles; all at once without a limit.
    EXPECT_EQ(cycles, limit == 0 ? 1 : 9);
    // Once all were examined: the longest wait before that, whatever the time now.
    EXPECT_GT(e.max_wait_unexamined(1000), limit == 0 ? 0.5 : 5.0);
    EXPECT_LT(e.max_wait_unexamined(1000), 20.0);
    EXPECT_EQ(e.check_invariants(), "");
  }
}

}  // namespace
}  // namespace frugal
