// slurmctld restarts while jobs pend and run: the client reports errors (no exception, no
// stale answer) while it is down and finds every job, once, when it is back.
#include "drivers/command.h"
#include "slurm/live_util.h"

namespace frugal {
namespace {

TEST(SlurmLive, CtldRestartLosesNoJob) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("restart");
  std::vector<int64_t> ids;
  for (int k = 0; k < 2; ++k) {
    SlurmSubmit s;
    s.name = "frugal-restart";
    s.workdir = dir;
    s.script = live::script("sleep 30");
    auto id = c.submit(s);
    ASSERT_TRUE(id.ok()) << id.error().message;
    ids.push_back(id.value());
  }
  SlurmUpdate u;
  u.nodelist = "gpu1";
  u.gres = "gpu:a100:1";
  ASSERT_TRUE(c.update(ids[1], u).ok());
  ASSERT_TRUE(c.release(ids[1]).ok());
  ASSERT_TRUE(live::wait_job(
                  c, ids[1], [](const SlurmJob& j) { return j.running(); }, 15)
                  .ok());

  auto restart = run_command(
      {std::string(FRUGAL_SOURCE_DIR) + "/scripts/slurm-local.sh", "restart-ctld", "TERM", "2"},
      60);
  ASSERT_TRUE(restart.ok()) << restart.error().message;
  ASSERT_EQ(restart.value().exit_code, 0) << restart.value().err;
  ASSERT_TRUE(live::wait_until([&] { return c.ping().ok(); }, 20));
  auto jobs = c.jobs();
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  int held = 0, running = 0, named = 0;
  for (const SlurmJob& j : jobs.value()) {
    if (j.name != "frugal-restart") continue;
    ++named;
    if (j.id == ids[0] && j.pending() && j.held()) ++held;
    if (j.id == ids[1] && j.running()) ++running;
  }
  EXPECT_EQ(named, 2);  // nothing lost, nothing duplicated
  EXPECT_EQ(held, 1);
  EXPECT_EQ(running, 1);
  for (int64_t id : ids) EXPECT_TRUE(c.cancel(id).ok());
}

// While slurmctld is down the client answers errors naming the request.
TEST(SlurmLive, CtldDownIsAnErrorNotStaleData) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  ASSERT_TRUE(c.ping().ok());
  // Freeze slurmctld (SIGSTOP: unreachable, its state intact), read, then let it go on.
  auto pid = run_checked({"cat", "/run/frugal-slurm/launch/slurmctld.pid"});
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  std::string p = pid.value();
  while (!p.empty() && p.back() == '\n') p.pop_back();
  ASSERT_TRUE(run_checked({"kill", "-STOP", p}).ok());
  SlurmConfig quick = live::config();
  quick.timeout_s = 3;
  SlurmClient q(quick);
  auto nodes = q.nodes();
  ASSERT_TRUE(run_checked({"kill", "-CONT", p}).ok());
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.error().message.find("slurmrestd GET /slurm/v0.0.38/nodes"), std::string::npos)
      << nodes.error().message;
  EXPECT_TRUE(live::wait_until([&] { return c.ping().ok(); }, 20));
}

}  // namespace
}  // namespace frugal
