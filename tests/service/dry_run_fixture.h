#pragma once
// The service on the dry-run backend (each run ends after what is left of its estimate) on a
// ManualClock the test moves from event to event, and a 50-job workload for it: the live half of
// the tests that compare the service with a simulation (ledger identity, shadow fidelity).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>

#include "drivers/dry_run_driver.h"
#include "io/catalog_yaml.h"
#include "service/scheduler.h"
#include "service/serve.h"

namespace frugal::dry_run_test {

inline const Principal kAdmin{"", true};

struct Workload {
  std::vector<std::pair<std::string, JobRequest>> requests;  // (team, request), by submit time
  std::vector<double> submit_unix;
};

// 50 jobs over about 4 hours on 4 nodes of 8 GPUs: sizes 1..8 GPUs, runs of 10 min to 2 h,
// three teams and three job classes; deterministic (a fixed linear congruential sequence).
inline Workload workload(double t0) {
  Workload w;
  uint64_t x = 12345;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  const int sizes[] = {1, 1, 2, 2, 4, 8};
  const char* teams[] = {"alpha", "beta", "gamma"};
  const JobClass classes[] = {JobClass::kPretrain, JobClass::kFinetune, JobClass::kEval};
  double t = t0;
  for (int i = 0; i < 50; ++i) {
    if (i > 0) t += static_cast<double>(next(600));  // several may share an instant
    JobRequest r;
    r.name = "job" + std::to_string(i);
    r.command = "train";
    r.gpus = sizes[next(6)];
    r.estimate_s = static_cast<double>(600 + next(6600));
    r.job_class = classes[next(3)];
    w.requests.emplace_back(teams[next(3)], r);
    w.submit_unix.push_back(t);
  }
  return w;
}

// The engine's view of a request, as the service builds it (scheduler_api.cpp make_spec).
inline JobSpec spec_of(int64_t id, const std::string& team, const JobRequest& q, double submit_unix,
                       double epoch) {
  JobSpec s;
  s.id = std::to_string(id);
  s.team = team;
  s.name = q.name;
  s.job_class = q.job_class;
  s.tier = q.tier;
  s.submit = submit_unix - epoch;
  s.gpus = q.gpus;
  s.gpu_milli = q.gpu_milli;
  s.duration = q.estimate_s;
  s.checkpoint_interval = 0;
  s.checkpoint_grace = q.grace_s;
  return s;
}

struct Live {
  std::filesystem::path dir;
  GpuCatalog catalog = load_builtin_catalog().value();
  ServiceConfig cfg;
  std::vector<NodeInventory> nodes;
  ClusterSpec cluster;
  std::shared_ptr<ManualClock> clock;
  DryRunDriver* dry_run = nullptr;  // the latest make()'s, owned by its scheduler
  // What the service logged, every line (thread-safe).
  struct Logged {
    std::mutex mu;
    std::vector<std::string> lines;
    bool has(const std::string& part) {
      std::lock_guard<std::mutex> lock(mu);
      for (const auto& l : lines)
        if (l.find(part) != std::string::npos) return true;
      return false;
    }
  };
  std::shared_ptr<Logged> logged = std::make_shared<Logged>();

  explicit Live(const std::string& policy) {
    char tmpl[] = "/tmp/frugal-ledger-XXXXXX";
    dir = mkdtemp(tmpl);
    cfg.policy = policy;
    cfg.backend = "dry-run";
    cfg.log_dir = (dir / "logs").string();
    cfg.checkpoint_dir = (dir / "ckpt").string();
    cfg.shadow_thread = false;  // shadows in the loop's turn: their figures are there at once
    for (int n = 0; n < 4; ++n) {
      NodeInventory node{"g" + std::to_string(n), {}};
      for (int g = 0; g < 8; ++g) node.gpus.push_back(GpuInfo{g, "A100-80GB", "", 0});
      nodes.push_back(node);
    }
    cluster = cluster_from_inventory(Inventory{nodes, "config", ""}, cfg, catalog).value();
  }
  ~Live() { std::filesystem::remove_all(dir); }

  std::unique_ptr<Scheduler> make() {
    std::shared_ptr<ManualClock> c = clock;
    auto driver = std::make_unique<DryRunDriver>(nodes, [c] { return c->now(); });
    dry_run = driver.get();
    auto store = Store::open((dir / "f.db").string());
    EXPECT_TRUE(store.ok());
    auto s = Scheduler::create(Scheduler::Parts{cfg,
                                                catalog,
                                                cluster,
                                                std::move(driver),
                                                std::move(store).value(),
                                                [log = logged](const std::string& line) {
                                                  std::lock_guard<std::mutex> lock(log->mu);
                                                  log->lines.push_back(line);
                                                },
                                                {},
                                                clock});
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    EXPECT_TRUE(s.value()->recover().ok());
    s.value()->start();
    return std::move(s).value();
  }
};

// Turns at this instant until the backend has no stopped run left to report: the schedule
// then depends on the instants alone, not on whether the service's own timed turn came
// between two of the test's commands. A barrier answers after its turn's launches, so the
// backend's next_end() then sees them.
inline void settle(Scheduler& s, const DryRunDriver& backend) {
  for (int i = 0; i < 100; ++i) {
    (void)s.barrier().get();
    if (backend.stops_unreported() == 0) return;
  }
  FAIL() << "the backend still reports stopped runs after 100 turns at one instant";
}

// The next instant something happens in the service: a submission or a run's end (the
// dry-run backend ends a run after what is left of its estimate).
inline double next_instant(const Live& live, const Workload& w, size_t next_submit) {
  const double t = next_submit < w.submit_unix.size() ? w.submit_unix[next_submit]
                                                      : std::numeric_limits<double>::infinity();
  return std::min(t, live.dry_run->next_end());
}

inline size_t finished(Scheduler& s) {
  size_t n = 0;
  for (const char* state : {"completed", "failed", "cancelled"})
    n += s.list_jobs(kAdmin, *parse_job_status(state), 1000).get().body["jobs"].size();
  return n;
}

inline nlohmann::json ledger_of(Scheduler& s) {
  nlohmann::json l = s.ledger(kAdmin).get().body;
  l.erase("as_of");
  l.erase("jobs");
  return l;
}

// Submissions and run ends at their instants, each instant settled, until every job of `w`
// ended; a minute on when nothing comes but jobs wait (a checkpoint grace running out).
inline void run_workload(Live& live, std::unique_ptr<Scheduler>& s, const Workload& w) {
  size_t next_submit = 0;
  for (int steps = 0; steps < 5000 && finished(*s) < w.requests.size(); ++steps) {
    double t = next_instant(live, w, next_submit);
    // (The first instant may be the clock's start; later ones are all after it.)
    if (!std::isfinite(t) || t < live.clock->now() || (t == live.clock->now() && steps > 0))
      t = live.clock->now() + 60;
    live.clock->set(t);
    settle(*s, *live.dry_run);  // this instant's run ends, then a cycle
    for (; next_submit < w.submit_unix.size() && w.submit_unix[next_submit] <= t; ++next_submit) {
      const auto& [team, r] = w.requests[next_submit];
      ASSERT_EQ(s->submit(Principal{team, false}, r).get().status, 201);
      settle(*s, *live.dry_run);
    }
  }
  ASSERT_EQ(finished(*s), w.requests.size());
}

}  // namespace frugal::dry_run_test
