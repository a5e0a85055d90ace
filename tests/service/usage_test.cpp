// The usage series (service/usage_series.h, GET /v1/usage) and the node summary (GET
// /v1/nodes?summary=1): time-weighted buckets, figures equal to what the ledger charges,
// team scoping, persistence across a restart (a real SQLite file) and retention.
#include <gtest/gtest.h>

#include <mutex>

#include "scheduler_fixture.h"
#include "service/scheduler.h"
#include "service/usage_series.h"

namespace frugal {
namespace {

using sched_test::Fixture;
using sched_test::kAdmin;
using sched_test::kAlpha;
using sched_test::pass;
using sched_test::turn;
using sched_test::wait_state;

const Principal kBeta{"beta", false};

JobRequest one_gpu() {
  JobRequest r;
  r.command = "train";
  r.gpus = 1;
  return r;
}

UsageReading reading(double allocated, double busy = -1) {
  UsageReading r;
  r.provisioned_gpus = 4;
  r.allocated_gpus = allocated;
  r.busy_gpus = busy;
  r.burn_usd_h = 10 * allocated;
  r.teams_usd_h["alpha"] = allocated;
  return r;
}

// A reading holds until the next: [1000, 1150) at 2 GPUs and [1150, 1200) at 4 make the
// bucket [900, 1200) 2.5 on average over 200 s; the next bucket starts at 1200.
TEST(UsageSeries, BucketsAreTimeWeightedMeans) {
  UsageSeries u(300, 86400);
  EXPECT_TRUE(u.observe(1000, reading(2)).empty());
  EXPECT_TRUE(u.observe(1150, reading(4, 1.5)).empty());
  const std::vector<UsageSampleRow> closed = u.observe(1260, reading(0));
  ASSERT_EQ(closed.size(), 1u);
  const UsageSampleRow& b = closed[0];
  EXPECT_DOUBLE_EQ(b.at, 900);
  EXPECT_DOUBLE_EQ(b.span_s, 200);
  EXPECT_DOUBLE_EQ(b.provisioned_gpus, 4);
  EXPECT_DOUBLE_EQ(b.allocated_gpus, 2.5);
  EXPECT_DOUBLE_EQ(b.burn_usd_h, 25);
  EXPECT_DOUBLE_EQ(b.teams_usd_h.at("alpha"), 2.5);
  EXPECT_DOUBLE_EQ(b.busy_gpus, 1.5);  // over the 50 s that were measured
  // since(): the closed bucket, then the open one so far ([1200, 1260) at 4 GPUs).
  const std::vector<UsageSampleRow> all = u.since(0);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_DOUBLE_EQ(all[1].at, 1200);
  EXPECT_DOUBLE_EQ(all[1].span_s, 60);
  EXPECT_DOUBLE_EQ(all[1].allocated_gpus, 4);
  EXPECT_TRUE(u.open());
  EXPECT_EQ(u.since(1000).size(), 1u);  // buckets starting at or after 1000
}

// A long gap holds the last reading over every bucket in it; buckets older than keep_s go.
TEST(UsageSeries, AGapIsHeldAndOldBucketsArePruned) {
  UsageSeries u(60, 600);
  u.observe(0, reading(1));
  const std::vector<UsageSampleRow> closed = u.observe(3600, reading(1));
  ASSERT_EQ(closed.size(), 60u);
  for (const UsageSampleRow& b : closed) {
    EXPECT_DOUBLE_EQ(b.span_s, 60);
    EXPECT_DOUBLE_EQ(b.allocated_gpus, 1);
    EXPECT_LT(b.busy_gpus, 0);  // nothing measured
  }
  const std::vector<UsageSampleRow> kept = u.since(0);
  ASSERT_FALSE(kept.empty());
  EXPECT_DOUBLE_EQ(kept.front().at, 3000);  // 3600 - 600
}

TEST(UsageStore, SamplesRoundTripAndArePurged) {
  Fixture f;
  auto s = Store::open((f.dir / "u.db").string());
  ASSERT_TRUE(s.ok()) << s.error().message;
  Store& st = *s.value();
  ASSERT_TRUE(st.begin().ok());
  UsageSampleRow a{100, 60, 4, 1, -1, 2, 3.5, 1.25, {{"alpha", 2.25}}};
  UsageSampleRow b{160, 30, 4, 2, 0.75, 0, 5, 1, {}};
  ASSERT_TRUE(st.put_usage_sample(a).ok());
  ASSERT_TRUE(st.put_usage_sample(b).ok());
  ASSERT_TRUE(st.commit().ok());
  auto rows = st.load_usage_samples(0);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows.value().size(), 2u);
  EXPECT_DOUBLE_EQ(rows.value()[0].idle_usd_h, 1.25);
  EXPECT_LT(rows.value()[0].busy_gpus, 0);  // NULL: nothing measured
  EXPECT_DOUBLE_EQ(rows.value()[0].teams_usd_h.at("alpha"), 2.25);
  EXPECT_DOUBLE_EQ(rows.value()[1].busy_gpus, 0.75);
  ASSERT_TRUE(st.begin().ok());
  ASSERT_TRUE(st.purge_usage_samples(150).ok());
  ASSERT_TRUE(st.commit().ok());
  rows = st.load_usage_samples(0);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows.value().size(), 1u);
  EXPECT_DOUBLE_EQ(rows.value()[0].at, 160);
}

