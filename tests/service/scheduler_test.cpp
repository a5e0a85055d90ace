// The Scheduler in-process with a scripted backend (this machine has no NVML, so GPU
// telemetry is scripted here; everything else is the real loop, engine and SQLite store) on
// a ManualClock: service time passes only when a test lets it, a turn per step, no sleeping:
// measured utilisation reaches the ledger as idle_allocated waste; exits, cancels and a
// restart with adoption keep the store consistent.

#include "service/scheduler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include "io/catalog_yaml.h"
#include "scheduler_fixture.h"
#include "service/serve.h"

namespace frugal {
namespace {
using namespace sched_test;  // NOLINT(google-build-using-namespace)

TEST(Scheduler, MeasuredUtilizationIsPricedAsIdleAllocatedWaste) {
  Fixture f;
  auto s = f.make();
  JobRequest r;
  r.command = "train";
  const auto reply = s->submit(kAlpha, r).get();
  ASSERT_EQ(reply.status, 201);
  const int64_t id = reply.body["id"];
  wait_state(f, *s, id, "running");
  ASSERT_TRUE(eventually(f, *s, [&] { return job(*s, id)["utilization"].is_number(); }));
  EXPECT_NEAR(job(*s, id)["utilization"].get<double>(), 0.25, 1e-9);
  pass(f, *s, 0.2);  // some GPU time to price
  ScriptedDriver(f.shared).finish("h" + std::to_string(id) + ".0", 0);
  wait_state(f, *s, id, "completed");
  const auto ledger = s->ledger(kAdmin).get().body;
  const auto& team = ledger["by_team"]["alpha"];
  const double compute = team["rental_usd"].get<double>() + team["energy_usd"].get<double>();
  const double idle = team["waste"]["idle_allocated_usd"];
  ASSERT_GT(compute, 0);
  // Rental of the 75 % not computing (energy is priced by utilisation, not counted as waste):
  // the scripted utilisation, within 1 %.
  EXPECT_GT(idle, 0);
  EXPECT_LT(idle, compute);
  EXPECT_NEAR(idle / team["rental_usd"].get<double>(), 0.75, 0.0075);
}

// An agent's report (POST /v1/telemetry) of one node: both its GPUs at `utilization`, one
// process of job `process_job` on GPU 0 when > 0.
TelemetryBatch node_report(const std::string& node, double utilization, double now,
                           int64_t process_job = 0) {
  NodeReport r;
  r.node = node;
  r.time = now;
  r.window_s = 1;
  r.samples = 1;
  for (int g = 0; g < 2; ++g) r.gpus.push_back(GpuTelemetry{node, g, utilization, 1000, 24000, 50});
  if (process_job > 0) r.gpus[0].processes.push_back({4711, 900, std::to_string(process_job), ""});
  return TelemetryBatch{now, {r}};
}

// Agents' reports are folded into the jobs on the reported node only; a GPU process names
// its job wherever the job was placed.
TEST(Scheduler, AgentReportsFoldIntoTheJobsOnTheirNodesOnly) {
  Fixture f;
  f.shared->nodes = 2;
  f.shared->gpu_readings = false;  // every reading comes from an agent
  auto s = f.make();
  JobRequest r;
  r.command = "train";
  r.gpus = 2;  // a whole node each
  const int64_t a = s->submit(kAlpha, r).get().body["id"];
  const int64_t b = s->submit(kAlpha, r).get().body["id"];
  wait_state(f, *s, a, "running");
  wait_state(f, *s, b, "running");
  const std::string node_a = job(*s, a)["placement"]["gpus"][0]["node"];
  const std::string node_b = job(*s, b)["placement"]["gpus"][0]["node"];
  ASSERT_NE(node_a, node_b);
  const auto utilization = [&](int64_t id) { return job(*s, id)["utilization"]; };

  ASSERT_EQ(s->ingest_telemetry(kAdmin, node_report(node_a, 0.9, f.clock->now())).status, 202);
  ASSERT_TRUE(eventually(f, *s, [&] { return utilization(a).is_number(); }));
  EXPECT_NEAR(utilization(a).get<double>(), 0.9, 1e-9);
  EXPECT_TRUE(utilization(b).is_null()) << job(*s, b);

  ASSERT_EQ(s->ingest_telemetry(kAdmin, node_report(node_b, 0.1, f.clock->now())).status, 202);
  ASSERT_TRUE(eventually(f, *s, [&] { return utilization(b).is_number(); }));
  EXPECT_NEAR(utilization(b).get<double>(), 0.1, 1e-9);
  EXPECT_NEAR(utilization(a).get<double>(), 0.9, 1e-9);  // unchanged

  // Node b's next report shows a process of job a there: a is measured on that card (its
  // mean: (0.9 + 0.5) / 2), b on its placement's (0.1 + 0.5) / 2.
  pass(f, *s, 0.3);  // past telemetry.min_post_interval_s
  ASSERT_EQ(s->ingest_telemetry(kAdmin, node_report(node_b, 0.5, f.clock->now(), a)).status, 202);
  ASSERT_TRUE(eventually(f, *s, [&] { return utilization(a).get<double>() < 0.8; }));
  EXPECT_NEAR(utilization(a).get<double>(), 0.7, 1e-9);
  EXPECT_NEAR(utilization(b).get<double>(), 0.3, 1e-9);
}

// /v1/nodes shows a team the ids of its own jobs only: another team's running job holds its
// GPU (allocated) without its id, which GET /v1/jobs/{id} would answer 404 for.
TEST(Scheduler, NodesShowATeamItsOwnJobIdsOnly) {
  Fixture f;
  auto s = f.make();
  JobRequest r;
  r.command = "train";
  r.gpus = 1;
  const auto reply = s->submit(kAlpha, r).get();
  ASSERT_EQ(reply.status, 201);
  const int64_t id = reply.body["id"];
  wait_state(f, *s, id, "running");
  auto ids_seen = [&](const Principal& who) {
    std::vector<int64_t> ids;
    int64_t allocated = 0;
    const nlohmann::json nodes = s->nodes(who).get().body["nodes"];
    for (const auto& n : nodes)
      for (const auto& g : n["gpus"]) {
        allocated += g["allocated_milli"].get<int64_t>();
        for (const auto& j : g["jobs"]) ids.push_back(j);
      }
    return std::make_pair(ids, allocated);
  };
  const Principal beta{"beta", false};
  EXPECT_EQ(ids_seen(kAlpha).first, std::vector<int64_t>{id});
  EXPECT_EQ(ids_seen(kAdmin).first, std::vector<int64_t>{id});
  EXPECT_TRUE(ids_seen(beta).first.empty());
  EXPECT_EQ(ids_seen(beta).second, ids_seen(kAdmin).second);  // the GPU still shows in use
  EXPECT_EQ(s->get_job(beta, id).get().status, 404);
}

// A deadline already past is refused, naming the field; one in the future is accepted.
TEST(Scheduler, RefusesADeadlineAlreadyPast) {
  Fixture f;
  auto s = f.make();
  JobRequest r;
  r.command = "train";
  r.deadline = 1'000'000;  // 1970
  const auto past = s->submit(kAlpha, r).get();
  EXPECT_EQ(past.status, 400);
  EXPECT_EQ(past.body["field"], "deadline");
  EXPECT_NE(past.body["error"].get<std::string>().find("already past"), std::string::npos);
  r.deadline = 4'000'000'000;  // 2096
  EXPECT_EQ(s->submit(kAlpha, r).get().status, 201);
}

TEST(Scheduler, RestartAdoptsRunningJobsAndKeepsEveryJobOnce) {
  Fixture f;
  std::vector<int64_t> ids;
  {
    auto s = f.make();
    for (int i = 0; i < 4; ++i) {
      JobRequest r;
      r.command = "x";
      ids.push_back(s->submit(kAlpha, r).get().body["id"]);
    }
    wait_state(f, *s, ids[0], "running");
    wait_state(f, *s, ids[1], "running");
    EXPECT_EQ(job(*s, ids[2])["state"], "queued");  // 2 GPUs, 4 one-GPU jobs
    // A queued job says why it waits: Place found no free GPU.
    const nlohmann::json waiting = job(*s, ids[2])["waiting"];
    EXPECT_EQ(waiting["code"], "unschedulable");
    EXPECT_EQ(waiting["point"], "place");
    EXPECT_NE(waiting["reason"].get<std::string>().find("needs 1 whole GPU(s) on one node"),
              std::string::npos)
        << waiting;
    EXPECT_EQ(s->act(kAlpha, ids[3], Scheduler::Action::kCancel).get().status, 200);
    s->stop();
  }
  auto s = f.make();  // the same database: jobs are recovered, running ones adopted
  EXPECT_EQ(job(*s, ids[0])["state"], "running");
  EXPECT_EQ(job(*s, ids[0])["restart_count"], 0);
  EXPECT_EQ(job(*s, ids[3])["state"], "cancelled");
  ScriptedDriver(f.shared).finish("h" + std::to_string(ids[0]) + ".0", 0);
  wait_state(f, *s, ids[0], "completed");
  wait_state(f, *s, ids[2], "running");  // the freed GPU goes to the queued job
  const auto list = s->list_jobs(kAdmin, std::nullopt, 100).get().body["jobs"];
  EXPECT_EQ(list.size(), ids.size());
  std::lock_guard<std::mutex> lock(f.shared->mu);
  // Started once each: ids[0], ids[1] before the restart, ids[2] after; never ids[3].
  EXPECT_EQ(f.shared->started.size(), 3u);
}

// The first handle stop() was called with (waiting for it, bounded), or "".
std::string first_stopped(Fixture& f, Scheduler& s) {
  std::string h;
  eventually(f, s, [&] {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    if (f.shared->stopped.empty()) return false;
    h = f.shared->stopped[0];
    return true;
  });
  return h;
}

// The job id of a scripted handle "h<id>.<restarts>".
int64_t job_of(const std::string& handle) {
  return std::stoll(handle.substr(1, handle.find('.') - 1));
}

size_t started_count(Fixture& f) {
  std::lock_guard<std::mutex> lock(f.shared->mu);
  return f.shared->started.size();
}

TEST(Scheduler, ElasticJobGrowsIntoAFreedGpuByRestartingOnTheNewSize) {
  Fixture f;
  auto s = f.make();
  JobRequest a;
  a.command = "a";
  const int64_t ia = s->submit(kAlpha, a).get().body["id"];
  wait_state(f, *s, ia, "running");
  JobRequest e;
  e.command = "e";
  e.max_gpus = 2;  // elastic: 1 GPU requested, up to 2
  const int64_t ie = s->submit(kAlpha, e).get().body["id"];
  wait_state(f, *s, ie, "running");
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    ASSERT_EQ(f.shared->specs.size(), 2u);
    EXPECT_EQ(f.shared->specs[1].slots.size(), 1u);  // the one free GPU
    EXPECT_EQ(env_of(f.shared->specs[1], "FRUGAL_NUM_GPUS"), "1");
  }
  ScriptedDriver(f.shared).finish(handle(ia, 0), 0);
  wait_state(f, *s, ia, "completed");
  // The engine grows it: its segment is stopped (checkpoint plan), its exit (143 here) is
  // not its end, and a new segment starts on both GPUs with FRUGAL_RESTART_COUNT=1.
  ASSERT_TRUE(eventually(f, *s, [&] { return started_count(f) == 3; })) << job(*s, ie);
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    EXPECT_EQ(f.shared->stopped, std::vector<std::string>{handle(ie, 0)});
    const LaunchSpec& again = f.shared->specs[2];
    EXPECT_EQ(again.job_id, std::to_string(ie));
    EXPECT_EQ(again.restart_count, 1);
    EXPECT_EQ(again.slots.size(), 2u);
    EXPECT_EQ(env_of(again, "FRUGAL_NUM_GPUS"), "2");
  }
  auto j = job(*s, ie);
  EXPECT_EQ(j["state"], "running");
  EXPECT_EQ(j["restart_count"], 1);
  EXPECT_EQ(j["placement"]["gpus"].size(), 2u);
  ScriptedDriver(f.shared).finish(handle(ie, 1), 0);
  wait_state(f, *s, ie, "completed");
  s.reset();
  auto store = Store::open((f.dir / "f.db").string());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(store.value()->check_consistency(), "");
  const Result<std::vector<SegmentRow>> all = store.value()->load_segments();
  ASSERT_TRUE(all.ok());
  std::vector<SegmentRow> segs;
  for (const SegmentRow& r : all.value())
    if (r.job_id == ie) segs.push_back(r);
  ASSERT_EQ(segs.size(), 2u);  // one GPU, then two; no overlap
  EXPECT_LE(segs[0].t1, segs[1].t0);
}

