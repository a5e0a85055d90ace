// The general-tier pause (policy/pause_general.h) at the engine's Hold point: while one of its
// conditions is in force (Engine::set_conditions), queued general-tier jobs wait out of the
// queue and core or important work goes on; a condition about one team holds that team's
// general work only; when the conditions clear, the held jobs start again.

#include "policy/pause_general.h"

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "engine/engine.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;

bool started_now(const std::vector<Decision>& ds, JobIdx j) {
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kStart && d.job == j) return true;
  return false;
}

Engine engine_with(std::vector<std::string> on, const std::string& sort = "fifo") {
  Profile p = testing::profile(sort);
  p.plugins.push_back(make_pause_general(std::move(on)));
  return Engine(make_homogeneous_cluster(8, kA100, 8), testing::test_gpus(), std::move(p),
                EngineOptions{kA100});
}

JobSpec tiered(const std::string& id, Seconds at, int gpus, Tier tier,
               const std::string& team = "alpha") {
  JobSpec s = job(id, at, gpus, 1000);
  s.tier = tier;
  s.team = team;
  return s;
}

TEST(PauseGeneral, ReasonsNameTheRulesInForceForEveryoneThenForTheTeam) {
  const std::vector<std::string> on{"budget_burn", "node_hot"};
  const std::set<std::string> c{"node_hot", "budget_burn@alpha", "disk_low"};
  EXPECT_EQ(paused_by(on, c), std::vector<std::string>{"node_hot"});
  EXPECT_EQ(paused_by(on, c, "alpha"), std::vector<std::string>{"budget_burn"});
  EXPECT_TRUE(paused_by(on, c, "beta").empty());
  EXPECT_EQ(pause_reason(on, c, "alpha"),
            "general tier paused: node_hot, budget_burn (team alpha)");
  EXPECT_EQ(pause_reason(on, c, "beta"), "general tier paused: node_hot");
  EXPECT_EQ(pause_reason(on, {"disk_low"}, "beta"), "");  // not a rule it watches
}

// FIFO with the general job first: without the hold it would block the core job behind it.
TEST(PauseGeneral, AGeneralJobWaitsWhileAConditionIsInForceAndACoreJobDoesNot) {
  Engine e = engine_with({"budget_burn", "node_hot"});
  EXPECT_TRUE(e.set_conditions({"budget_burn"}, 0));
  EXPECT_FALSE(e.set_conditions({"budget_burn"}, 0));  // unchanged
  const JobSpec general = tiered("general", 0, 4, Tier::kGeneral);
  const JobSpec core = tiered("core", 0, 4, Tier::kCore);
  e.submit(0, &general, 0);
  e.submit(1, &core, 0);
  const auto& ds = e.schedule(0);
  EXPECT_FALSE(started_now(ds, 0));
  EXPECT_TRUE(started_now(ds, 1));
  EXPECT_EQ(e.held_count(), 1u);
  EXPECT_EQ(e.pending_count(), 1u);
  const PluginStatus why = e.explain(0);
  EXPECT_EQ(why.point, "hold");
  EXPECT_EQ(why.reason, "general tier paused: budget_burn");
  EXPECT_EQ(e.check_invariants(), "");
  // Another rule in force too: still held; a condition it does not watch changes nothing.
  EXPECT_TRUE(e.set_conditions({"budget_burn", "disk_low"}, 5));
  EXPECT_FALSE(started_now(e.schedule(5), 0));
  // Cleared: back in the queue, it starts.
  EXPECT_TRUE(e.set_conditions({"disk_low"}, 10));
  EXPECT_EQ(e.held_count(), 0u);
  EXPECT_TRUE(started_now(e.schedule(10), 0));
  EXPECT_EQ(e.check_invariants(), "");
}

TEST(PauseGeneral, QueuedJobsLeaveTheQueueWhenItBeginsAndAHeldJobMayBeWithdrawn) {
  Engine e = engine_with({"node_hot"});
  const JobSpec big = tiered("big", 0, 8, Tier::kImportant);
  const JobSpec a = tiered("a", 1, 4, Tier::kGeneral), b = tiered("b", 2, 4, Tier::kGeneral);
  e.submit(0, &big, 0);
  ASSERT_TRUE(started_now(e.schedule(0), 0));
  e.submit(1, &a, 1);
  e.submit(2, &b, 2);
  (void)e.schedule(2);
  EXPECT_EQ(e.held_count(), 0u);
  ASSERT_TRUE(e.set_conditions({"node_hot"}, 3));
  EXPECT_EQ(e.held_count(), 2u);
  EXPECT_EQ(e.check_invariants(), "");
  EXPECT_TRUE(e.withdraw(2, 4));  // cancelled while held
  EXPECT_EQ(e.held_count(), 1u);
  e.finish(0, 50);
  EXPECT_FALSE(started_now(e.schedule(50), 1));  // GPUs free, still held
  EXPECT_EQ(e.check_invariants(), "");
  ASSERT_TRUE(e.set_conditions({}, 60));
  const auto& ds = e.schedule(60);
  EXPECT_TRUE(started_now(ds, 1));
  EXPECT_FALSE(started_now(ds, 2));
  EXPECT_EQ(e.check_invariants(), "");
}

