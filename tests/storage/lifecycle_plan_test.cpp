// plan_lifecycle (src/storage/plan/lifecycle.h): the pure checkpoint lifecycle rules that both
// the live storage manager and the simulator's storage model follow.
#include "storage/plan/lifecycle.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace frugal::storage {
namespace {

constexpr double kPlanHour = 3600.0;
constexpr double kDay = 86400.0;

CheckpointInfo cp(const std::string& job, const std::string& team, int64_t step, double done,
                  Tier tier = Tier::hot) {
  CheckpointInfo c;
  c.job = job;
  c.team = team;
  c.name = fmt::format("step-{:06d}", step);
  c.step = step;
  c.completed_at = done;
  c.tier = tier;
  c.bytes = 1000;
  return c;
}

struct Plan {
  std::set<int64_t> removed;
  std::map<int64_t, Tier> moved;  // step -> destination
  std::vector<LifecycleAction> actions;
};

std::vector<LifecycleAction> plan(const std::vector<CheckpointInfo>& cps,
                                  const std::map<std::string, LifecyclePolicy>& pol, double now,
                                  const std::set<std::string>& restartable) {
  return plan_lifecycle(
      cps, [&](const std::string& team) -> const LifecyclePolicy& { return pol.at(team); }, now,
      [&](const std::string& job) { return restartable.count(job) > 0; });
}

// For a single job (steps unique): the plan as sets of removed and moved steps.
Plan run(const std::vector<CheckpointInfo>& cps, const std::map<std::string, LifecyclePolicy>& pol,
         double now, const std::set<std::string>& restartable) {
  Plan p;
  p.actions = plan(cps, pol, now, restartable);
  for (const auto& a : p.actions) {
    const int64_t step = cps.at(a.index).step;
    if (a.kind == ActionKind::remove) {
      EXPECT_TRUE(p.removed.insert(step).second) << "two actions for step " << step;
    } else {
      EXPECT_TRUE(p.moved.emplace(step, a.to).second) << "two actions for step " << step;
    }
    EXPECT_FALSE(a.reason.empty());
  }
  return p;
}

LifecyclePolicy plan_policy(int keep_hot, double warm, double cold, int retain, double age = 0) {
  LifecyclePolicy p;
  p.keep_hot = keep_hot;
  p.warm_after_s = warm;
  p.cold_after_s = cold;
  p.retain_count = retain;
  p.retain_age_s = age;
  return p;
}

TEST(StorageLifecyclePlan, TierNamesRoundTrip) {
  for (Tier t : {Tier::hot, Tier::warm, Tier::cold}) {
    Tier back = Tier::hot;
    ASSERT_TRUE(parse_tier(tier_name(t), back));
    EXPECT_EQ(back, t);
  }
  Tier out = Tier::warm;
  EXPECT_FALSE(parse_tier("HOT", out));
  EXPECT_FALSE(parse_tier("", out));
  EXPECT_EQ(out, Tier::warm);
}

// A run of 50 checkpoints of one job, one every 2 h (step i*100 completed at i*2h), looked at
// 30 min after the last, under keep_hot 2, warm after 1 h, cold after 1 day, retain 20.
TEST(StorageLifecyclePlan, FiftyCheckpointRunMovesKeepsAndDeletesExactly) {
  std::vector<CheckpointInfo> cps;
  for (int i = 0; i < 50; ++i) cps.push_back(cp("job-1", "llm", i * 100, i * 2 * kPlanHour));
  cps[40].tier = Tier::warm;                    // already where it belongs: no action
  cps[35].tier = Tier::cold;                    // already cold: no action
  cps[45].tier = Tier::cold;                    // colder than its age asks: never moved up
  cps.push_back(cp("job-1", "llm", 5000, -1));  // being written
  const double now = 49 * 2 * kPlanHour + 1800;
  Plan p = run(cps, {{"llm", plan_policy(2, kPlanHour, kDay, 20)}}, now, {"job-1"});

  // Deleted: the 30 oldest (i = 0..29), beyond retain_count 20.
  std::set<int64_t> want_removed;
  for (int i = 0; i < 30; ++i) want_removed.insert(i * 100);
  EXPECT_EQ(p.removed, want_removed);

  // Kept: i = 30..49. i = 48, 49 stay hot (keep_hot). Age of i: now - i*2h; cold once
  // >= 1 day: i <= 37 -> cold (30..37 except 35, already cold); 38..47 -> warm (except 40,
  // already warm, and 45, already cold).
  std::map<int64_t, Tier> want_moved;
  for (int i = 30; i <= 37; ++i) {
    if (i != 35) want_moved[i * 100] = Tier::cold;
  }
  for (int i = 38; i <= 47; ++i) {
    if (i != 40 && i != 45) want_moved[i * 100] = Tier::warm;
  }
  EXPECT_EQ(p.moved, want_moved);
  EXPECT_EQ(p.actions.size(), 30u + want_moved.size());

  // The incomplete one is never touched; the newest two have no action.
  for (const auto& a : p.actions) {
    EXPECT_NE(cps[a.index].step, 5000);
    EXPECT_LT(cps[a.index].step, 4800);
  }
  // Sorted by (job, step).
  for (size_t k = 1; k < p.actions.size(); ++k) {
    EXPECT_LT(cps[p.actions[k - 1].index].step, cps[p.actions[k].index].step);
  }
  EXPECT_EQ(p.actions.front().reason, "beyond retain_count 20");
}

TEST(StorageLifecyclePlan, IncompleteCheckpointNeverTouchedEvenWhenAncient) {
  std::vector<CheckpointInfo> cps = {cp("j", "t", 1, -1), cp("j", "t", 2, 0), cp("j", "t", 3, 10),
                                     cp("j", "t", 4, -1, Tier::warm)};
  Plan p = run(cps, {{"t", plan_policy(0, 1, 2, 1, 5)}}, 1e9, {});
  // Finished job: both complete ones are past retain_age; the incomplete ones untouched.
  EXPECT_EQ(p.removed, (std::set<int64_t>{2, 3}));
  EXPECT_TRUE(p.moved.empty());
}

TEST(StorageLifecyclePlan, NewestCompleteOfRestartableJobNeverDeleted) {
  // All past retain_age (1 day); retain_count 1 too. The restartable job keeps its newest
  // complete one (step 3: step 4 is being written) and it still ages down to cold when
  // keep_hot is 0.
  std::vector<CheckpointInfo> cps = {cp("run", "t", 1, 0), cp("run", "t", 2, kPlanHour),
                                     cp("run", "t", 3, 2 * kPlanHour), cp("run", "t", 4, -1)};
  Plan p = run(cps, {{"t", plan_policy(0, kPlanHour, kDay, 1, kDay)}}, 10 * kDay, {"run"});
  EXPECT_EQ(p.removed, (std::set<int64_t>{1, 2}));
  EXPECT_EQ(p.moved, (std::map<int64_t, Tier>{{3, Tier::cold}}));
}

TEST(StorageLifecyclePlan, FinishedJobsNewestNotProtected) {
  std::vector<CheckpointInfo> cps = {cp("done", "t", 1, 0), cp("done", "t", 2, kPlanHour)};
  Plan p = run(cps, {{"t", plan_policy(2, kPlanHour, kDay, 0, kDay)}}, 10 * kDay, {});
  EXPECT_EQ(p.removed, (std::set<int64_t>{1, 2}));
  ASSERT_EQ(p.actions.size(), 2u);
  EXPECT_EQ(p.actions[1].reason, "older than retain_age_s (86400 s)");
  // The same job still restartable: its newest survives, kept hot by keep_hot.
  Plan q = run(cps, {{"t", plan_policy(2, kPlanHour, kDay, 0, kDay)}}, 10 * kDay, {"done"});
  EXPECT_EQ(q.removed, (std::set<int64_t>{1}));
  EXPECT_TRUE(q.moved.empty());
}

TEST(StorageLifecyclePlan, PerTeamPolicies) {
  // Same checkpoint series for two jobs of two teams; "keep" never deletes and only moves to
  // warm, "lean" keeps 1 and goes cold after 1 h.
  std::vector<CheckpointInfo> cps;
  for (int i = 0; i < 4; ++i) {
    cps.push_back(cp("a", "keep", i, i * kPlanHour));
    cps.push_back(cp("b", "lean", i, i * kPlanHour));
  }
  const double now = 4 * kPlanHour;
  Plan p = run(
      cps,
      {{"keep", plan_policy(1, kPlanHour, -1, 0)}, {"lean", plan_policy(1, 30 * 60, kPlanHour, 1)}},
      now, {"a", "b"});
  std::map<std::string, std::set<int64_t>> removed;
  std::map<std::string, std::map<int64_t, Tier>> moved;
  for (const auto& a : p.actions) {
    const auto& c = cps[a.index];
    if (a.kind == ActionKind::remove) {
      removed[c.job].insert(c.step);
    } else {
      moved[c.job][c.step] = a.to;
    }
  }
  EXPECT_EQ(removed["a"], (std::set<int64_t>{}));
  EXPECT_EQ(moved["a"],
            (std::map<int64_t, Tier>{{0, Tier::warm}, {1, Tier::warm}, {2, Tier::warm}}));
  EXPECT_EQ(removed["b"], (std::set<int64_t>{0, 1, 2}));
  EXPECT_TRUE(moved["b"].empty());
  // Sorted by job first: all of a's actions before b's.
  ASSERT_EQ(p.actions.size(), 6u);
  EXPECT_EQ(cps[p.actions.front().index].job, "a");
  EXPECT_EQ(cps[p.actions.back().index].job, "b");
}

TEST(StorageLifecyclePlan, ThresholdsAndNeverSettings) {
  // Exactly at warm_after_s moves; warm never (< 0) goes straight to cold at cold_after_s.
  std::vector<CheckpointInfo> cps = {cp("j", "t", 1, 0), cp("j", "t", 2, 100)};
  Plan p = run(cps, {{"t", plan_policy(0, 100, 200, 0)}}, 200, {"j"});
  EXPECT_EQ(p.moved, (std::map<int64_t, Tier>{{1, Tier::cold}, {2, Tier::warm}}));
  Plan q = run(cps, {{"t", plan_policy(0, -1, 200, 0)}}, 200, {"j"});
  EXPECT_EQ(q.moved, (std::map<int64_t, Tier>{{1, Tier::cold}}));
  Plan r = run(cps, {{"t", plan_policy(0, -1, -1, 0)}}, 1e9, {"j"});
  EXPECT_TRUE(r.actions.empty());
  // retain_age is strict: exactly at the age is kept.
  Plan s = run(cps, {{"t", plan_policy(0, -1, -1, 0, 100)}}, 200, {});
  EXPECT_EQ(s.removed, (std::set<int64_t>{1}));
}

TEST(StorageLifecyclePlan, OrderTiesByCompletionThenName) {
  // Two checkpoints share a step; the later-completed one is the newer.
  std::vector<CheckpointInfo> cps = {cp("j", "t", 5, 20), cp("j", "t", 5, 10)};
  cps[0].name = "a-late";
  cps[1].name = "b-early";
  Plan p = run(cps, {{"t", plan_policy(0, -1, -1, 1)}}, 30, {"j"});
  ASSERT_EQ(p.actions.size(), 1u);
  EXPECT_EQ(p.actions[0].index, 1u);
}

TEST(StorageLifecyclePlan, DeterministicRegardlessOfInputOrder) {
  std::vector<CheckpointInfo> cps;
  for (int i = 0; i < 10; ++i) {
    cps.push_back(cp("x", "t", i, i * kPlanHour));
    cps.push_back(cp("y", "t", i, i * kPlanHour));
  }
  std::vector<CheckpointInfo> rev(cps.rbegin(), cps.rend());
  std::map<std::string, LifecyclePolicy> pol{{"t", plan_policy(2, kPlanHour, 5 * kPlanHour, 6)}};
  auto a = plan(cps, pol, 10 * kPlanHour, {"x"});
  auto b = plan(rev, pol, 10 * kPlanHour, {"x"});
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(cps[a[k].index].job, rev[b[k].index].job);
    EXPECT_EQ(cps[a[k].index].step, rev[b[k].index].step);
    EXPECT_EQ(a[k].kind, b[k].kind);
    EXPECT_EQ(a[k].to, b[k].to);
    EXPECT_EQ(a[k].reason, b[k].reason);
  }
  // x (restartable) keeps its newest; y (finished) too here: retain_count 6 keeps 6 of each.
  EXPECT_EQ(a.size(), 2u * 4u + 2u * 4u);
}

}  // namespace
}  // namespace frugal::storage