TEST(Scheduler, ARestartDuringAResizeNeitherLosesNorDuplicatesTheJob) {
  Fixture f;
  f.shared->stop_exits = false;  // the old segment keeps running until finish()
  int64_t ia = 0, ie = 0;
  {
    auto s = f.make();
    JobRequest a;
    a.command = "a";
    ia = s->submit(kAlpha, a).get().body["id"];
    wait_state(f, *s, ia, "running");
    JobRequest e;
    e.command = "e";
    e.max_gpus = 2;
    // Given: predicted from a's instant run it would be nearly over, and not worth growing.
    e.estimate_s = 3600;
    ie = s->submit(kAlpha, e).get().body["id"];
    wait_state(f, *s, ie, "running");
    ScriptedDriver(f.shared).finish(handle(ia, 0), 0);
    wait_state(f, *s, ia, "completed");
    ASSERT_TRUE(eventually(f, *s, [&] {
      std::lock_guard<std::mutex> lock(f.shared->mu);
      return !f.shared->stopped.empty();
    }));
    s->stop();  // down between the stop and the exit of the old segment
  }
  auto s = f.make();
  // The store recorded the old segment, which still runs: adopted, not restarted.
  auto j = job(*s, ie);
  EXPECT_EQ(j["state"], "running");
  EXPECT_EQ(j["restart_count"], 0);
  EXPECT_EQ(j["handle"], handle(ie, 0));
  // The new service grows it again (a free GPU): it stops the same old segment.
  ASSERT_TRUE(eventually(f, *s, [&] {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    return f.shared->stopped.size() == 2;
  }));
  ScriptedDriver(f.shared).finish(handle(ie, 0), 0);  // its exit after the checkpoint
  // One new segment, on both GPUs.
  ASSERT_TRUE(eventually(f, *s, [&] { return started_count(f) == 3; })) << job(*s, ie);
  wait_state(f, *s, ie, "running");
  EXPECT_EQ(job(*s, ie)["restart_count"], 1);
  ScriptedDriver(f.shared).finish(handle(ie, 1), 0);
  wait_state(f, *s, ie, "completed");
  EXPECT_EQ(s->list_jobs(kAdmin, std::nullopt, 100).get().body["jobs"].size(), 2u);
  std::lock_guard<std::mutex> lock(f.shared->mu);
  EXPECT_EQ(f.shared->started,
            (std::vector<std::string>{std::to_string(ia), std::to_string(ie), std::to_string(ie)}));
  EXPECT_EQ(f.shared->specs[2].restart_count, 1);
  EXPECT_EQ(f.shared->specs[2].slots.size(), 2u);
}

