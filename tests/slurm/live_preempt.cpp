// Checkpoint-first preemption on real Slurm: signal, the job's handler writes its
// checkpoint, then requeue; it restarts with SLURM_RESTART_COUNT=1.
#include "slurm/live_util.h"

namespace frugal {
namespace {

TEST(SlurmLive, SignalDeliveredBeforeRequeue) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("preempt");
  SlurmSubmit s;
  s.name = "frugal-ckpt";
  s.workdir = dir;
  s.script = live::script("echo start restart=${SLURM_RESTART_COUNT:-0} >> " + dir +
                          "/log.txt\n"
                          "trap 'echo checkpoint restart=${SLURM_RESTART_COUNT:-0} >> " +
                          dir +
                          "/log.txt' USR1\n"
                          "for i in $(seq 1 60); do sleep 1 & wait $!; done");
  auto id = c.submit(s);
  ASSERT_TRUE(id.ok()) << id.error().message;
  SlurmUpdate u;
  u.nodelist = "gpu2";
  u.gres = "gpu:a100:4";
  ASSERT_TRUE(c.update(id.value(), u).ok());
  ASSERT_TRUE(c.release(id.value()).ok());
  ASSERT_TRUE(live::wait_job(
                  c, id.value(), [](const SlurmJob& j) { return j.running(); }, 15)
                  .ok());
  ASSERT_TRUE(live::wait_until([&] { return !live::read_text(dir + "/log.txt").empty(); }, 10));

  ASSERT_TRUE(c.signal(id.value(), "USR1").ok());
  ASSERT_TRUE(live::wait_until(
      [&] { return live::read_text(dir + "/log.txt").find("checkpoint") != std::string::npos; },
      10))
      << live::read_text(dir + "/log.txt");
  const Status rq = c.requeue(id.value());
  ASSERT_TRUE(rq.ok()) << rq.error().message;
  // Requeued: pending again with the same id, eligible cred_expire + 1 s later (11 s here).
  // Nothing may make it eligible sooner: until then its old credential is revoked on the
  // node and a launch there fails the job ("Job credential revoked") — frugal's driver used
  // to send begin_time=now here, and this test failed when Slurm restarted it on gpu2 at once.
  auto pending = live::wait_job(
      c, id.value(), [](const SlurmJob& j) { return j.pending() && j.restarts == 1; }, 15);
  ASSERT_TRUE(pending.ok()) << pending.error().message;
  auto running = live::wait_job(
      c, id.value(), [](const SlurmJob& j) { return !j.pending(); }, 30);
  ASSERT_TRUE(running.ok()) << running.error().message;
  ASSERT_TRUE(running.value().running())
      << "state " << running.value().state << " reason " << running.value().reason;
  ASSERT_TRUE(live::wait_until(
      [&] {
        return live::read_text(dir + "/log.txt").find("start restart=1") != std::string::npos;
      },
      10));
  EXPECT_EQ(live::read_text(dir + "/log.txt"),
            "start restart=0\ncheckpoint restart=0\nstart restart=1\n");
  ASSERT_TRUE(c.cancel(id.value()).ok());
}

}  // namespace
}  // namespace frugal
