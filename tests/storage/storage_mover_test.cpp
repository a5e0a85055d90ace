// Crash-safe moves (src/storage/mover.h): kill -9 at every step, a source modified while
// moving, a tier that becomes unavailable.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <csignal>
#include <filesystem>

#include "storage_fixture.h"

namespace frugal::storage::testing {
namespace {

namespace fs = std::filesystem;

class StorageMover : public StorageTest {};

TEST_F(StorageMover, KillDashNineAtEachStepLosesNothingAndLeavesNoOrphan) {
  for (int k = 0; k < kMoveSteps; ++k) {
    const auto kill_at = static_cast<MoveStep>(k);
    SCOPED_TRACE(move_step_name(kill_at));
    const std::string job = fmt::format("job{}", k);
    const std::string src = make_checkpoint(job, "step-000100", true);
    const std::string model = read_file(src + "/model.bin");
    const std::string optim = read_file(src + "/optim/state.bin");
    int64_t id = 0;
    {
      auto m = open_manager();
      ASSERT_TRUE(m);
      auto recs = m->scan_checkpoints(job, "team", job_dir(job), 1000);
      ASSERT_TRUE(recs.ok());
      ASSERT_EQ(recs.value().size(), 1u);
      id = recs.value()[0].id;
    }
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto m = StorageManager::open(config, db_path, [kill_at](MoveStep s) {
        if (s == kill_at) ::raise(SIGKILL);
      });
      if (!m.ok()) ::_exit(3);
      (void)m.value()->move_checkpoint(id, Tier::warm, 2000);
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child was not killed at the step";
    ASSERT_EQ(WTERMSIG(status), SIGKILL);

    auto m = open_manager();  // runs recover()
    ASSERT_TRUE(m);
    const auto recs = m->checkpoints(job);
    ASSERT_EQ(recs.size(), 1u);
    const std::string where = recs[0].path;
    const std::string dst = root + "/warm/checkpoints/" + job + "/step-000100";
    // The record is true: it names where the bytes are, intact, and only there.
    EXPECT_EQ(read_file(where + "/model.bin"), model);
    EXPECT_EQ(read_file(where + "/optim/state.bin"), optim);
    EXPECT_TRUE(where == src || where == dst) << where;
    EXPECT_EQ(recs[0].tier, where == dst ? Tier::warm : Tier::hot);
    EXPECT_NE(path_exists(src), path_exists(dst)) << "exactly one copy after recovery";
    EXPECT_TRUE(temporaries(root).empty());
    // Killed after the record: the move completed; before it: rolled back.
    EXPECT_EQ(where == dst, k >= static_cast<int>(MoveStep::delete_source));
    // And the manager still works: the move can be (re)done.
    if (where == src) {
      EXPECT_TRUE(m->move_checkpoint(id, Tier::warm, 2000).ok());
    }
    EXPECT_EQ(read_file(dst + "/model.bin"), model);
  }
}

TEST_F(StorageMover, SourceModifiedWhileMovingIsAbortedAndKept) {
  const std::string src = make_checkpoint("j", "step-7", true);
  auto m = open_manager([&src](MoveStep s) {
    if (s == MoveStep::verify) write_file(src + "/model.bin", "rewritten by the job");
  });
  ASSERT_TRUE(m);
  auto recs = m->scan_checkpoints("j", "t", job_dir("j"), 1000);
  ASSERT_TRUE(recs.ok());
  const Status s = m->move_checkpoint(recs.value()[0].id, Tier::cold, 2000);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("modified while moving"), std::string::npos)
      << s.error().message;
  EXPECT_EQ(read_file(src + "/model.bin"), "rewritten by the job");
  EXPECT_FALSE(path_exists(root + "/cold/checkpoints/j/step-7"));
  EXPECT_TRUE(temporaries(root).empty());
  EXPECT_EQ(m->checkpoints("j")[0].path, src);
  EXPECT_EQ(m->checkpoints("j")[0].tier, Tier::hot);
}

TEST_F(StorageMover, ModifiedAfterTheRecordIsAbortedToo) {
  const std::string src = make_checkpoint("j", "step-8", true);
  auto m = open_manager([&src](MoveStep s) {
    if (s == MoveStep::delete_source) write_file(src + "/extra.bin", "late write");
  });
  ASSERT_TRUE(m);
  auto recs = m->scan_checkpoints("j", "t", job_dir("j"), 1000);
  ASSERT_TRUE(recs.ok());
  const Status s = m->move_checkpoint(recs.value()[0].id, Tier::warm, 2000);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(read_file(src + "/extra.bin"), "late write");
  EXPECT_FALSE(path_exists(root + "/warm/checkpoints/j/step-8"));
  EXPECT_EQ(m->checkpoints("j")[0].path, src);
}

TEST_F(StorageMover, UnavailableTierFallsBackToStandbyAndAlerts) {
  fs::create_directories(root + "/warm-standby");
  tier("warm").standby_path = root + "/warm-standby";
  make_checkpoint("j", "step-1", true);
  auto m = open_manager();
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->tier_alerts().empty());
  fs::rename(root + "/warm", root + "/warm-gone");  // the shared file system goes away
  const auto alerts = m->tier_alerts();
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_NE(alerts[0].find("warm"), std::string::npos);
  EXPECT_NE(alerts[0].find("standby"), std::string::npos);
  auto recs = m->scan_checkpoints("j", "t", job_dir("j"), 1000);
  ASSERT_TRUE(recs.ok());
  ASSERT_TRUE(m->move_checkpoint(recs.value()[0].id, Tier::warm, 2000).ok());
  EXPECT_TRUE(path_exists(root + "/warm-standby/checkpoints/j/step-1/model.bin"));
  // No standby for cold: a clear error naming the tier, the checkpoint stays.
  fs::rename(root + "/cold", root + "/cold-gone");
  const Status s = m->move_checkpoint(recs.value()[0].id, Tier::cold, 2000);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("storage tier cold unavailable"), std::string::npos)
      << s.error().message;
  EXPECT_TRUE(path_exists(m->checkpoints("j")[0].path));
}