TEST(Scheduler, ConsolidationMovesAJobAndTheStartWaitsForItsOldSegment) {
  Fixture f;
  f.shared->nodes = 2;
  f.shared->stop_exits = false;
  auto s = f.make();
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) {  // fill both nodes, then free one GPU on each
    JobRequest r;
    r.command = "x";
    ids.push_back(s->submit(kAlpha, r).get().body["id"]);
    wait_state(f, *s, ids.back(), "running");
  }
  std::map<std::string, std::vector<int64_t>> by_node;
  for (int64_t id : ids) by_node[job(*s, id)["placement"]["node"]].push_back(id);
  ASSERT_EQ(by_node.size(), 2u);
  for (auto& [node, on] : by_node) {
    ASSERT_EQ(on.size(), 2u);
    ScriptedDriver(f.shared).finish(handle(on[1], 0), 0);
    wait_state(f, *s, on[1], "completed");
  }
  JobRequest big;
  big.command = "big";
  big.gpus = 2;  // fits only when one node is emptied
  const int64_t ib = s->submit(kAlpha, big).get().body["id"];
  const std::string moved = first_stopped(f, *s);
  ASSERT_FALSE(moved.empty());
  const int64_t im = job_of(moved);
  // That turn is over (a later command ran): the big job is decided but not launched while
  // the moved job's old segment still holds a GPU it needs.
  auto jb = job(*s, ib);
  EXPECT_EQ(jb["state"], "running");
  EXPECT_EQ(started_count(f), 4u);
  ScriptedDriver(f.shared).finish(moved, 143);
  ASSERT_TRUE(eventually(f, *s, [&] { return started_count(f) == 6; }));
  auto jm = job(*s, im);
  EXPECT_EQ(jm["state"], "running");
  EXPECT_EQ(jm["restart_count"], 1);
  EXPECT_NE(jm["placement"]["node"], job(*s, ib)["placement"]["node"]);
  std::lock_guard<std::mutex> lock(f.shared->mu);
  std::set<std::string> last{f.shared->started[4], f.shared->started[5]};
  EXPECT_EQ(last, (std::set<std::string>{std::to_string(im), std::to_string(ib)}));
}

