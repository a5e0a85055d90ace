// The local driver on real processes: spawn with environment and logs, exit codes, the
// checkpoint signal → SIGTERM → SIGKILL escalation, handles and adoption.

#include "drivers/local_driver.h"
#include "../common/file_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "drivers/local_process.h"

namespace frugal {
namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/frugal-driver-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

using testing::slurp;

// Polls until one event arrives (bounded: 20 s).
DriverEvent wait_event(LocalDriver& d) {
  for (int i = 0; i < 2000; ++i) {
    auto ev = d.poll();
    if (!ev.empty()) return ev.front();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "no event within 20 s";
  return {};
}

LaunchSpec spec(const TempDir& t, const std::string& id, const std::string& command) {
  LaunchSpec s;
  s.job_id = id;
  s.command = command;
  s.log_dir = (t.path / "logs").string();
  s.checkpoint_dir = (t.path / "ckpt" / id).string();
  return s;
}

TEST(LocalProcess, Handles) {
  EXPECT_EQ(make_handle(123, 456), "123:456");
  const auto h = parse_handle("123:456");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->first, 123);
  EXPECT_EQ(h->second, 456u);
  EXPECT_FALSE(parse_handle(""));
  EXPECT_FALSE(parse_handle("1:2"));  // pid 1 is never a job
  EXPECT_FALSE(parse_handle("12:x"));
  EXPECT_FALSE(parse_handle(":5"));
  EXPECT_TRUE(process_start_ticks(getpid()).has_value());
}

TEST(LocalDriver, RunsWithEnvironmentLogsAndExitCode) {
  TempDir t;
  LocalDriver d({"host", {}, false, (t.path / "logs").string()});
  LaunchSpec s = spec(t, "7",
                      "echo \"cvd=$CUDA_VISIBLE_DEVICES rc=$FRUGAL_RESTART_COUNT "
                      "pct=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE mem=$FRUGAL_GPU_MEMORY_LIMIT_MIB "
                      "x=$X pwd=$(pwd)\"; echo err >&2; exit 5");
  s.env = {{"X", "y"}};
  s.slots = {SlotAssignment{"host", 1, 250}};
  s.gpu_memory_limit_mib = 4096;
  s.restart_count = 2;
  s.workdir = t.path.string();
  auto h = d.start(s);
  ASSERT_TRUE(h.ok()) << h.error().message;
  const DriverEvent e = wait_event(d);
  EXPECT_EQ(e.kind, DriverEvent::Kind::kExited);
  EXPECT_EQ(e.job_id, "7");
  EXPECT_EQ(e.handle, h.value());
  EXPECT_EQ(e.exit_code, 5);
  const std::string out = slurp(t.path / "logs" / "7.out");
  EXPECT_NE(out.find("cvd=1 rc=2 pct=25 mem=4096 x=y pwd=" + t.path.string()), std::string::npos)
      << out;
  EXPECT_EQ(slurp(t.path / "logs" / "7.err"), "err\n");
  EXPECT_EQ(slurp(t.path / "logs" / "7.2.exit"), "5\n");  // per run: <job>.<run>.exit
  EXPECT_TRUE(std::filesystem::is_directory(t.path / "ckpt" / "7"));
}

TEST(LocalDriver, BadWorkdirFailsToStart) {
  TempDir t;
  LocalDriver d({"host", {}, false, (t.path / "logs").string()});
  LaunchSpec s = spec(t, "1", "true");
  s.workdir = "/nonexistent/dir";
  auto h = d.start(s);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("chdir"), std::string::npos) << h.error().message;
}

