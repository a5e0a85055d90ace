// The Slurm backend (SlurmDriver) against the real local cluster, without the service:
// deferral as a Slurm begin time, node down/up events, adoption after a restart.
#include <fmt/format.h>
#include <unistd.h>

#include "drivers/command.h"
#include "drivers/slurm_driver.h"
#include "slurm/live_util.h"

namespace frugal {
namespace {

SlurmDriverOptions options(const std::string& test) {
  SlurmDriverOptions o;
  o.slurm = live::config();
  o.poll_interval_s = 0.3;
  o.stale_after_s = 5;
  o.instance = fmt::format("frugal-test-{}-{}", test, getpid());
  return o;
}

LaunchSpec spec(const std::string& id, const std::string& dir, const std::string& command) {
  LaunchSpec s;
  s.job_id = id;
  s.name = "frugal-driver-" + id;
  s.command = command;
  s.workdir = dir;
  s.log_dir = dir;
  return s;
}

// All of `d`'s Slurm jobs for frugal job `id`, newest last.
std::vector<SlurmJob> slurm_jobs_of(SlurmClient& c, const SlurmDriverOptions& o,
                                    const std::string& id) {
  std::vector<SlurmJob> out;
  auto jobs = c.jobs();
  if (!jobs.ok()) return out;
  for (const SlurmJob& j : jobs.value())
    if (j.comment == o.instance + ":" + id) out.push_back(j);
  return out;
}

// Events until `pred` matches one (or the timeout); returns whether one did.
template <class F>
bool wait_event(SlurmDriver& d, F pred, double timeout_s,
                std::vector<DriverEvent>* seen = nullptr) {
  return live::wait_until(
      [&] {
        for (const DriverEvent& e : d.poll()) {
          if (seen) seen->push_back(e);
          if (pred(e)) return true;
        }
        return false;
      },
      timeout_s);
}

TEST(SlurmLive, DriverDeferralIsASlurmBeginTime) {
  FRUGAL_REQUIRE_SLURM();
  const SlurmDriverOptions o = options("defer");
  SlurmDriver d(o);
  ASSERT_TRUE(d.inventory().ok());
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("driver-defer");
  const int64_t until = live::now_unix() + 3 * 3600;
  d.deferred(spec("7", dir, "sleep 30"), static_cast<double>(until));
  ASSERT_TRUE(live::wait_until([&] { return slurm_jobs_of(c, o, "7").size() == 1; }, 10));
  const SlurmJob waiting = slurm_jobs_of(c, o, "7")[0];
  EXPECT_TRUE(waiting.pending());
  EXPECT_TRUE(waiting.held());
  EXPECT_EQ(waiting.eligible_time, until);  // squeue START_TIME: the deferral's end
  // The engine's start after the deferral places and releases that same Slurm job.
  LaunchSpec run = spec("7", dir, "sleep 30");
  run.slots = {{"gpu4", 0, 1000}, {"gpu4", 1, 1000}};
  auto h = d.start(run);
  ASSERT_TRUE(h.ok()) << h.error().message;
  auto r = live::wait_job(
      c, waiting.id, [](const SlurmJob& j) { return j.running(); }, 15);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().nodes, std::vector<std::string>{"gpu4"});
  ASSERT_EQ(r.value().gres_alloc.size(), 1u);
  EXPECT_EQ(r.value().gres_alloc[0].type, "h100");
  EXPECT_EQ(r.value().gres_alloc[0].count, 2);
  EXPECT_EQ(slurm_jobs_of(c, o, "7").size(), 1u);  // no second Slurm job
  StopPlan cancel;
  cancel.checkpoint_signal = 0;
  ASSERT_TRUE(d.stop(h.value(), cancel).ok());
  EXPECT_TRUE(wait_event(
      d,
      [&](const DriverEvent& e) {
        return e.kind == DriverEvent::Kind::kExited && e.handle == h.value();
      },
      15));
}

TEST(SlurmLive, DriverReportsNodeDownAndUp) {
  FRUGAL_REQUIRE_SLURM();
  SlurmDriver d(options("node"));
  ASSERT_TRUE(d.inventory().ok());
  ASSERT_TRUE(
      run_checked({"scontrol", "update", "nodename=gpu2", "state=drain", "reason=test"}).ok());
  const bool down = wait_event(
      d,
      [](const DriverEvent& e) {
        return e.kind == DriverEvent::Kind::kNodeDown && e.node == "gpu2";
      },
      10);
  ASSERT_TRUE(run_checked({"scontrol", "update", "nodename=gpu2", "state=resume"}).ok());
  EXPECT_TRUE(down);
  EXPECT_TRUE(wait_event(
      d,
      [](const DriverEvent& e) { return e.kind == DriverEvent::Kind::kNodeUp && e.node == "gpu2"; },
      10));
  EXPECT_LT(d.staleness_s(), 5);
}

// A service restart: a new driver adopts the running Slurm job by its comment and reports
// its end with the handle it was adopted under.
TEST(SlurmLive, DriverAdoptsARunningJobAfterRestart) {
  FRUGAL_REQUIRE_SLURM();
  const SlurmDriverOptions o = options("adopt");
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("driver-adopt");
  {
    SlurmDriver first(o);
    ASSERT_TRUE(first.inventory().ok());
    LaunchSpec run = spec("3", dir, "sleep 4; exit 0");
    run.slots = {{"gpu1", 0, 1000}};
    ASSERT_TRUE(first.start(run).ok());
    ASSERT_TRUE(live::wait_until(
        [&] {
          auto js = slurm_jobs_of(c, o, "3");
          return js.size() == 1 && js[0].running();
        },
        15));
  }  // the first driver (service) goes away; the job keeps running
  SlurmDriver second(o);
  ASSERT_TRUE(second.inventory().ok());
  auto adopted = second.adopt("3", 0, "");
  ASSERT_TRUE(adopted.ok()) << adopted.error().message;
  EXPECT_TRUE(adopted.value());
  const std::string handle = second.adopted_handle("3");
  EXPECT_FALSE(handle.empty());
  auto gone = second.adopt("99", 0, "");
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone.value());
  std::vector<DriverEvent> seen;
  ASSERT_TRUE(wait_event(
      second, [&](const DriverEvent& e) { return e.kind == DriverEvent::Kind::kExited; }, 20,
      &seen));
  EXPECT_EQ(seen.back().handle, handle);
  EXPECT_EQ(seen.back().exit_code, 0) << seen.back().message;
}

}  // namespace
}  // namespace frugal
