// The policy guard on a real workload (issue 23): the first 10,000 jobs of ITP cluster04
// (25.8 days, 89 % of 640 GPUs' capacity) through `serve` on the dry-run backend and a fake
// clock, on 80 nodes of 8 A100-80GB, with classes and tiers by the evaluation's seeded job
// rule (sim/class_assignment.h). With a good active policy (frugal) and a weaker fallback
// (backfill) watching core p95 wait, cost per useful GPU-hour and deadline misses, the guard
// never switches; once a simulated day each shadow's 24-hour core p95 wait is sampled, and
// the fallback's worst day must be the far worse one (else the test proves nothing).
// The schedule is a function of the workload alone: the test settles each instant (settle())
// before it moves the clock or reads the backend. Tens of seconds of work: skipped in
// sanitizer builds, where the ServeGuard tests cover the same code on a small workload.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>

#include "dry_run_fixture.h"
#include "io/trace_reader.h"
#include "sim/class_assignment.h"

namespace frugal {
namespace {

using dry_run_test::kAdmin;
using dry_run_test::Live;
using dry_run_test::settle;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

struct Submission {
  double at;
  JobRequest request;
  std::string team;
};

std::vector<Submission> cluster04_jobs(const GpuCatalog& catalog, double t0, size_t n) {
  TraceOptions to;
  to.catalog = &catalog;
  auto trace = read_trace(
      (std::filesystem::path(FRUGAL_SHARED_DATA) / "traces/itp/raw/cluster04.csv").string(), to);
  EXPECT_TRUE(trace.ok()) << trace.error().message;
  if (!trace.ok()) return {};
  std::vector<JobSpec> jobs = trace.value().jobs;
  jobs.resize(std::min(n, jobs.size()));
  assign_classes(jobs, 1);
  assign_tiers(jobs, 1);
  std::vector<Submission> out;
  const char* teams[] = {"alpha", "beta", "gamma"};
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobSpec& j = jobs[i];
    JobRequest r;
    r.name = "c04-" + std::to_string(i);
    r.command = "train";
    r.gpus = j.gpus;
    r.estimate_s = std::max(1.0, j.duration);
    r.job_class = j.job_class;
    r.tier = j.tier;
    out.push_back({t0 + j.submit, r, teams[i % 3]});
  }
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.at < b.at; });
  return out;
}

TEST(ServeGuardLong, NeverSwitchesFromAGoodPolicyOnCluster04) {
  if (kSanitized) GTEST_SKIP() << "minutes of work under a sanitizer; ServeGuard.* cover it";
  if (!std::filesystem::is_directory(FRUGAL_SHARED_DATA)) GTEST_SKIP() << "no shared data";
  Live live("frugal");
  live.nodes.clear();
  for (int n = 0; n < 80; ++n) {
    NodeInventory node{"g" + std::to_string(n), {}};
    for (int g = 0; g < 8; ++g) node.gpus.push_back(GpuInfo{g, "A100-80GB", "", 0});
    live.nodes.push_back(node);
  }
  live.cluster =
      cluster_from_inventory(Inventory{live.nodes, "config", ""}, live.cfg, live.catalog).value();
  live.cfg.policy_guard.enabled = true;
  live.cfg.policy_guard.fallback = "backfill";
  live.cfg.policy_guard.window_s = 3600;
  live.cfg.policy_guard.check_every_s = 60;
  live.cfg.policy_guard.core_p95_wait = 0.5;
  live.cfg.policy_guard.usd_per_useful_gpu_hour = 0.2;
  live.cfg.policy_guard.deadline_misses = 2;
  const double t0 = 1796083200.0;
  const std::vector<Submission> subs = cluster04_jobs(live.catalog, t0, 10'000);
  ASSERT_EQ(subs.size(), 10'000u);
  live.clock = std::make_shared<ManualClock>(subs.front().at);
  auto s = live.make();

  // From instant to instant: the next submission or run end (the dry-run backend's), until
  // everything was submitted and nothing runs or waits; a minute on when neither comes but
  // jobs wait (a checkpoint grace running out).
  size_t next = 0, steps = 0;
  double next_day = subs.front().at + 86400;
  std::map<std::string, double> worst_day_core_p95;  // per shadow, over the daily samples
  for (;; ++steps) {
    ASSERT_LT(steps, 100'000u);
    double t = next < subs.size() ? subs[next].at : std::numeric_limits<double>::infinity();
    t = std::min(t, live.dry_run->next_end());
    if (!std::isfinite(t) || t < live.clock->now() || (t == live.clock->now() && steps > 0)) {
      bool waiting = false;
      for (const JobStatus st :
           {JobStatus::kQueued, JobStatus::kDeferred, JobStatus::kPreempted, JobStatus::kRunning})
        waiting = waiting || !s->list_jobs(kAdmin, st, 1).get().body["jobs"].empty();
      if (!waiting && next == subs.size()) break;
      t = live.clock->now() + 60;
    }
    live.clock->set(t);
    settle(*s, *live.dry_run);
    for (; next < subs.size() && subs[next].at <= live.clock->now(); ++next) {
      ASSERT_EQ(s->submit(Principal{subs[next].team, false}, subs[next].request).get().status, 201);
      settle(*s, *live.dry_run);
    }
    if (t >= next_day) {
      next_day = t + 86400;
      const nlohmann::json b = s->shadow(kAdmin).get().body;
      for (const auto& sh : b["shadows"]) {
        const nlohmann::json& core = sh["windows"]["24h"]["wait_by_tier_s"]["core"];
        const double p95 = core.is_object() ? core.value("p95", 0.0) : 0.0;
        double& worst = worst_day_core_p95[sh["policy"].get<std::string>()];
        worst = std::max(worst, p95);
      }
    }
  }
  const nlohmann::json p = s->get_policy(kAdmin).get().body;
  EXPECT_EQ(p["policy"], "frugal");
  EXPECT_TRUE(p["changes"].empty()) << p.dump();
  EXPECT_TRUE(p["guard"]["armed"].get<bool>());
  // Both shadows saw all of it.
  const nlohmann::json b = s->shadow(kAdmin).get().body;
  ASSERT_EQ(b["shadows"].size(), 2u);
  EXPECT_EQ(b["events"], 20'000);
  for (const auto& sh : b["shadows"]) EXPECT_EQ(sh["events"], 20'000) << sh["policy"];
  // The fallback is the weaker policy on this workload: the guard had something to prefer.
  EXPECT_LT(worst_day_core_p95["frugal"], 600.0);
  EXPECT_GT(worst_day_core_p95["backfill"], 10 * worst_day_core_p95["frugal"]);
  std::cout << "worst daily core p95 wait: frugal " << worst_day_core_p95["frugal"]
            << " s, backfill " << worst_day_core_p95["backfill"] << " s\n";
  std::cout << "cluster04 10,000 jobs through serve: " << steps << " instants; shadows: ";
  for (const auto& sh : b["shadows"])
    std::cout << sh["policy"] << " 7d core p95 wait "
              << sh["windows"]["7d"]["wait_by_tier_s"]["core"]["p95"] << " s, "
              << "usd/useful GPU-h " << sh["windows"]["7d"]["usd_per_useful_gpu_hour"] << "; ";
  std::cout << "\n";
}

}  // namespace
}  // namespace frugal
