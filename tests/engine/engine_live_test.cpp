// The engine's live-service additions: withdraw() and adopt().

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "../cost/cost_test_util.h"
#include "engine/engine.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;
using testing::test_gpus;

bool started(const std::vector<Decision>& ds, JobIdx j) {
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kStart && d.job == j) return true;
  return false;
}

TEST(EngineLive, WithdrawTakesAQueuedJobOffTheQueue) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("fifo"),
           EngineOptions{kA100});
  const JobSpec big = job("big", 0, 8, 100), next = job("next", 0, 8, 100),
                last = job("last", 0, 8, 100);
  e.submit(0, &big, 0);
  e.submit(1, &next, 0);
  e.submit(2, &last, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  EXPECT_EQ(e.pending_count(), 2u);
  EXPECT_TRUE(e.withdraw(1, 10));
  EXPECT_FALSE(e.withdraw(1, 10));  // already gone
  EXPECT_FALSE(e.withdraw(0, 10));  // running: not withdrawable
  EXPECT_EQ(e.pending_count(), 1u);
  EXPECT_EQ(e.check_invariants(), "");
  e.finish(0, 100);
  const auto& ds = e.schedule(100);
  EXPECT_TRUE(started(ds, 2));
  EXPECT_FALSE(started(ds, 1));
  EXPECT_EQ(e.check_invariants(), "");
}

// With EngineOptions::wake_at_expected_ends (the service's), a running job reaching its
// estimated end while a job waits is a wake-up (its end is unknown from then on:
// reservations and preemption candidates change); with nothing waiting it is not, and an
// estimate already passed does not wake again. Without the option (the evaluation's) it is
// never one.
TEST(EngineLive, AnEstimateRunningOutWhileJobsWaitIsAWakeup) {
  for (const bool wake : {true, false}) {
    SCOPED_TRACE(wake);
    EngineOptions o{kA100};
    o.wake_at_expected_ends = wake;
    Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("backfill"), o);
    JobSpec run = job("run", 0, 8, 1000);
    run.estimate = 50;
    const JobSpec wait = job("wait", 10, 8, 100);
    e.submit(0, &run, 0);
    ASSERT_TRUE(started(e.schedule(0), 0));
    EXPECT_EQ(e.next_wakeup(), kNever);  // nothing waits
    e.submit(1, &wait, 10);
    EXPECT_FALSE(started(e.schedule(10), 1));
    EXPECT_EQ(e.next_wakeup(), wake ? 50 : kNever);
    (void)e.schedule(50);
    EXPECT_EQ(e.next_wakeup(), kNever);  // passed: its end is unknown, nothing to wait for
    EXPECT_TRUE(e.withdraw(1, 60));
    EXPECT_EQ(e.check_invariants(), "");
  }
}

TEST(EngineLive, WithdrawADeferredJob) {
  // Energy is cheapest in hour 4 (tests/cost/timeshift_test.cpp): a deferrable job waits.
  ClusterSpec c = testing::hand_cluster(Capacity::kReserved, {testing::gpu_node("n", kA100, 1)});
  c.regions[0].electricity_usd_per_mwh = HourlySeries(testing::kEpoch, {100, 80, 20, 50, 10, 90});
  c.regions[0].offpeak = HourlySeries();
  c.regions[0].pue = 1.0;
  Engine e(c, testing::priced_gpus(), testing::profile("timeshift"), EngineOptions{kA100});
  JobSpec d = job("d", 0, 1, 1800);
  d.deferrable = true;
  d.deadline = 6 * 3600;
  e.submit(0, &d, 0);
  bool deferred = false;
  for (const Decision& x : e.schedule(0)) deferred |= x.kind == Decision::Kind::kDefer;
  ASSERT_TRUE(deferred);
  EXPECT_EQ(e.pending_count(), 1u);
  EXPECT_TRUE(e.withdraw(0, 1));
  EXPECT_EQ(e.pending_count(), 0u);
  EXPECT_EQ(e.next_wakeup(), kNever);
  EXPECT_TRUE(e.schedule(4 * 3600).empty());  // it does not come back at hour 4
  EXPECT_EQ(e.check_invariants(), "");
}

TEST(EngineLive, AdoptHoldsThePlacementAndFinishFreesIt) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("fifo"),
           EngineOptions{kA100});
  const JobSpec a = job("a", 0, 4, 100), b = job("b", 0, 8, 100);
  Placement p;
  p.model = kA100;
  for (int16_t g = 0; g < 4; ++g) p.slots.push_back(Slot{0, g, kMilliPerGpu});
  ASSERT_TRUE(e.adopt(0, &a, p, 5, 10).ok());
  EXPECT_EQ(e.running_count(), 1u);
  EXPECT_EQ(e.cluster().allocated_milli(), 4000);
  EXPECT_FALSE(e.adopt(0, &a, p, 5, 10).ok());  // index in use
  EXPECT_FALSE(e.adopt(5, &a, p, 5, 10).ok());  // GPUs already held
  EXPECT_EQ(e.check_invariants(), "");
  e.submit(1, &b, 10);
  EXPECT_FALSE(started(e.schedule(10), 1));  // needs all 8
  e.finish(0, 20);
  EXPECT_TRUE(started(e.schedule(20), 1));
  EXPECT_EQ(e.check_invariants(), "");
}

