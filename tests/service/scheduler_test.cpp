// The Scheduler in-process with a scripted backend (this machine has no NVML, so GPU
// telemetry is scripted here; everything else is the real loop, engine and SQLite store):
// measured utilisation reaches the ledger as idle_allocated waste; exits, cancels and a
// restart with adoption keep the store consistent.

#include "service/scheduler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "io/catalog_yaml.h"
#include "service/serve.h"

namespace frugal {
namespace {

// Jobs "run" until finish() is called; telemetry reports a fixed utilisation per GPU.
class ScriptedDriver final : public Driver {
 public:
  struct Shared {
    std::mutex mu;
    std::vector<std::string> started;
    std::vector<DriverEvent> pending;
    double utilization = 0.25;
  };
  explicit ScriptedDriver(std::shared_ptr<Shared> s) : s_(std::move(s)) {}
  std::string name() const override { return "scripted"; }
  Result<Inventory> inventory() override {
    return Inventory{
        {NodeInventory{"n", {GpuInfo{0, "L4", "", 0}, GpuInfo{1, "L4", "", 0}}}}, "config", ""};
  }
  Result<std::string> start(const LaunchSpec& spec) override {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->started.push_back(spec.job_id);
    return "h" + spec.job_id + "." + std::to_string(spec.restart_count);
  }
  Status stop(const std::string& handle, const StopPlan&) override {
    finish(handle, 143);
    return Status::Ok();
  }
  Result<bool> adopt(const std::string&, const std::string& handle) override {
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
    return {GpuTelemetry{"n", 0, s_->utilization, 1000, 24000, 50},
            GpuTelemetry{"n", 1, s_->utilization, 1000, 24000, 50}};
  }
  void finish(const std::string& handle, int code) {
    std::lock_guard<std::mutex> lock(s_->mu);
    DriverEvent e;
    e.job_id = handle.substr(1, handle.find('.') - 1);
    e.handle = handle;
    e.exit_code = code;
    e.message = "scripted exit";
    s_->pending.push_back(e);
  }

 private:
  std::shared_ptr<Shared> s_;
};

struct Fixture {
  std::filesystem::path dir;
  std::shared_ptr<ScriptedDriver::Shared> shared = std::make_shared<ScriptedDriver::Shared>();
  GpuCatalog catalog = load_builtin_catalog().value();
  Fixture() {
    char tmpl[] = "/tmp/frugal-sched-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~Fixture() { std::filesystem::remove_all(dir); }
  std::unique_ptr<Scheduler> make() {
    ServiceConfig cfg;
    cfg.telemetry_period_s = 0.05;
    cfg.log_dir = (dir / "logs").string();
    cfg.checkpoint_dir = (dir / "ckpt").string();
    auto driver = std::make_unique<ScriptedDriver>(shared);
    auto inv = driver->inventory();
    auto cluster = cluster_from_inventory(inv.value(), cfg, catalog);
    auto store = Store::open((dir / "f.db").string());
    EXPECT_TRUE(store.ok());
    auto s =
        Scheduler::create(Scheduler::Parts{cfg, catalog, cluster.value(), std::move(driver),
                                           std::move(store).value(), [](const std::string&) {}});
    EXPECT_TRUE(s.ok());
    EXPECT_TRUE(s.value()->recover().ok());
    s.value()->start();
    return std::move(s).value();
  }
};

const Principal kAlpha{"alpha", false};
const Principal kAdmin{"", true};

nlohmann::json job(Scheduler& s, int64_t id) {
  return s.get_job(kAdmin, id).get().body;
}

// Waits (bounded: 10 s) until the job is in `state`.
void wait_state(Scheduler& s, int64_t id, const std::string& state) {
  for (int i = 0; i < 1000; ++i) {
    if (job(s, id)["state"] == state) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "job " << id << " is " << job(s, id)["state"] << ", not " << state;
}

TEST(Scheduler, MeasuredUtilizationIsPricedAsIdleAllocatedWaste) {
  Fixture f;
  auto s = f.make();
  JobRequest r;
  r.command = "train";
  const auto reply = s->submit(kAlpha, r).get();
  ASSERT_EQ(reply.status, 201);
  const int64_t id = reply.body["id"];
  wait_state(*s, id, "running");
  for (int i = 0; i < 1000 && !job(*s, id)["utilization"].is_number(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_NEAR(job(*s, id)["utilization"].get<double>(), 0.25, 1e-9);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // some GPU time to price
  ScriptedDriver(f.shared).finish("h" + std::to_string(id) + ".0", 0);
  wait_state(*s, id, "completed");
  const auto ledger = s->ledger(kAdmin).get().body;
  const auto& team = ledger["by_team"]["alpha"];
  const double compute = team["compute_usd"], idle = team["waste"]["idle_allocated_usd"];
  ASSERT_GT(compute, 0);
  // Rental of the 75 % not computing (energy is priced by utilisation, not counted as waste).
  EXPECT_GT(idle, 0);
  EXPECT_LT(idle, compute);
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
    wait_state(*s, ids[0], "running");
    wait_state(*s, ids[1], "running");
    EXPECT_EQ(job(*s, ids[2])["state"], "queued");  // 2 GPUs, 4 one-GPU jobs
    EXPECT_EQ(s->act(kAlpha, ids[3], Scheduler::Action::kCancel).get().status, 200);
    s->stop();
  }
  auto s = f.make();  // the same database: jobs are recovered, running ones adopted
  EXPECT_EQ(job(*s, ids[0])["state"], "running");
  EXPECT_EQ(job(*s, ids[0])["restart_count"], 0);
  EXPECT_EQ(job(*s, ids[3])["state"], "cancelled");
  ScriptedDriver(f.shared).finish("h" + std::to_string(ids[0]) + ".0", 0);
  wait_state(*s, ids[0], "completed");
  wait_state(*s, ids[2], "running");  // the freed GPU goes to the queued job
  const auto list = s->list_jobs(kAdmin, std::nullopt, 100).get().body["jobs"];
  EXPECT_EQ(list.size(), ids.size());
  std::lock_guard<std::mutex> lock(f.shared->mu);
  // Started once each: ids[0], ids[1] before the restart, ids[2] after; never ids[3].
  EXPECT_EQ(f.shared->started.size(), 3u);
}

}  // namespace
}  // namespace frugal
