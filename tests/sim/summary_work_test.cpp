// The summary's per-tier figures, completed work, JCT floor and horizon (sim/summary.h), on
// schedules worked out by hand. Durations are A100 seconds (test_gpus: A100 speed 1, V100
// 0.5 for training).

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "sim/summary.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::fraction;
using testing::job;
using testing::kA100;
using testing::kV100;
using testing::node;
using testing::run_sim;

JobSpec tiered(JobSpec j, Tier t) {
  j.tier = t;
  return j;
}

// One 8-GPU A100 node under fifo: j0 (core, 6 GPUs) 0→100; j1 (general, 4 GPUs, arrives 1)
// cannot fit beside it: 100→200; j2 (important, 2 GPUs, 10 s, arrives 2) is behind j1:
// 100→110.
std::vector<JobSpec> three_tiers() {
  return {tiered(job("j0", 0, 6, 100), Tier::kCore), tiered(job("j1", 1, 4, 100), Tier::kGeneral),
          tiered(job("j2", 2, 2, 10), Tier::kImportant)};
}

TEST(SummaryWork, SplitsJctAndWaitByTier) {
  const Summary s = summarize(run_sim(three_tiers(), make_homogeneous_cluster(8, kA100), "fifo"));
  const TierSummary& core = s.by_tier[static_cast<size_t>(Tier::kCore)];
  const TierSummary& important = s.by_tier[static_cast<size_t>(Tier::kImportant)];
  const TierSummary& general = s.by_tier[static_cast<size_t>(Tier::kGeneral)];
  EXPECT_EQ(core.completed, 1u);
  EXPECT_DOUBLE_EQ(core.jct_s.mean, 100);
  EXPECT_DOUBLE_EQ(core.wait_s.p99, 0);
  EXPECT_EQ(general.completed, 1u);
  EXPECT_DOUBLE_EQ(general.jct_s.mean, 199);
  EXPECT_DOUBLE_EQ(general.wait_s.mean, 99);
  EXPECT_EQ(important.completed, 1u);
  EXPECT_DOUBLE_EQ(important.jct_s.mean, 108);
  EXPECT_DOUBLE_EQ(important.wait_s.p99, 98);
}

TEST(SummaryWork, CountsCompletedWorkInReferenceGpuHoursAndTheJctFloor) {
  std::vector<JobSpec> jobs = three_tiers();
  jobs.push_back(fraction("f", 3, 250, 100));  // a quarter card: 25 GPU-seconds of work
  const Summary s = summarize(run_sim(jobs, make_homogeneous_cluster(8, kA100), "fifo"));
  EXPECT_DOUBLE_EQ(s.work_ref_gpu_hours, (600.0 + 400 + 20 + 25) / 3600);
  // Every job alone on an A100: 100, 100, 10 and 100 s.
  EXPECT_DOUBLE_EQ(s.jct_floor_s, (100.0 + 100 + 10 + 100) / 4);
  EXPECT_DOUBLE_EQ(s.horizon.horizon_s, 0);  // none asked for
  EXPECT_EQ(s.horizon.completed, 0u);
}

TEST(SummaryWork, TheFloorUsesTheFastestModelAJobMayUse) {
  // An A100 node and a V100 node; j may only use the V100 (half speed for training).
  JobSpec j = job("j", 0, 1, 100);
  j.allowed_models = {kV100};
  const ClusterSpec c = cluster_of({node("a", kA100, 1), node("v", kV100, 1)});
  const SimResult r = run_sim({j, job("k", 0, 1, 100)}, c, "fifo");
  ASSERT_DOUBLE_EQ(r.jobs[0].fastest_run_s, 200);
  EXPECT_DOUBLE_EQ(r.jobs[1].fastest_run_s, 100);
  EXPECT_DOUBLE_EQ(summarize(r).jct_floor_s, 150);
}

TEST(SummaryWork, HorizonCountsOnlyWhatFinishedByItAndTheAllocationInIt) {
  SimOptions o;
  o.work_horizon_s = 150;
  const Summary s =
      summarize(run_sim(three_tiers(), make_homogeneous_cluster(8, kA100), "fifo", o));
  EXPECT_DOUBLE_EQ(s.horizon.horizon_s, 150);
  EXPECT_EQ(s.horizon.completed, 2u);  // j0 at 100 and j2 at 110; j1 ends at 200
  EXPECT_DOUBLE_EQ(s.horizon.work_ref_gpu_hours, (600.0 + 20) / 3600);
  // 0→100: 6 GPUs; 100→110: 4 + 2; 110→150: 4. Over 8 GPUs × 150 s.
  EXPECT_DOUBLE_EQ(s.horizon.allocated_share, (600.0 + 60 + 160) / 1200);
  EXPECT_DOUBLE_EQ(s.horizon.busy_share, s.horizon.allocated_share);  // nothing stopped
  // The whole run is unchanged by the horizon.
  EXPECT_DOUBLE_EQ(s.work_ref_gpu_hours, (600.0 + 400 + 20) / 3600);
}

// Busy is allocated minus what made no lasting progress: a checkpoint-first preemption's
// grace (the victim holds its GPUs while it writes) and work lost to a stop.
TEST(SummaryWork, BusyShareLeavesOutTheCheckpointGraceAndLostWork) {
  // One 8-GPU A100 node under tiers: g (general, 8 GPUs, 1000 s) runs from 0; c (core, 8
  // GPUs, 100 s) arrives at 250 and preempts it: g is signalled at 250 and stops at 310
  // (60 s grace, its work saved), c runs 310→410, g resumes at 410.
  JobSpec g = tiered(job("g", 0, 8, 1000), Tier::kGeneral);
  const JobSpec c = tiered(job("c", 250, 8, 100), Tier::kCore);
  SimOptions o;
  o.work_horizon_s = 500;
  const SimResult r = run_sim({g, c}, make_homogeneous_cluster(8, kA100), "tiers", o);
  ASSERT_DOUBLE_EQ(r.jobs[1].first_start, 310);
  const Summary s = summarize(r);
  EXPECT_DOUBLE_EQ(s.horizon.allocated_share, 1.0);  // the node is held throughout
  // Busy over 0→500: 0→250 (g), 310→410 (c), 410→500 (g): 440 s of 8 GPUs.
  EXPECT_DOUBLE_EQ(s.horizon.busy_share, 440.0 / 500);
  EXPECT_DOUBLE_EQ(r.busy_gpu_seconds, 8.0 * (1000 + 100));  // every second of work kept

  // Under las, g drops below c once it has attained 3,600 GPU-seconds (at 450 s) and is
  // stopped without a checkpoint: with one every 100 s it keeps 400 of its 450 s (50 s × 8
  // GPUs lost and redone); c runs 450→550, g resumes at 550 and ends at 1,150.
  g.checkpoint_interval = 100;
  const SimResult lost = run_sim({g, c}, make_homogeneous_cluster(8, kA100), "las", o);
  ASSERT_DOUBLE_EQ(lost.jobs[1].first_start, 450);
  EXPECT_DOUBLE_EQ(lost.jobs[0].rework_gpu_seconds, 8.0 * 50);
  EXPECT_DOUBLE_EQ(lost.jobs[0].finish, 1150);
  const Summary ls = summarize(lost);
  EXPECT_DOUBLE_EQ(ls.horizon.allocated_share, 1.0);
  EXPECT_DOUBLE_EQ(ls.horizon.busy_share, (400.0 + 50) / 500);  // 0→400 (g), 450→500 (c)
  EXPECT_DOUBLE_EQ(lost.busy_gpu_seconds, 8.0 * (1000 + 100));
}

}  // namespace
}  // namespace frugal
