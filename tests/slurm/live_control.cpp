// Control of real Slurm jobs: submit held, place (node list, GRES type, shards), begin times.
#include "slurm/live_util.h"

namespace frugal {
namespace {

// Submitted held without a GPU type; placed on gpu3 with gpu:h100:2 and released: it runs
// there with two GPUs (CUDA_VISIBLE_DEVICES set by Slurm).
TEST(SlurmLive, HeldJobReleasedOntoChosenNodeWithGresType) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("place");
  SlurmSubmit s;
  s.name = "frugal-place";
  s.workdir = dir;
  s.output = dir + "/out-%j.txt";
  s.script = live::script("echo node=$SLURMD_NODENAME cvd=$CUDA_VISIBLE_DEVICES > " + dir +
                          "/env.txt\nsleep 2");
  auto id = c.submit(s);
  ASSERT_TRUE(id.ok()) << id.error().message;
  auto held = c.job(id.value());
  ASSERT_TRUE(held.ok()) << held.error().message;
  EXPECT_TRUE(held.value().pending());
  EXPECT_TRUE(held.value().held()) << held.value().reason;
  SlurmUpdate u;
  u.nodelist = "gpu3";
  u.features = "h100";
  u.gres = "gpu:h100:2";
  ASSERT_TRUE(c.update(id.value(), u).ok());
  ASSERT_TRUE(c.release(id.value()).ok());
  auto running = live::wait_job(
      c, id.value(), [](const SlurmJob& j) { return j.running(); }, 15);
  ASSERT_TRUE(running.ok()) << running.error().message;
  EXPECT_EQ(running.value().nodes, std::vector<std::string>{"gpu3"});
  ASSERT_EQ(running.value().gres_alloc.size(), 1u);
  EXPECT_EQ(running.value().gres_alloc[0].type, "h100");
  EXPECT_EQ(running.value().gres_alloc[0].count, 2);
  EXPECT_TRUE(live::wait_until([&] { return !live::read_text(dir + "/env.txt").empty(); }, 10));
  EXPECT_EQ(live::read_text(dir + "/env.txt"), "node=gpu3 cvd=0,1\n");
}

// A fractional job: 3 of 8 shards of one H100 on gpu4; a second shard job shares the card.
TEST(SlurmLive, ShardJobsShareOneGpu) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("shard");
  std::vector<int64_t> ids;
  for (int k : {3, 4}) {
    SlurmSubmit s;
    s.name = "frugal-shard";
    s.workdir = dir;
    s.script = live::script("echo cvd=$CUDA_VISIBLE_DEVICES shards=$SLURM_SHARDS_ON_NODE > " + dir +
                            "/env-" + std::to_string(k) + ".txt\nsleep 3");
    auto id = c.submit(s);
    ASSERT_TRUE(id.ok()) << id.error().message;
    SlurmUpdate u;
    u.nodelist = "gpu4";
    u.gres = "shard:h100:" + std::to_string(k);
    ASSERT_TRUE(c.update(id.value(), u).ok());
    ASSERT_TRUE(c.release(id.value()).ok());
    ids.push_back(id.value());
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    auto r = live::wait_job(
        c, ids[i], [](const SlurmJob& j) { return j.running(); }, 15);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().gres_alloc.size(), 1u);
    EXPECT_EQ(r.value().gres_alloc[0].name, "shard");
    EXPECT_EQ(r.value().gres_alloc[0].count, i == 0 ? 3 : 4);
    EXPECT_EQ(r.value().gres_alloc[0].indices, std::vector<int>{0});  // both on GPU 0
  }
  // Both jobs run at once; each writes its file when its script starts: wait for both.
  EXPECT_TRUE(live::wait_until(
      [&] {
        return !live::read_text(dir + "/env-3.txt").empty() &&
               !live::read_text(dir + "/env-4.txt").empty();
      },
      10));
  EXPECT_EQ(live::read_text(dir + "/env-3.txt"), "cvd=0 shards=3\n");
  EXPECT_EQ(live::read_text(dir + "/env-4.txt"), "cvd=0 shards=4\n");
}

// Deferral: a begin time in the future keeps a released job pending (reason BeginTime,
// visible as its eligible time); moving the begin time to now lets it run.
TEST(SlurmLive, BeginTimeDefersAndReleases) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  const std::string dir = live::job_dir("begin");
  SlurmSubmit s;
  s.name = "frugal-deferred";
  s.workdir = dir;
  s.script = live::script("sleep 1");
  auto id = c.submit(s);
  ASSERT_TRUE(id.ok()) << id.error().message;
  const int64_t begin = live::now_unix() + 2 * 3600;
  SlurmUpdate u;
  u.nodelist = "gpu1";
  u.gres = "gpu:a100:1";
  u.begin_unix = begin;
  ASSERT_TRUE(c.update(id.value(), u).ok());
  ASSERT_TRUE(c.release(id.value()).ok());
  auto waiting = live::wait_job(
      c, id.value(), [](const SlurmJob& j) { return j.reason == "BeginTime"; }, 10);
  ASSERT_TRUE(waiting.ok()) << waiting.error().message;
  EXPECT_TRUE(waiting.value().pending());
  EXPECT_EQ(waiting.value().eligible_time, begin);
  SlurmUpdate now;
  now.begin_now = true;
  ASSERT_TRUE(c.update(id.value(), now).ok());
  auto ran = live::wait_job(
      c, id.value(), [](const SlurmJob& j) { return j.running() || j.state == "COMPLETED"; }, 15);
  ASSERT_TRUE(ran.ok()) << ran.error().message;
  EXPECT_LE(ran.value().start_time, live::now_unix());
}

// A job submitted with a far begin time (the alternative to holding) is pending on it.
TEST(SlurmLive, SubmitWithFarBeginTime) {
  FRUGAL_REQUIRE_SLURM();
  SlurmClient c(live::config());
  SlurmSubmit s;
  s.name = "frugal-far";
  s.workdir = live::job_dir("far");
  s.script = live::script("sleep 1");
  s.hold = false;
  s.begin_unix = live::now_unix() + 24 * 3600;
  auto id = c.submit(s);
  ASSERT_TRUE(id.ok()) << id.error().message;
  auto j = live::wait_job(
      c, id.value(), [](const SlurmJob& x) { return x.reason == "BeginTime"; }, 10);
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ(j.value().eligible_time, s.begin_unix);
  ASSERT_TRUE(c.cancel(id.value()).ok());
  auto gone = live::wait_job(
      c, id.value(), [](const SlurmJob& x) { return x.state == "CANCELLED"; }, 10);
  EXPECT_TRUE(gone.ok()) << gone.error().message;
}

}  // namespace
}  // namespace frugal