// Two general-tier jobs of one GPU each, both running (the fixture's node has two GPUs).
std::pair<int64_t, int64_t> two_general_jobs_running(Fixture& f, Scheduler& s) {
  JobRequest g;
  g.command = "g";
  const int64_t i1 = s.submit(kAlpha, g).get().body["id"];
  const int64_t i2 = s.submit(kAlpha, g).get().body["id"];
  wait_state(f, s, i1, "running");
  wait_state(f, s, i2, "running");
  return {i1, i2};
}

TEST(Scheduler, ARunningJobsTierChangesWhichJobIsPreempted) {
  Fixture f;
  f.grace_s = 0.2;
  auto s = f.make();
  const auto [i1, i2] = two_general_jobs_running(f, *s);
  // The first one is promoted while it runs: it is no longer a victim for core work.
  const ApiReply r = s->set_tier(kAlpha, i1, Tier::kCore).get();
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["tier"], "core");
  JobRequest c;
  c.command = "c";
  c.tier = Tier::kCore;
  const int64_t ic = s->submit(kAlpha, c).get().body["id"];
  wait_state(f, *s, ic, "running");
  EXPECT_EQ(job(*s, i2)["state"], "preempted");
  EXPECT_EQ(job(*s, i1)["state"], "running");
  std::lock_guard<std::mutex> lock(f.shared->mu);
  EXPECT_EQ(f.shared->stopped, std::vector<std::string>{handle(i2, 0)});
}

