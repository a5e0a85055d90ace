#pragma once
// The Scheduler in-process for tests: a scripted backend (ScriptedDriver: jobs "run" until
// finish(); telemetry scripted per GPU, and per job process when `processes` is set) on a
// ManualClock (Fixture), and helpers that let service time pass a turn at a time.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include "io/catalog_yaml.h"
#include "service/scheduler.h"
#include "service/serve.h"

namespace frugal::sched_test {

// Jobs "run" until finish() is called; telemetry reports a fixed utilisation per GPU.
class ScriptedDriver final : public Driver {
 public:
  struct Shared {
    std::mutex mu;
    std::vector<std::string> started;
    std::vector<LaunchSpec> specs;  // every start, in order
    std::vector<DriverEvent> pending;
    double utilization = 0.25;
    double temperature_c = 40;         // both GPUs
    bool gpu_readings = true;          // telemetry() reads node "n" (else nothing: agents do)
    int nodes = 1;                     // nodes "n", "n1", ... of two L4 each
    bool stop_exits = true;            // stop() ends the job at once (else it runs until finish())
    std::vector<std::string> stopped;  // handles stop() was called with
    // Telemetry of node "n" lists each running job's process (pid = job id, 4,000 MiB); a
    // card's utilisation is the sum of its jobs' own (job_util, else `utilization`; at most
    // 1). Per process it reads as an H200 read (driver 580, docs/TELEMETRY.md "Shared
    // cards"): the whole card's utilisation on one process (the newest job's), 0 on the others.
    bool processes = false;
    std::map<std::string, double> job_util;     // by job id
    std::map<std::string, LaunchSpec> running;  // by handle: started, not yet ended
  };
  explicit ScriptedDriver(std::shared_ptr<Shared> s) : s_(std::move(s)) {}
  std::string name() const override { return "scripted"; }
  Result<Inventory> inventory() override {
    Inventory inv{{}, "config", ""};
    for (int n = 0; n < s_->nodes; ++n)
      inv.nodes.push_back(NodeInventory{n == 0 ? "n" : "n" + std::to_string(n),
                                        {GpuInfo{0, "L4", "", 0}, GpuInfo{1, "L4", "", 0}}});
    return inv;
  }
  Result<std::string> start(const LaunchSpec& spec) override {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->started.push_back(spec.job_id);
    s_->specs.push_back(spec);
    std::string h = "h" + spec.job_id + "." + std::to_string(spec.restart_count);
    s_->running[h] = spec;
    return h;
  }
  Status stop(const std::string& handle, const StopPlan&) override {
    bool exits = false;
    {
      std::lock_guard<std::mutex> lock(s_->mu);
      s_->stopped.push_back(handle);
      exits = s_->stop_exits;
    }
    if (exits) finish(handle, 143);
    return Status::Ok();
  }
  Result<bool> adopt(const std::string&, int, const std::string& handle) override {
    return !handle.empty();
  }
  std::vector<DriverEvent> poll() override {
    std::lock_guard<std::mutex> lock(s_->mu);
    std::vector<DriverEvent> out;
    out.swap(s_->pending);
    return out;
  }
  std::vector<GpuTelemetry> telemetry() override {
    std::lock_guard<std::mutex> lock(s_->mu);
    if (!s_->gpu_readings) return {};
    if (s_->processes) return process_readings();
    return {GpuTelemetry{"n", 0, s_->utilization, 1000, 24000, 50, s_->temperature_c, {}},
            GpuTelemetry{"n", 1, s_->utilization, 1000, 24000, 50, s_->temperature_c, {}}};
  }
  void finish(const std::string& handle, int code) {
    std::lock_guard<std::mutex> lock(s_->mu);
    DriverEvent e;
    e.job_id = handle.substr(1, handle.find('.') - 1);
    e.handle = handle;
    e.exit_code = code;
    e.message = "scripted exit";
    s_->pending.push_back(e);
    s_->running.erase(handle);
  }