double idle_waste(const nlohmann::json& ledger) {
  return ledger["waste"]["idle_unallocated_usd"].get<double>() +
         ledger["waste"]["stranded_usd"].get<double>();
}

// 2 nodes of 2 L4, one 1-GPU job of alpha's running for an hour at 25 % busy (the scripted
// telemetry: node "n"'s two GPUs at 0.25): every whole bucket says 4 provisioned, 1 allocated,
// 0.5 busy, none queued, and burns what the ledger charges for the hour: in all, and of it
// idle capacity (idle_unallocated + stranded) and alpha's job.
TEST(SchedulerUsage, AnHourOfOneJobIsWhatTheLedgerCharges) {
  Fixture f;
  f.shared->nodes = 2;
  f.configure = [](ServiceConfig& c) {
    c.usage_interval_s = 60;
    c.read_snapshot_s = 0;
  };
  auto s = f.make();
  const int64_t id = s->submit(kAlpha, one_gpu()).get().body["id"];
  wait_state(f, *s, id, "running");
  pass(f, *s, 0.5);  // measured at 25 % busy since
  const nlohmann::json l0 = s->ledger(kAdmin).get().body;
  f.clock->advance(3600);
  turn(*s);
  const nlohmann::json l1 = s->ledger(kAdmin).get().body;
  const double cost = l1["cost"]["total_usd"].get<double>() - l0["cost"]["total_usd"].get<double>();
  const double idle = idle_waste(l1) - idle_waste(l0);
  ASSERT_GT(cost, 0);
  ASSERT_GT(idle, 0);

  const nlohmann::json u = s->usage(kAdmin, 3600).get().body;
  EXPECT_EQ(u["interval_s"], 60.0);
  EXPECT_EQ(u["scope"], "cluster");
  const nlohmann::json& points = u["points"];
  ASSERT_GE(points.size(), 59u) << u.dump();
  ASSERT_LE(points.size(), 61u) << u.dump();
  size_t whole = 0;
  for (const nlohmann::json& p : points) {
    if (p.contains("partial")) continue;
    ++whole;
    EXPECT_DOUBLE_EQ(p["span_s"].get<double>(), 60) << p.dump();
    EXPECT_DOUBLE_EQ(p["provisioned_gpus"].get<double>(), 4) << p.dump();
    EXPECT_DOUBLE_EQ(p["allocated_gpus"].get<double>(), 1) << p.dump();
    EXPECT_DOUBLE_EQ(p["busy_gpus"].get<double>(), 0.5) << p.dump();
    EXPECT_DOUBLE_EQ(p["queued_jobs"].get<double>(), 0) << p.dump();
    const double burn = p["burn_usd_h"], idle_h = p["idle_usd_h"], alpha = p["teams"]["alpha"];
    EXPECT_NEAR(burn, cost, cost * 1e-3) << p.dump();
    EXPECT_NEAR(idle_h, idle, idle * 1e-3) << p.dump();
    EXPECT_NEAR(alpha, cost - idle, (cost - idle) * 1e-3) << p.dump();
  }
  EXPECT_GE(whole, 58u);
  const nlohmann::json& last = points.back();
  EXPECT_EQ(last.value("partial", false), true) << last.dump();
  EXPECT_DOUBLE_EQ(points[1]["at"].get<double>() - points[0]["at"].get<double>(), 60);
}

// A team sees the cluster's capacity and idle cost, its own burn only, never the cluster's
// or another team's.
TEST(SchedulerUsage, ATeamSeesItsOwnBurnOnly) {
  Fixture f;
  f.shared->nodes = 2;
  f.configure = [](ServiceConfig& c) { c.usage_interval_s = 60; };
  auto s = f.make();
  const int64_t id = s->submit(kAlpha, one_gpu()).get().body["id"];
  wait_state(f, *s, id, "running");
  f.clock->advance(600);
  turn(*s);
  const nlohmann::json admin = s->usage(kAdmin, 86400).get().body["points"];
  const nlohmann::json alpha = s->usage(kAlpha, 86400).get().body;
  const nlohmann::json beta = s->usage(kBeta, 86400).get().body;
  EXPECT_EQ(alpha["scope"], "team alpha");
  ASSERT_EQ(alpha["points"].size(), admin.size());
  ASSERT_EQ(beta["points"].size(), admin.size());
  for (size_t i = 0; i < admin.size(); ++i) {
    const nlohmann::json &a = alpha["points"][i], &b = beta["points"][i], &c = admin[i];
    EXPECT_FALSE(a.contains("burn_usd_h"));
    EXPECT_FALSE(b.contains("burn_usd_h"));
    EXPECT_EQ(a["allocated_gpus"], c["allocated_gpus"]);
    EXPECT_EQ(b["idle_usd_h"], c["idle_usd_h"]);
    EXPECT_EQ(a["teams"], nlohmann::json({{"alpha", c["teams"]["alpha"]}}));
    EXPECT_EQ(b["teams"], nlohmann::json({{"beta", 0.0}})) << b.dump();
  }
  EXPECT_GT(admin[1]["teams"]["alpha"].get<double>(), 0);
}

