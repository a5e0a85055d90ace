// Sharing measured idle (policy/lend_idle.h) through the engine: a consenting job measured
// at 30 % lends its card to a waiting opportunistic job, with a 70 % share (the MPS limit)
// and no cluster capacity taken; the guest is recalled when the host's load returns, its
// card's memory fills, or the host stops, ends, moves or its node fails.

#include "policy/lend_idle.h"

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "engine/engine.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;

const Decision* find(const std::vector<Decision>& ds, Decision::Kind k, JobIdx j) {
  for (const Decision& d : ds)
    if (d.kind == k && d.job == j) return &d;
  return nullptr;
}

MeasuredUse use(Seconds at, double peak, double memory = 0.2, double latest = -1,
                Seconds window = 300) {
  return MeasuredUse{at, window, peak, memory, peak, latest < 0 ? peak : latest};
}

struct Lending {
  JobSpec host = job("host", 0, 1, 100000);
  JobSpec guest = job("guest", 0, 1, 1000);
  Engine e;
  explicit Lending(LendOptions o = {}, int gpus = 1)
      : e(make_homogeneous_cluster(gpus, kA100, gpus), testing::test_gpus(), profile_with(o),
          EngineOptions{kA100}) {
    host.lend_idle = true;
    guest.opportunistic = true;
    guest.gpu_milli = 500;
    guest.submit = 10;
  }
  static Profile profile_with(LendOptions o) {
    Profile p = testing::profile("fifo");
    p.plugins.push_back(make_lend_idle(o));
    return p;
  }
  // Host running since 0, measured at `peak` over 5 min at t=300; the guest queued at 10.
  const std::vector<Decision>& start(double peak) {
    e.submit(0, &host, 0);
    EXPECT_NE(find(e.schedule(0), Decision::Kind::kStart, 0), nullptr);
    e.submit(1, &guest, 10);
    EXPECT_EQ(find(e.schedule(10), Decision::Kind::kStart, 1), nullptr);  // no use measured
    e.observe_job(0, use(300, peak));
    return e.schedule(300);
  }
};

TEST(LendIdle, AWaitingOpportunisticJobRunsBesideAJobMeasuredAt30PercentWithItsHeadroom) {
  Lending l;
  const Decision* d = find(l.start(0.3), Decision::Kind::kStart, 1);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->guest);
  EXPECT_EQ(d->host, 0u);
  ASSERT_EQ(d->placement.slots.size(), 1u);
  EXPECT_EQ(d->placement.slots[0].milli, 700);  // the MPS limit: 1 - 0.3
  EXPECT_NE(d->reason.find("(MPS limit 70 %)"), std::string::npos) << d->reason;
  EXPECT_EQ(l.e.job(1).state, JobState::kRunning);
  EXPECT_TRUE(l.e.guest(1));
  EXPECT_EQ(l.e.running_count(), 1u);                // the host only
  EXPECT_EQ(l.e.cluster().allocated_milli(), 1000);  // the host's card, nothing more
  EXPECT_EQ(l.e.check_invariants(), "");
}

TEST(LendIdle, TheGuestGoesWhenTheHostsLoadReturns) {
  Lending l;
  ASSERT_NE(find(l.start(0.3), Decision::Kind::kStart, 1), nullptr);
  l.e.observe_job(0, use(310, 0.9, 0.2, 0.9));
  const Decision* d = find(l.e.schedule(310), Decision::Kind::kPreempt, 1);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->guest);
  EXPECT_NE(d->reason.find("host job host needs its GPU back (90 % busy)"), std::string::npos)
      << d->reason;
  EXPECT_EQ(l.e.job(1).state, JobState::kPending);
  EXPECT_EQ(l.e.job(0).state, JobState::kRunning);
  EXPECT_EQ(l.e.job(1).preemptions, 1);
  EXPECT_EQ(l.e.check_invariants(), "");
  // Busy now: nothing lent again.
  EXPECT_EQ(find(l.e.schedule(320), Decision::Kind::kStart, 1), nullptr);
}

TEST(LendIdle, TheGuestGoesWhenItsCardsMemoryFills) {
  Lending l;
  ASSERT_NE(find(l.start(0.3), Decision::Kind::kStart, 1), nullptr);
  NodeReading r;
  r.at = 310;
  r.gpus.assign(1, GpuReading{0.9, 0.95, 300, 60});
  l.e.observe_node(0, r);
  const Decision* d = find(l.e.schedule(310), Decision::Kind::kPreempt, 1);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("near its memory limit (95 % used)"), std::string::npos) << d->reason;
}