// Decisions about job `j` of kind `k` in `ds`.
size_t count(const std::vector<Decision>& ds, JobIdx j, Decision::Kind k) {
  size_t n = 0;
  for (const Decision& d : ds) n += d.job == j && d.kind == k ? 1 : 0;
  return n;
}

// A general job holds the node's 8 GPUs; a core job asks for them. Unpinned, the tier
// preemption signals the general job; pinned (observed, not controlled), it is left alone,
// also when its node goes down.
TEST(EngineLive, PinnedJobIsNeverPreemptedNorStoppedByANodeDown) {
  for (const bool pinned : {false, true}) {
    SCOPED_TRACE(pinned ? "pinned" : "unpinned");
    Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("tiers"),
             EngineOptions{kA100});
    JobSpec ext = job("ext", 0, 8, 1000), core = job("core", 0, 8, 100);
    ext.pinned = pinned;
    core.tier = Tier::kCore;
    Placement p;
    p.model = kA100;
    for (int16_t g = 0; g < 8; ++g) p.slots.push_back(Slot{0, g, kMilliPerGpu});
    const Status adopted = e.adopt(0, &ext, p, 0, 1);
    ASSERT_TRUE(adopted.ok()) << adopted.error().message;
    e.submit(1, &core, 1);
    std::vector<Decision> ds = e.schedule(1);
    const size_t stops =
        count(ds, 0, Decision::Kind::kSignal) + count(ds, 0, Decision::Kind::kPreempt);
    EXPECT_EQ(stops > 0, !pinned);
    if (!pinned) continue;
    EXPECT_FALSE(started(ds, 1));
    ds = e.schedule(1000);  // long past any grace
    EXPECT_EQ(count(ds, 0, Decision::Kind::kPreempt), 0u);
    EXPECT_EQ(e.running_count(), 1u);
    e.node_down(0, 1001);
    ds = e.schedule(1001);
    EXPECT_EQ(count(ds, 0, Decision::Kind::kPreempt), 0u);
    EXPECT_EQ(e.running_count(), 1u);
    e.finish(0, 1002);  // reported ended: its GPUs are free
    EXPECT_EQ(e.cluster().allocated_milli(), 0);
    EXPECT_EQ(e.check_invariants(), "");
  }
}

// A signalled job that ends before its grace (its checkpoint written, its process gone)
// frees its GPUs at once: the preemptor starts then, not when the grace would have ended.
TEST(EngineLive, EndDrainStartsThePreemptorAtOnce) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("tiers"),
           EngineOptions{kA100});
  JobSpec gen = job("gen", 0, 8, 1000), core = job("core", 10, 8, 100);
  core.tier = Tier::kCore;
  e.submit(0, &gen, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  EXPECT_FALSE(e.end_drain(0, 5));  // not signalled: nothing changes
  e.submit(1, &core, 10);
  std::vector<Decision> ds = e.schedule(10);
  ASSERT_EQ(count(ds, 0, Decision::Kind::kSignal), 1u);
  Seconds grace_end = kNever;
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kSignal) grace_end = d.until;
  ASSERT_GT(grace_end, 12);
  EXPECT_FALSE(started(ds, 1));
  ASSERT_TRUE(e.end_drain(0, 12));
  EXPECT_FALSE(e.end_drain(0, 12));  // once
  ds = e.schedule(12);
  EXPECT_EQ(count(ds, 0, Decision::Kind::kPreempt), 1u);
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kPreempt) {
      EXPECT_TRUE(d.saved);
    }
  EXPECT_TRUE(started(ds, 1));
  EXPECT_EQ(e.job(0).preemptions, 1);
  EXPECT_EQ(e.check_invariants(), "");
  // The grace's end brings nothing more.
  ds = e.schedule(grace_end);
  EXPECT_EQ(count(ds, 0, Decision::Kind::kPreempt), 0u);
}