// The closed buckets are stored with the loop's commits: a new service on the same database
// answers them (and the time it was down stays empty).
TEST(SchedulerUsage, TheSeriesOutlivesARestart) {
  Fixture f;
  f.configure = [](ServiceConfig& c) { c.usage_interval_s = 60; };
  nlohmann::json before;
  {
    auto s = f.make();
    const int64_t id = s->submit(kAlpha, one_gpu()).get().body["id"];
    wait_state(f, *s, id, "running");
    f.clock->advance(600);
    turn(*s);
    before = s->usage(kAdmin, 86400).get().body["points"];
  }
  ASSERT_GE(before.size(), 10u);
  f.clock->advance(300);  // down for 5 minutes
  auto s = f.make();
  turn(*s);  // its first reading
  f.clock->advance(90);
  turn(*s);
  const nlohmann::json after = s->usage(kAdmin, 86400).get().body["points"];
  size_t found = 0, stored = 0;
  for (const nlohmann::json& p : before) {
    if (p.contains("partial")) continue;
    ++stored;
    for (const nlohmann::json& q : after)
      if (q["at"] == p["at"]) {
        ++found;
        EXPECT_EQ(q, p);
      }
  }
  EXPECT_EQ(found, stored);
  EXPECT_GE(stored, 9u);
  EXPECT_GT(after.size(), found);  // the new service's own buckets
}

// Buckets older than usage_retention_s leave the database at the retention pass.
TEST(SchedulerUsage, RetentionPurgesOldBuckets) {
  Fixture f;
  f.configure = [](ServiceConfig& c) {
    c.usage_interval_s = 3600;
    c.usage_retention_s = 86400;
  };
  {
    auto s = f.make();
    for (int h = 0; h < 30; ++h) {
      f.clock->advance(3600);
      turn(*s);
    }
    const nlohmann::json points = s->usage(kAdmin, 7 * 86400).get().body["points"];
    EXPECT_LE(points.size(), 25u);
    EXPECT_GE(points.size(), 23u);
  }
  auto st = Store::open((f.dir / "f.db").string());
  ASSERT_TRUE(st.ok());
  auto rows = st.value()->load_usage_samples(0);
  ASSERT_TRUE(rows.ok());
  EXPECT_LE(rows.value().size(), 25u);
  EXPECT_GE(rows.value().size(), 23u);
}

// Two nodes of 2 L4; a 1-GPU job; node "n" measured at 25 % on both GPUs; then node "n1"
// goes down: a group per state with its counts.
TEST(SchedulerNodeSummary, GroupsByPoolModelAndState) {
  Fixture f;
  f.shared->nodes = 2;
  auto s = f.make();
  const int64_t id = s->submit(kAlpha, one_gpu()).get().body["id"];
  wait_state(f, *s, id, "running");
  pass(f, *s, 0.2);
  nlohmann::json sum = s->node_summary().get().body;
  EXPECT_EQ(sum["nodes"], 2);
  EXPECT_EQ(sum["gpus"], 4);
  ASSERT_EQ(sum["groups"].size(), 1u) << sum.dump();
  nlohmann::json g = sum["groups"][0];
  EXPECT_EQ(g["gpu_model"], "L4");
  EXPECT_EQ(g["state"], "up");
  EXPECT_EQ(g["nodes"], 2);
  EXPECT_EQ(g["gpus"], 4);
  EXPECT_DOUBLE_EQ(g["allocated_gpus"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(g["idle_gpus"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(g["failed_gpus"].get<double>(), 0);
  EXPECT_EQ(g["measured_gpus"], 2);
  EXPECT_DOUBLE_EQ(g["mean_utilization"].get<double>(), 0.25);

  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    DriverEvent e;
    e.kind = DriverEvent::Kind::kNodeDown;
    e.node = "n1";
    f.shared->pending.push_back(e);
  }
  turn(*s);
  sum = s->node_summary().get().body;
  ASSERT_EQ(sum["groups"].size(), 2u) << sum.dump();
  for (const nlohmann::json& grp : sum["groups"]) {
    EXPECT_EQ(grp["nodes"], 1) << grp.dump();
    if (grp["state"] == "down") {
      EXPECT_DOUBLE_EQ(grp["failed_gpus"].get<double>(), 2);
      EXPECT_DOUBLE_EQ(grp["idle_gpus"].get<double>(), 0);
      EXPECT_TRUE(grp["mean_utilization"].is_null());
    } else {
      EXPECT_EQ(grp["state"], "up");
      EXPECT_DOUBLE_EQ(grp["failed_gpus"].get<double>(), 0);
    }
  }
}

}  // namespace
}  // namespace frugal