TEST(PauseGeneral, AConditionAboutOneTeamHoldsThatTeamsGeneralWorkOnly) {
  Engine e = engine_with({"budget_burn"});
  ASSERT_TRUE(e.set_conditions({"budget_burn@alpha"}, 0));
  const JobSpec mine = tiered("mine", 0, 2, Tier::kGeneral, "alpha");
  const JobSpec important = tiered("important", 0, 2, Tier::kImportant, "alpha");
  const JobSpec theirs = tiered("theirs", 0, 2, Tier::kGeneral, "beta");
  e.submit(0, &mine, 0);
  e.submit(1, &important, 0);
  e.submit(2, &theirs, 0);
  const auto& ds = e.schedule(0);
  EXPECT_FALSE(started_now(ds, 0));
  EXPECT_TRUE(started_now(ds, 1));
  EXPECT_TRUE(started_now(ds, 2));
  EXPECT_EQ(e.explain(0).reason, "general tier paused: budget_burn (team alpha)");
  ASSERT_TRUE(e.set_conditions({}, 10));
  EXPECT_TRUE(started_now(e.schedule(10), 0));
}

// A running general job checkpointed and requeued while the pause is on (the service's
// requeue_running) is held once its checkpoint is done, and resumes when the pause lifts.
TEST(PauseGeneral, ARequeuedRunningJobIsHeldAfterItsCheckpoint) {
  Engine e = engine_with({"node_hot"});
  const JobSpec g = tiered("g", 0, 8, Tier::kGeneral);
  e.submit(0, &g, 0);
  ASSERT_TRUE(started_now(e.schedule(0), 0));
  ASSERT_TRUE(e.set_conditions({"node_hot"}, 10));
  ASSERT_TRUE(e.checkpoint_requeue(0, 10, 30, "general tier paused: node_hot"));
  (void)e.schedule(10);  // kSignal
  const auto& ds = e.schedule(40);
  bool preempted = false;
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kPreempt && d.job == 0) {
      preempted = true;
      EXPECT_TRUE(d.saved);
      EXPECT_EQ(d.reason, "general tier paused: node_hot (checkpointed)");
    }
  EXPECT_TRUE(preempted);
  EXPECT_FALSE(started_now(ds, 0));
  EXPECT_EQ(e.held_count(), 1u);
  EXPECT_EQ(e.running_count(), 0u);
  EXPECT_EQ(e.check_invariants(), "");
  ASSERT_TRUE(e.set_conditions({}, 100));
  EXPECT_TRUE(started_now(e.schedule(100), 0));
  EXPECT_EQ(e.check_invariants(), "");
}

// The pause holds queued work only: important work still preempts a running general job
// (checkpoint-first), and a general job arriving meanwhile is held.
TEST(PauseGeneral, TierPreemptionGoesOnAndGeneralArrivalsAreHeld) {
  Engine e = engine_with({"node_hot"}, "tiers");
  const JobSpec opp = tiered("opportunistic", 0, 8, Tier::kGeneral);
  e.submit(0, &opp, 0);
  ASSERT_TRUE(started_now(e.schedule(0), 0));
  ASSERT_TRUE(e.set_conditions({"node_hot"}, 1));
  const JobSpec imp = tiered("important", 2, 8, Tier::kImportant);
  e.submit(1, &imp, 2);
  const auto& ds = e.schedule(2);
  bool signalled = false;
  for (const Decision& d : ds) signalled |= d.kind == Decision::Kind::kSignal;
  EXPECT_TRUE(signalled);  // important work still preempts the running general job
  const JobSpec gen = tiered("general", 3, 8, Tier::kGeneral, "beta");
  e.submit(2, &gen, 3);
  EXPECT_EQ(e.explain(2).point, "hold");
  EXPECT_EQ(e.check_invariants(), "");
}

}  // namespace
}  // namespace frugal