TEST(LendIdle, TheHostEndingOrItsNodeFailingRecallsTheGuest) {
  {
    Lending l;
    ASSERT_NE(find(l.start(0.3), Decision::Kind::kStart, 1), nullptr);
    l.e.finish(0, 400);
    const auto& ds = l.e.schedule(400);
    ASSERT_NE(find(ds, Decision::Kind::kPreempt, 1), nullptr);
    // Requeued, and the card is free now: it starts there as an ordinary job.
    const Decision* s = find(ds, Decision::Kind::kStart, 1);
    ASSERT_NE(s, nullptr);
    EXPECT_FALSE(s->guest);
    EXPECT_EQ(s->placement.slots[0].milli, 500);
    EXPECT_EQ(l.e.check_invariants(), "");
  }
  {
    Lending l;
    ASSERT_NE(find(l.start(0.3), Decision::Kind::kStart, 1), nullptr);
    l.e.node_down(0, 400);
    const auto& ds = l.e.schedule(400);
    EXPECT_NE(find(ds, Decision::Kind::kPreempt, 0), nullptr);
    EXPECT_NE(find(ds, Decision::Kind::kPreempt, 1), nullptr);
    EXPECT_EQ(l.e.job(1).state, JobState::kPending);
    EXPECT_EQ(l.e.check_invariants(), "");
  }
}

TEST(LendIdle, AGuestThatEndsLeavesItsHostAlone) {
  Lending l;
  ASSERT_NE(find(l.start(0.3), Decision::Kind::kStart, 1), nullptr);
  l.e.finish(1, 500);
  EXPECT_EQ(l.e.job(1).state, JobState::kFinished);
  EXPECT_FALSE(l.e.guest(1));
  EXPECT_TRUE(l.e.schedule(500).empty());
  EXPECT_EQ(l.e.job(0).state, JobState::kRunning);
  EXPECT_EQ(l.e.check_invariants(), "");
}

TEST(LendIdle, NothingIsLentWithoutConsentAWholeWindowOrEnoughHeadroom) {
  {
    Lending l;
    l.host.lend_idle = false;
    EXPECT_EQ(find(l.start(0.3), Decision::Kind::kStart, 1), nullptr);
  }
  {
    Lending l(LendOptions{.general_lends = true});  // ... unless its tier lends by policy
    l.host.lend_idle = false;
    EXPECT_NE(find(l.start(0.3), Decision::Kind::kStart, 1), nullptr);
  }
  {
    Lending l;
    l.guest.opportunistic = false;
    EXPECT_EQ(find(l.start(0.3), Decision::Kind::kStart, 1), nullptr);
  }
  {
    Lending l;  // busier than lend_below (0.5)
    EXPECT_EQ(find(l.start(0.6), Decision::Kind::kStart, 1), nullptr);
  }
  {
    Lending l;  // measured over 1 min only
    l.e.submit(0, &l.host, 0);
    l.e.schedule(0);
    l.e.submit(1, &l.guest, 10);
    l.e.observe_job(0, use(60, 0.3, 0.2, -1, 60));
    EXPECT_EQ(find(l.e.schedule(60), Decision::Kind::kStart, 1), nullptr);
  }
  {
    Lending l;  // the guest's declared memory does not fit beside the host's 70 %
    l.guest.gpu_memory_mib = 40 * 1024;
    l.e.submit(0, &l.host, 0);
    l.e.schedule(0);
    l.e.submit(1, &l.guest, 10);
    l.e.observe_job(0, use(300, 0.3, 0.7));
    EXPECT_EQ(find(l.e.schedule(300), Decision::Kind::kStart, 1), nullptr);
  }
}

TEST(LendIdle, OneGuestPerCardTheLargestShareFirst) {
  Lending l(LendOptions{}, 2);
  JobSpec busy = job("busy", 0, 1, 100000), idle = job("idle", 0, 1, 100000);
  busy.lend_idle = idle.lend_idle = true;
  JobSpec g2 = l.guest, g3 = l.guest;
  g2.id = "g2";
  g3.id = "g3";
  l.e.submit(0, &busy, 0);
  l.e.submit(1, &idle, 0);
  l.e.schedule(0);
  l.e.submit(2, &g2, 10);
  l.e.submit(3, &g3, 10);
  l.e.observe_job(0, use(300, 0.4));
  l.e.observe_job(1, use(300, 0.1));
  const auto& ds = l.e.schedule(300);
  const Decision* a = find(ds, Decision::Kind::kStart, 2);
  const Decision* b = find(ds, Decision::Kind::kStart, 3);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->host, 1u);  // the idler host's card (90 %) to the first in the queue
  EXPECT_EQ(a->placement.slots[0].milli, 900);
  EXPECT_EQ(b->host, 0u);
  EXPECT_EQ(b->placement.slots[0].milli, 600);
  EXPECT_EQ(l.e.check_invariants(), "");
}

}  // namespace
}  // namespace frugal