 private:
  // Node "n"'s cards with the running jobs' processes on them (mu held).
  std::vector<GpuTelemetry> process_readings() const {
    std::vector<GpuTelemetry> out;
    for (int g = 0; g < 2; ++g) {
      GpuTelemetry t{"n", g, 0, 0, 24000, 50, s_->temperature_c, {}};
      for (const auto& [h, spec] : s_->running)
        for (const SlotAssignment& slot : spec.slots) {
          if (slot.node != "n" || slot.gpu != g) continue;
          const auto u = s_->job_util.find(spec.job_id);
          const double util = u == s_->job_util.end() ? s_->utilization : u->second;
          t.processes.push_back({std::stoll(spec.job_id), 4000, spec.job_id, "", 0});
          t.utilization = std::min(1.0, t.utilization + util);
          t.memory_used_mib += 4000;
        }
      auto newest = std::max_element(t.processes.begin(), t.processes.end(),
                                     [](const auto& a, const auto& b) { return a.pid < b.pid; });
      if (newest != t.processes.end()) newest->utilization = t.utilization;
      out.push_back(std::move(t));
    }
    return out;
  }

  std::shared_ptr<Shared> s_;
};

struct Fixture {
  std::filesystem::path dir;
  // The service's time: moves only when a test advances it (2026-12-01T00:00:00Z at first).
  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(1796083200.0);
  std::shared_ptr<ScriptedDriver::Shared> shared = std::make_shared<ScriptedDriver::Shared>();
  GpuCatalog catalog = load_builtin_catalog().value();
  double grace_s = 60;
  std::function<void(ServiceConfig&)> configure;  // changes to the default config
  Fixture() {
    char tmpl[] = "/tmp/frugal-sched-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~Fixture() { std::filesystem::remove_all(dir); }
  std::unique_ptr<Scheduler> make() {
    ServiceConfig cfg;  // policy "": the default, the `frugal` profile
    cfg.telemetry_period_s = 0.05;
    cfg.checkpoint_grace_s = grace_s;
    cfg.log_dir = (dir / "logs").string();
    cfg.checkpoint_dir = (dir / "ckpt").string();
    if (configure) configure(cfg);
    auto driver = std::make_unique<ScriptedDriver>(shared);
    auto inv = driver->inventory();
    auto cluster = cluster_from_inventory(inv.value(), cfg, catalog);
    auto store = Store::open((dir / "f.db").string());
    EXPECT_TRUE(store.ok());
    auto s = Scheduler::create(Scheduler::Parts{cfg,
                                                catalog,
                                                cluster.value(),
                                                std::move(driver),
                                                std::move(store).value(),
                                                [](const std::string&) {},
                                                {},
                                                clock});
    EXPECT_TRUE(s.ok());
    EXPECT_TRUE(s.value()->recover().ok());
    s.value()->start();
    return std::move(s).value();
  }
};

inline const Principal kAlpha{"alpha", false};
inline const Principal kAdmin{"", true};

inline nlohmann::json job(Scheduler& s, int64_t id) {
  return s.get_job(kAdmin, id).get().body;
}

// One turn of the scheduler's loop at the clock's time: a command's reply comes after its
// turn's engine cycle, and the loop does nothing between commands that the clock could
// change.
inline void turn(Scheduler& s) {
  (void)s.barrier().get();
}

// Lets up to 10 s of service time pass in 10 ms steps, a turn each, until `cond` holds.
template <class F>
inline bool eventually(Fixture& f, Scheduler& s, F cond) {
  for (int i = 0; i < 1000; ++i) {
    if (cond()) return true;
    f.clock->advance(0.01);
    turn(s);
  }
  return cond();
}

// `seconds` of service time pass, with a turn each 10 ms.
inline void pass(Fixture& f, Scheduler& s, double seconds) {
  for (double t = 0; t < seconds; t += 0.01) {
    f.clock->advance(0.01);
    turn(s);
  }
}

inline std::string handle(int64_t id, int restarts) {
  return "h" + std::to_string(id) + "." + std::to_string(restarts);
}

inline std::string env_of(const LaunchSpec& s, const std::string& name) {
  for (const auto& [k, v] : s.env)
    if (k == name) return v;
  return "(unset)";
}

// Lets up to 10 s of service time pass in 10 ms steps, a turn each, until the job is in
// `state`.
inline void wait_state(Fixture& f, Scheduler& s, int64_t id, const std::string& state) {
  if (eventually(f, s, [&] { return job(s, id)["state"] == state; })) return;
  FAIL() << "job " << id << " is " << job(s, id)["state"] << ", not " << state;
}

}  // namespace frugal::sched_test