// A preempted run whose process outlives its grace (it ignores the checkpoint signal and
// SIGTERM) is waited for: neither the preemptor on its GPU nor the job's own next run starts
// until it exits (both ran beside it; the job ran twice at once). A restart in between
// finds the stopped run and stops it again.
TEST(Scheduler, APreemptedRunThatOutlivesItsGraceIsWaitedFor) {
  Fixture f;
  f.grace_s = 0.2;
  f.shared->stop_exits = false;  // stopped runs go on until finish()
  auto s = f.make();
  const auto [i1, i2] = two_general_jobs_running(f, *s);
  JobRequest c;
  c.command = "c";
  c.tier = Tier::kCore;
  const int64_t ic = s->submit(kAlpha, c).get().body["id"];
  const std::string victim_handle = first_stopped(f, *s);
  ASSERT_FALSE(victim_handle.empty());
  const int64_t victim = job_of(victim_handle);
  const int64_t other = victim == i1 ? i2 : i1;
  ASSERT_TRUE(eventually(f, *s, [&] { return job(*s, victim)["state"] == "preempted"; }));
  EXPECT_NE(job(*s, victim)["reason"].get<std::string>().find("still running when the grace"),
            std::string::npos)
      << job(*s, victim)["reason"];
  wait_state(f, *s, ic, "running");  // decided on the victim's GPU ...
  pass(f, *s, 0.3);
  EXPECT_EQ(started_count(f), 2u);  // ... but not launched beside the victim's process
  // The other job ends: the victim is decided again on the freed GPU, and still waits.
  ScriptedDriver(f.shared).finish(handle(other, 0), 0);
  wait_state(f, *s, other, "completed");
  ASSERT_TRUE(eventually(f, *s, [&] { return job(*s, victim)["state"] == "running"; }));
  pass(f, *s, 0.3);
  EXPECT_EQ(started_count(f), 2u);
  // A restart now: the stopped run is found and stopped again, nothing runs twice.
  s->stop();
  s.reset();
  s = f.make();
  ASSERT_TRUE(eventually(f, *s, [&] {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    return std::count(f.shared->stopped.begin(), f.shared->stopped.end(), victim_handle) == 2;
  }));
  pass(f, *s, 0.3);
  EXPECT_EQ(started_count(f), 2u);
  // Its exit lets both go.
  ScriptedDriver(f.shared).finish(victim_handle, 143);
  ASSERT_TRUE(eventually(f, *s, [&] { return started_count(f) == 4u; })) << job(*s, victim);
  wait_state(f, *s, ic, "running");
  wait_state(f, *s, victim, "running");
  std::lock_guard<std::mutex> lock(f.shared->mu);
  const std::set<std::string> last{f.shared->started[2], f.shared->started[3]};
  EXPECT_EQ(last, (std::set<std::string>{std::to_string(ic), std::to_string(victim)}));
}