// A job that has outlived its runtime estimate (a live estimate is a guess) may still be
// preempted: when it ends is unknown. (It was skipped as "about to end", and a core job
// waited behind it for as long as it ran.)
TEST(EngineLive, AJobPastItsEstimateIsStillPreemptable) {
  Engine e(make_homogeneous_cluster(1, kA100, 1), test_gpus(), testing::profile("tiers"),
           EngineOptions{kA100});
  JobSpec gen = job("gen", 0, 1, 0), core = job("core", 50, 1, 100);
  core.tier = Tier::kCore;
  e.submit(0, &gen, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  e.submit(1, &core, 50);
  const std::vector<Decision> ds = e.schedule(50);
  EXPECT_EQ(count(ds, 0, Decision::Kind::kSignal) + count(ds, 0, Decision::Kind::kPreempt), 1u);
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

// The service's reaction to a job measured idle: a checkpoint-first stop (kSignal now,
// kPreempt saved at the grace's end, with the reason given), then back in the queue — in its
// own place of the queue order: under FIFO ahead of the job that waited (hence the service's
// hold, next test).
TEST(EngineLive, CheckpointRequeueSignalsThenRequeuesWithItsReason) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("fifo"),
           EngineOptions{kA100});
  const JobSpec idle = job("idle", 0, 8, 10000), next = job("next", 5, 8, 100);
  e.submit(0, &idle, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  e.submit(1, &next, 5);
  EXPECT_FALSE(started(e.schedule(5), 1));
  EXPECT_FALSE(e.checkpoint_requeue(1, 6, 30, "x"));  // not running
  ASSERT_TRUE(e.checkpoint_requeue(0, 10, 30, "idle on all its GPUs for 60 min"));
  EXPECT_FALSE(e.checkpoint_requeue(0, 10, 30, "again"));  // already signalled
  std::vector<Decision> ds = e.schedule(10);
  ASSERT_EQ(count(ds, 0, Decision::Kind::kSignal), 1u);
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kSignal) {
      EXPECT_DOUBLE_EQ(d.until, 40);
      EXPECT_EQ(d.reason, "checkpoint: idle on all its GPUs for 60 min");
    }
  EXPECT_LE(e.next_wakeup(), 40);
  ds = e.schedule(40);
  ASSERT_EQ(count(ds, 0, Decision::Kind::kPreempt), 1u);
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kPreempt) {
      EXPECT_TRUE(d.saved);
      EXPECT_EQ(d.reason, "idle on all its GPUs for 60 min (checkpointed)");
    }
  EXPECT_TRUE(started(ds, 0));  // submitted first: FIFO starts it again
  EXPECT_FALSE(started(ds, 1));
  EXPECT_EQ(e.job(0).preemptions, 1);
  EXPECT_EQ(e.pending_count(), 1u);
  EXPECT_EQ(e.check_invariants(), "");
  EXPECT_FALSE(e.checkpoint_requeue(99, 100, 30, "x"));  // an unknown job is refused
}

// With a hold, the requeued job is deferred first: a job behind it in FIFO order goes first.
TEST(EngineLive, CheckpointRequeueWithAHoldLetsWaitingJobsGoFirst) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("fifo"),
           EngineOptions{kA100});
  const JobSpec idle = job("idle", 0, 8, 10000), next = job("next", 5, 8, 100);
  e.submit(0, &idle, 0);
  ASSERT_TRUE(started(e.schedule(0), 0));
  e.submit(1, &next, 5);
  (void)e.schedule(5);
  ASSERT_TRUE(e.checkpoint_requeue(0, 10, 30, "idle", /*hold=*/60));
  (void)e.schedule(10);
  ASSERT_TRUE(e.end_drain(0, 12));  // it checkpointed and exited early
  std::vector<Decision> ds = e.schedule(12);
  EXPECT_EQ(count(ds, 0, Decision::Kind::kPreempt), 1u);
  EXPECT_EQ(count(ds, 0, Decision::Kind::kDefer), 1u);
  EXPECT_FALSE(started(ds, 0));
  EXPECT_TRUE(started(ds, 1));
  EXPECT_EQ(e.check_invariants(), "");
  EXPECT_LE(e.next_wakeup(), 72);
  e.finish(1, 50);
  EXPECT_FALSE(started(e.schedule(50), 0));  // still held
  EXPECT_TRUE(started(e.schedule(72), 0));
  EXPECT_EQ(e.check_invariants(), "");
}

// A pinned job (one frugal did not start: Slurm's own) is never requeued.
TEST(EngineLive, CheckpointRequeueLeavesPinnedJobsAlone) {
  Engine e(make_homogeneous_cluster(8, kA100, 8), test_gpus(), testing::profile("fifo"),
           EngineOptions{kA100});
  JobSpec ext = job("external", 0, 8, 10000);
  ext.pinned = true;
  Placement p;
  p.model = kA100;
  for (int16_t g = 0; g < 8; ++g) p.slots.push_back(Slot{0, g, kMilliPerGpu});
  ASSERT_TRUE(e.adopt(0, &ext, p, 0, 0).ok());
  EXPECT_FALSE(e.checkpoint_requeue(0, 10, 30, "idle"));
  EXPECT_EQ(e.running_count(), 1u);
}

}  // namespace
}  // namespace frugal