TEST_F(StorageMover, RecoveryRemovesOrphanTemporariesAndOpensOnStandby) {
  write_file(root + "/hot/n1/datasets/d@1.frugal-tmp-stage/part.bin", "half staged");
  write_file(root + "/warm/objects/ab/abcd.frugal-tmp-obj", "half copied");
  fs::create_directories(root + "/warm-standby");
  tier("warm").standby_path = root + "/warm-standby";
  fs::rename(root + "/warm", root + "/warm-down");
  auto m = open_manager();  // warm is down at start: opens on its standby, with an alert
  ASSERT_TRUE(m);
  EXPECT_EQ(m->tier_alerts().size(), 1u);
  EXPECT_FALSE(path_exists(root + "/hot/n1/datasets/d@1.frugal-tmp-stage"));
  fs::rename(root + "/warm-down", root + "/warm");
  m.reset();  // one writer at a time
  m = open_manager();
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->tier_alerts().empty());
  EXPECT_TRUE(temporaries(root).empty());
}

TEST_F(StorageMover, ColdMoverCommandRunsAfterTheMove) {
  tier("cold").mover_command = fmt::format(
      "mkdir -p '{0}/bucket' && cp -r {{src}} '{0}/bucket/' && echo {{rel}} >'{0}/rel'", root);
  make_checkpoint("j", "step-3", true);
  auto m = open_manager();
  ASSERT_TRUE(m);
  auto recs = m->scan_checkpoints("j", "t", job_dir("j"), 1000);
  ASSERT_TRUE(recs.ok());
  ASSERT_TRUE(m->move_checkpoint(recs.value()[0].id, Tier::cold, 2000).ok());
  EXPECT_TRUE(path_exists(root + "/bucket/step-3/model.bin"));
  EXPECT_EQ(read_file(root + "/rel"), "checkpoints/j/step-3\n");
}

}  // namespace
}  // namespace frugal::storage::testing