// A cancel under way when the service stops goes on after the restart (it was kept only in
// memory: the adopted job ran on, unstopped, and ended completed or failed).
TEST(Scheduler, ACancelUnderWaySurvivesARestart) {
  Fixture f;
  f.shared->stop_exits = false;
  int64_t id = 0;
  {
    auto s = f.make();
    JobRequest r;
    r.command = "stubborn";
    id = s->submit(kAlpha, r).get().body["id"];
    wait_state(f, *s, id, "running");
    ASSERT_EQ(s->act(kAlpha, id, Scheduler::Action::kCancel).get().status, 200);
    s->stop();
  }
  auto s = f.make();
  EXPECT_EQ(job(*s, id)["state"], "running");
  EXPECT_EQ(job(*s, id)["cancel_requested"], true);
  ASSERT_TRUE(eventually(f, *s, [&] {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    return f.shared->stopped.size() == 2;  // stopped again by the new service
  }));
  ScriptedDriver(f.shared).finish(handle(id, 0), 137);
  wait_state(f, *s, id, "cancelled");
}

void push(Fixture& f, DriverEvent e) {
  std::lock_guard<std::mutex> lock(f.shared->mu);
  f.shared->pending.push_back(std::move(e));
}

// The running job of team "external", or null.
nlohmann::json external_job(Scheduler& s) {
  const nlohmann::json jobs = s.list_jobs(kAdmin, std::nullopt, 100).get().body["jobs"];
  for (const auto& j : jobs)
    if (j["team"] == "external" && j["state"] == "running") return j;
  return nullptr;
}