TEST(LocalDriver, StopSendsCheckpointSignalThenEscalates) {
  TempDir t;
  LocalDriver d({"host", {}, false, (t.path / "logs").string()});
  // Traps the checkpoint signal and TERM, records them, and never exits on its own.
  const std::string f = (t.path / "seen").string();
  auto h = d.start(spec(t, "2",
                        "trap 'echo usr1 >> " + f + "' USR1; trap 'echo term >> " + f +
                            "' TERM; echo ready >> " + f + "; while :; do sleep 0.05; done"));
  ASSERT_TRUE(h.ok());
  for (int i = 0; i < 400 && slurp(f).find("ready") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(d.stop(h.value(), StopPlan{SIGUSR1, 0.3, 0.3}).ok());
  ASSERT_TRUE(d.stop(h.value(), StopPlan{SIGUSR1, 0.3, 0.3}).ok());  // idempotent
  const DriverEvent e = wait_event(d);
  EXPECT_EQ(e.kind, DriverEvent::Kind::kExited);
  EXPECT_EQ(e.term_signal, SIGKILL);  // it ignored both polite requests
  const std::string seen = slurp(f);
  const size_t usr1 = seen.find("usr1"), term = seen.find("term");
  ASSERT_NE(usr1, std::string::npos) << seen;
  ASSERT_NE(term, std::string::npos) << seen;
  EXPECT_LT(usr1, term);
  EXPECT_FALSE(d.stop("1:1", StopPlan{}).ok());
}

TEST(LocalDriver, AdoptFindsALiveProcessAndReadsItsExitAfterwards) {
  TempDir t;
  const std::string logs = (t.path / "logs").string();
  std::string handle;
  {
    LocalDriver first({"host", {}, false, logs});
    auto h = first.start(spec(t, "3", "sleep 0.5; exit 6"));
    ASSERT_TRUE(h.ok());
    handle = h.value();
  }  // the first driver is gone (as after a crash); the process is still its child here,
     // so the second driver sees it as adopted (not waitable by it either way)
  LocalDriver second({"host", {}, false, logs});
  auto a = second.adopt("3", 0, handle);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a.value());
  const DriverEvent e = wait_event(second);
  EXPECT_EQ(e.kind, DriverEvent::Kind::kExited);
  EXPECT_EQ(e.exit_code, 6);
  // A recycled pid with another start time is not the job: job 4's run (a persisted handle:
  // its command began) ended unseen, leaving no exit status — reported as such, so the
  // service marks it unknown instead of running it again.
  const auto h = parse_handle(handle);
  auto b = second.adopt("4", 0, make_handle(getpid(), h->second + 12345));
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b.value());
  const DriverEvent unseen = wait_event(second);
  EXPECT_EQ(unseen.kind, DriverEvent::Kind::kEndedUnseen);
  EXPECT_EQ(unseen.job_id, "4");
  // An empty handle (a crash before the service persisted it) is resolved through the run's
  // handle file: the run completed while the service was down, so its exit is reported
  // and it is not run again.
  LocalDriver third({"host", {}, false, logs});
  auto c = third.adopt("3", 0, "");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c.value());
  EXPECT_EQ(third.adopted_handle("3"), handle);
  const DriverEvent again = wait_event(third);
  EXPECT_EQ(again.kind, DriverEvent::Kind::kExited);
  EXPECT_EQ(again.exit_code, 6);
  // Another run's files never count: run 1 of job 3 never began.
  auto d = third.adopt("3", 1, "");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d.value());
  // Nor does run 0's exit file for a run 1 handle whose process is gone: that run ended
  // unseen.
  auto e2 = third.adopt("3", 1, handle);
  ASSERT_TRUE(e2.ok());
  EXPECT_TRUE(e2.value());
  EXPECT_EQ(wait_event(third).kind, DriverEvent::Kind::kEndedUnseen);
  // A run whose gate closed before "go" never began: not adopted (the service requeues it).
  std::filesystem::create_directories(logs);
  std::ofstream(logs + "/8.0.exit") << "gate-closed\n";
  auto g = third.adopt("8", 0, handle);
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g.value());
}

// A gated spawn: the command waits for "go" on descriptor 3; when the gate closes without it
// (the service died), the command sees end-of-file and never does its work.
TEST(LocalProcess, AGateClosedWithoutGoRunsNothing) {
  TempDir t;
  const std::string out = (t.path / "out").string();
  for (const bool go : {false, true}) {
    SpawnRequest r;
    r.command = "IFS= read -r g <&3 || exit 125; echo ran";
    r.workdir = t.path.string();
    r.stdout_path = out;
    r.stderr_path = (t.path / "err").string();
    r.env = merged_environment({});
    r.gated = true;
    auto sp = spawn_process(r);
    ASSERT_TRUE(sp.ok()) << sp.error().message;
    ASSERT_GE(sp.value().gate, 0);
    if (go) {
      ASSERT_EQ(write(sp.value().gate, "go\n", 3), 3);
    }
    close(sp.value().gate);
    int status = 0;
    ASSERT_EQ(waitpid(sp.value().pid, &status, 0), sp.value().pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), go ? 0 : 125);
    EXPECT_EQ(slurp(out), go ? "ran\n" : "");
  }
}

TEST(LocalDriver, InventoryFallsBackToTheConfig) {
  TempDir t;
  LocalDriver d({"host",
                 {GpuInfo{0, "L4", "", 0}, GpuInfo{1, "L4", "", 0}},
                 false,
                 (t.path / "logs").string()});
  auto inv = d.inventory();
  ASSERT_TRUE(inv.ok());
  EXPECT_EQ(inv.value().source, "config");
  ASSERT_EQ(inv.value().nodes.size(), 1u);
  EXPECT_EQ(inv.value().nodes[0].gpus.size(), 2u);
  EXPECT_TRUE(d.telemetry().empty());
}

}  // namespace
}  // namespace frugal
