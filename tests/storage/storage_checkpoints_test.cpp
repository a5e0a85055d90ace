// Checkpoints on disk (src/storage/storage_manager.h): the lifecycle carried out over a run of
// 50 checkpoints, restore of a preempted job from the cold tier.
#include <gtest/gtest.h>

#include <map>

#include "storage_fixture.h"

namespace frugal::storage::testing {
namespace {

class StorageCheckpoints : public StorageTest {};

constexpr double kSeriesT0 = 1.7e9;

TEST_F(StorageCheckpoints, LifecycleOverFiftyCheckpointsDoesExactlyWhatThePolicySays) {
  config.default_policy = LifecyclePolicy{3, 5000, 20000, 30, 0};
  auto m = open_manager();
  ASSERT_TRUE(m);
  std::map<int, std::string> content;
  for (int i = 1; i <= 50; ++i) {
    const std::string dir =
        make_checkpoint("llm", fmt::format("step-{:06}", i * 100), true, kSeriesT0 + i * 1000.0);
    content[i] = read_file(dir + "/optim/state.bin");
  }
  make_checkpoint("llm", "step-005100", false);  // being written
  ASSERT_TRUE(m->scan_checkpoints("llm", "nlp", job_dir("llm"), 1000).ok());
  // Age of checkpoint i: (51 - i) * 1000 + 500 s. retain_count 30 keeps the newest 30 (21..50):
  // 1..20 deleted; the newest 3 (48..50) stay hot; cold after 20000 s: 21..31; warm after
  // 5000 s: 32..46; 47 (4500 s) stays hot.
  const double now = kSeriesT0 + 51000 + 500;
  const auto can_restart = [](const std::string&) { return true; };
  auto report = m->run_lifecycle(now, can_restart);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report.value().errors.empty()) << report.value().errors.front();
  int removed = 0, moved = 0;
  for (const ExecutedAction& a : report.value().done)
    (a.kind == ActionKind::remove ? removed : moved)++;
  EXPECT_EQ(removed, 20);
  EXPECT_EQ(moved, 11 + 15);
  for (int i = 1; i <= 50; ++i) {
    SCOPED_TRACE(i);
    const std::string name = fmt::format("step-{:06}", i * 100);
    const std::string hot = job_dir("llm") + "/" + name;
    const std::string warm = root + "/warm/checkpoints/llm/" + name;
    const std::string cold = root + "/cold/checkpoints/llm/" + name;
    const std::string expect = i <= 20 ? "" : i <= 31 ? cold : i <= 46 ? warm : hot;
    for (const std::string& p : {hot, warm, cold}) {
      EXPECT_EQ(path_exists(p), p == expect) << p;
    }
    if (!expect.empty()) {
      EXPECT_EQ(read_file(expect + "/optim/state.bin"), content[i]);
    }
  }
  EXPECT_TRUE(path_exists(job_dir("llm") + "/step-005100/model.bin"));  // untouched
  const auto recs = m->checkpoints("llm");
  ASSERT_EQ(recs.size(), 31u);  // 30 kept + the incomplete one
  for (const CheckpointRecord& c : recs) EXPECT_TRUE(path_exists(c.path)) << c.path;
  // Carried out: the same policy at the same time has nothing left to do.
  auto again = m->run_lifecycle(now, can_restart);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again.value().done.empty());
  EXPECT_TRUE(temporaries(root).empty());
}

TEST_F(StorageCheckpoints, PreemptedJobResumesFromACheckpointMovedToCold) {
  auto m = open_manager();
  ASSERT_TRUE(m);
  make_checkpoint("train", "step-100", true, kSeriesT0);
  const std::string newest = make_checkpoint("train", "step-200", true, kSeriesT0 + 10);
  make_checkpoint("train", "step-300", false);  // preempted while writing this one
  const std::string model = read_file(newest + "/model.bin");
  auto recs = m->scan_checkpoints("train", "t", job_dir("train"), 1000);
  ASSERT_TRUE(recs.ok());
  ASSERT_EQ(recs.value().size(), 3u);
  ASSERT_TRUE(m->move_checkpoint(recs.value()[1].id, Tier::warm, 2000).ok());
  ASSERT_TRUE(m->move_checkpoint(recs.value()[1].id, Tier::cold, 2000).ok());
  EXPECT_FALSE(path_exists(newest));
  EXPECT_EQ(m->checkpoints("train")[1].tier, Tier::cold);

  auto r = m->restore_newest("train", 3000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().name, "step-200");
  EXPECT_EQ(r.value().from, Tier::cold);
  EXPECT_EQ(r.value().path, newest);
  EXPECT_GT(r.value().staging_s, 0.0);
  EXPECT_EQ(read_file(newest + "/model.bin"), model);
  EXPECT_FALSE(path_exists(root + "/cold/checkpoints/train/step-200"));
  EXPECT_EQ(m->checkpoints("train")[1].tier, Tier::hot);
  EXPECT_FALSE(m->restore_newest("no-such-job", 3000).ok());
}

TEST_F(StorageCheckpoints, NewestCompleteOfARestartableJobIsNeverDeleted) {
  config.default_policy = LifecyclePolicy{0, -1, -1, 0, 100};  // delete after 100 s
  auto m = open_manager();
  ASSERT_TRUE(m);
  make_checkpoint("j", "step-1", true, kSeriesT0);
  make_checkpoint("j", "step-2", true, kSeriesT0 + 1);
  ASSERT_TRUE(m->scan_checkpoints("j", "t", job_dir("j"), 1000).ok());
  auto dry = m->gc(true, kSeriesT0 + 1000, [](const std::string&) { return true; });
  ASSERT_TRUE(dry.ok());
  ASSERT_EQ(dry.value().size(), 1u);
  EXPECT_EQ(dry.value()[0].path, job_dir("j") + "/step-1");
  EXPECT_TRUE(path_exists(job_dir("j") + "/step-1"));
  auto report = m->run_lifecycle(kSeriesT0 + 1000, [](const std::string&) { return true; });
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(path_exists(job_dir("j") + "/step-1"));
  EXPECT_TRUE(path_exists(job_dir("j") + "/step-2"));
}

}  // namespace
}  // namespace frugal::storage::testing