// A job the backend runs that the service did not start holds both GPUs: it is recorded
// (team external), its GPUs are taken (a core job waits: no preemption, no overcommit), the
// API does not act on it, the ledger prices it, a restart keeps it once, and its end frees
// the GPUs.
TEST(Scheduler, ForeignJobTakesItsGpusIsAccountedAndLeftAlone) {
  Fixture f;
  f.grace_s = 0.2;
  DriverEvent e;
  e.kind = DriverEvent::Kind::kForeign;
  e.job_id = "slurm 9 outside";
  e.handle = "slurm-external:9:1";
  e.owner = "bob";
  e.start_unix = f.clock->now() - 30;
  e.slots = {SlotAssignment{"n", 0, 1000}, SlotAssignment{"n", 1, 1000}};
  e.message = "Slurm job 9 submitted directly";
  int64_t ext = 0, core = 0;
  {
    auto s = f.make();
    push(f, e);
    ASSERT_TRUE(eventually(f, *s, [&] { return !external_job(*s).is_null(); }));
    const auto ej = external_job(*s);
    ext = ej["id"];
    EXPECT_EQ(ej["name"], "slurm 9 outside");
    push(f, e);  // the same run reported again: still one record
    JobRequest c;
    c.command = "c";
    c.tier = Tier::kCore;
    const ApiReply sub = s->submit(kAlpha, c).get();
    core = sub.body["id"];
    EXPECT_EQ(sub.body["state"], "queued");
    pass(f, *s, 0.5);  // cycles, past the grace
    EXPECT_EQ(job(*s, core)["state"], "queued");
    EXPECT_EQ(job(*s, ext)["state"], "running");
    EXPECT_EQ(s->act(kAdmin, ext, Scheduler::Action::kCancel).get().status, 409);
    EXPECT_EQ(s->act(kAdmin, ext, Scheduler::Action::kHold).get().status, 409);
    EXPECT_EQ(s->set_tier(kAdmin, ext, Tier::kGeneral).get().status, 409);
    EXPECT_EQ(s->get_job(kAlpha, ext).get().status, 404);  // not alpha's
    const auto nodes = s->nodes(kAdmin).get().body["nodes"];
    EXPECT_EQ(nodes[0]["gpus"][0]["external"], true);
    EXPECT_EQ(nodes[0]["gpus"][1]["allocated_milli"], 1000);
    const auto ledger = s->ledger(kAdmin).get().body;
    ASSERT_TRUE(ledger["by_team"].contains("external")) << ledger;
    // Two GPUs for at least the 30 s before it was seen.
    EXPECT_GE(ledger["by_team"]["external"]["gpu_hours"].get<double>(), 2 * 30 / 3600.0 - 1e-9);
    s->stop();
  }
  auto s = f.make();  // restart: adopted by its handle, once
  EXPECT_EQ(job(*s, ext)["state"], "running");
  push(f, e);
  pass(f, *s, 0.2);
  EXPECT_EQ(job(*s, core)["state"], "queued");
  EXPECT_EQ(s->list_jobs(kAdmin, std::nullopt, 100).get().body["jobs"].size(), 2u);
  DriverEvent end;
  end.handle = e.handle;  // job_id "": a foreign run's end, known by its handle
  end.exit_code = 0;
  end.message = "Slurm job 9 COMPLETED";
  push(f, end);
  wait_state(f, *s, ext, "completed");
  wait_state(f, *s, core, "running");
  std::lock_guard<std::mutex> lock(f.shared->mu);
  EXPECT_TRUE(f.shared->stopped.empty());  // never stopped
  EXPECT_EQ(f.shared->started, std::vector<std::string>{std::to_string(core)});
}

TEST(Scheduler, BackendOutageRaisesOneAlertResolvedWhenItAnswers) {
  Fixture f;
  auto s = f.make();
  auto active = [&] {
    size_t n = 0;
    const nlohmann::json all = s->alerts(kAdmin).get().body["active"];
    for (const auto& a : all) n += a["rule"] == "backend_unreachable" ? 1 : 0;
    return n;
  };
  DriverEvent down;
  down.kind = DriverEvent::Kind::kBackendDown;
  down.message = "Slurm not answering";
  push(f, down);
  ASSERT_TRUE(eventually(f, *s, [&] { return active() == 1; }));
  const auto a = s->alerts(kAdmin).get().body["active"][0];
  EXPECT_EQ(a["subject"], "scripted");
  EXPECT_EQ(a["message"], "Slurm not answering");
  DriverEvent up;
  up.kind = DriverEvent::Kind::kBackendUp;
  push(f, up);
  ASSERT_TRUE(eventually(f, *s, [&] { return active() == 0; }));
  const auto recent = s->alerts(kAdmin).get().body["recent"];
  ASSERT_EQ(recent.size(), 1u);
  EXPECT_EQ(recent[0]["rule"], "backend_unreachable");
}

// Every state change is persisted with its event and reason, and GET shows the history;
// a restart keeps it.
TEST(Scheduler, TransitionsArePersistedAndShownAsTheJobsHistory) {
  Fixture f;
  int64_t id = 0;
  {
    auto s = f.make();
    JobRequest r;
    r.command = "train";
    id = s->submit(kAlpha, r).get().body["id"];
    wait_state(f, *s, id, "running");
    f.clock->advance(5);
    ScriptedDriver(f.shared).finish(handle(id, 0), 3);
    wait_state(f, *s, id, "failed");
    s->stop();
  }
  auto s = f.make();
  const auto h = job(*s, id)["history"];
  ASSERT_EQ(h.size(), 3u) << h;
  EXPECT_TRUE(h[0]["from"].is_null());
  EXPECT_EQ(h[0]["to"], "queued");
  EXPECT_EQ(h[0]["event"], "submit");
  EXPECT_EQ(h[1]["from"], "queued");
  EXPECT_EQ(h[1]["to"], "running");
  EXPECT_EQ(h[1]["event"], "start");
  EXPECT_EQ(h[2]["from"], "running");
  EXPECT_EQ(h[2]["to"], "failed");
  EXPECT_EQ(h[2]["event"], "exit_fail");
  EXPECT_EQ(h[2]["reason"], "scripted exit");
  EXPECT_LE(h[0]["at"].get<double>(), h[1]["at"].get<double>());
  EXPECT_GE(h[2]["at"].get<double>() - h[1]["at"].get<double>(), 5);
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

bool node_alert_active(Scheduler& s, const std::string& rule) {
  const nlohmann::json body = s.alerts(kAdmin).get().body;
  for (const auto& a : body["active"])
    if (a["rule"] == rule) return true;
  return false;
}

// alerts.node_hot on the service's fake clock: node "n" reported above the temperature limit
// for the window raises node_hot and stops taking general-tier work (a core job still
// starts there; /v1/nodes says why); cooled for the window, it takes general work again.
TEST(Scheduler, AHotNodeTakesNoGeneralWorkUntilItCools) {
  Fixture f;
  f.configure = [](ServiceConfig& c) {
    c.alerts.node_hot_temperature_c = 85;
    c.alerts.node_hot_minutes = 0.005;  // 0.3 s
  };
  auto s = f.make();
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    f.shared->temperature_c = 92;
  }
  ASSERT_TRUE(eventually(f, *s, [&] { return node_alert_active(*s, "node_hot"); }))
      << s->nodes(kAdmin).get().body.dump() << s->alerts(kAdmin).get().body.dump();
  const nlohmann::json node = s->nodes(kAlpha).get().body["nodes"][0];
  EXPECT_EQ(node["placement_limit"]["takes_up_to"], "important");
  EXPECT_EQ(node["placement_limit"]["reason"],
            "GPU 0 at 92 °C (limit 85 °C) for 0.005 min: no new general-tier work");
  JobRequest general;
  general.command = "train";
  general.gpus = 1;
  const int64_t g = s->submit(kAlpha, general).get().body["id"];
  JobRequest core = general;
  core.tier = Tier::kCore;
  const int64_t c = s->submit(kAlpha, core).get().body["id"];
  wait_state(f, *s, c, "running");
  pass(f, *s, 1);
  EXPECT_EQ(job(*s, g)["state"], "queued");
  EXPECT_EQ(job(*s, g)["waiting"]["point"], "health");
  {
    std::lock_guard<std::mutex> lock(f.shared->mu);
    f.shared->temperature_c = 60;
  }
  wait_state(f, *s, g, "running");
  EXPECT_FALSE(node_alert_active(*s, "node_hot"));
  EXPECT_FALSE(s->nodes(kAlpha).get().body["nodes"][0].contains("placement_limit"));
}

}  // namespace
}  // namespace frugal
