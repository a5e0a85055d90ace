// The baseline profiles on small scenarios whose schedules are worked out by hand.
// Every cluster is A100 and durations are A100 seconds, so a job runs exactly `duration`.

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "sim/summary.h"

namespace frugal {
namespace {

using testing::cluster_of;
using testing::fraction;
using testing::jct;
using testing::job;
using testing::kA100;
using testing::kT4;
using testing::kV100;
using testing::node;
using testing::run_sim;

ClusterSpec gpus(int64_t n) {
  return make_homogeneous_cluster(n, kA100, 8);
}

void expect_run(const JobOutcome& o, Seconds first_start, Seconds finish, int preemptions = 0) {
  EXPECT_DOUBLE_EQ(o.first_start, first_start);
  EXPECT_DOUBLE_EQ(o.finish, finish);
  EXPECT_EQ(o.preemptions, preemptions);
  EXPECT_FALSE(o.unschedulable) << o.reason;
}

// One 8-GPU node. j0 holds 6 GPUs until 100; j1 (4 GPUs) cannot fit beside it; j2 (2 GPUs,
// 10 s) could, but is behind j1 in the queue.
std::vector<JobSpec> head_of_line() {
  return {job("j0", 0, 6, 100), job("j1", 1, 4, 100), job("j2", 2, 2, 10)};
}

TEST(Baselines, FifoBlocksAtTheHeadOfTheLine) {
  // fifo: j2 waits for j1. t=100: j0 ends; j1 (4) and j2 (2) both start.
  //   j0: 0→100 (JCT 100); j1: 100→200 (JCT 199); j2: 100→110 (JCT 108).
  const SimResult r = run_sim(head_of_line(), gpus(8), "fifo");
  expect_run(r.jobs[0], 0, 100);
  expect_run(r.jobs[1], 100, 200);
  expect_run(r.jobs[2], 100, 110);
  EXPECT_DOUBLE_EQ(jct(r.jobs[1]), 199);
  EXPECT_DOUBLE_EQ(jct(r.jobs[2]), 108);
  EXPECT_EQ(r.preemptions, 0);
  const Summary s = summarize(r);
  EXPECT_EQ(s.completed, 3u);
  EXPECT_DOUBLE_EQ(s.jct_s.mean, (100.0 + 199 + 108) / 3);
  EXPECT_DOUBLE_EQ(s.wait_s.mean, (0.0 + 99 + 98) / 3);
  EXPECT_DOUBLE_EQ(s.makespan_s, 200);
  // 600 + 400 + 20 GPU-seconds over 8 GPUs × 200 s.
  EXPECT_DOUBLE_EQ(r.allocated_gpu_seconds, 1020);
  EXPECT_DOUBLE_EQ(s.gpu_utilization, 1020.0 / 1600);
}

TEST(Baselines, SummarySplitsTheJctOfDeferrableJobs) {
  // As above with j1 deferrable (fifo ignores the flag): JCTs 100, 199, 108.
  std::vector<JobSpec> jobs = head_of_line();
  jobs[1].deferrable = true;
  const Summary s = summarize(run_sim(jobs, gpus(8), "fifo"));
  EXPECT_DOUBLE_EQ(s.jct_deferrable_s.mean, 199);
  EXPECT_DOUBLE_EQ(s.jct_other_s.mean, (100.0 + 108) / 2);
}

TEST(Baselines, FifoStaysStrictEvenWhenTheHeadIsHuge) {
  // j1 needs the whole node: j2, j3 (1 GPU each) still wait behind it.
  //   j0 0→100; j1 100→150; j2, j3 150→160.
  const SimResult r =
      run_sim({job("j0", 0, 4, 100), job("j1", 1, 8, 50), job("j2", 2, 1, 10), job("j3", 3, 1, 10)},
              gpus(8), "fifo");
  expect_run(r.jobs[0], 0, 100);
  expect_run(r.jobs[1], 100, 150);
  expect_run(r.jobs[2], 150, 160);
  expect_run(r.jobs[3], 150, 160);
}

TEST(Baselines, GreedyProfilesSkipTheBlockedJob) {
  // bestfit/firstfit/sjf pass over j1: j2 starts at 2 beside j0 and ends at 12.
  //   j0 0→100; j1 100→200; j2 2→12.
  for (const char* policy : {"bestfit", "firstfit", "sjf"}) {
    SCOPED_TRACE(policy);
    const SimResult r = run_sim(head_of_line(), gpus(8), policy);
    expect_run(r.jobs[0], 0, 100);
    expect_run(r.jobs[1], 100, 200);
    expect_run(r.jobs[2], 2, 12);
  }
}

TEST(Baselines, BackfillRunsAShortJobAheadOfABlockedBigOne) {
  // j1 (8 GPUs) is blocked; its reservation is at t=100 (j0's end), with no spare GPUs.
  // j2 (2 GPUs, 50 s) ends at 52 ≤ 100: it backfills.
  //   j0 0→100; j1 100→200 (not delayed); j2 2→52 (JCT 50).
  const std::vector<JobSpec> jobs = {job("j0", 0, 6, 100), job("j1", 1, 8, 100),
                                     job("j2", 2, 2, 50)};
  const SimResult r = run_sim(jobs, gpus(8), "backfill");
  expect_run(r.jobs[0], 0, 100);
  expect_run(r.jobs[1], 100, 200);
  expect_run(r.jobs[2], 2, 52);
  // fifo on the same jobs: j2 runs after j1, 200→250 (JCT 248).
  const SimResult f = run_sim(jobs, gpus(8), "fifo");
  expect_run(f.jobs[1], 100, 200);
  expect_run(f.jobs[2], 200, 250);
  EXPECT_LT(summarize(r).wait_s.mean, summarize(f).wait_s.mean);
}

TEST(Baselines, BackfillDoesNotRunAJobThatWouldDelayTheReservation) {
  // As above but j2 runs 150 s: it would end at 152 > 100 on GPUs j1 needs, so it waits.
  // t=100: j1 starts (8 GPUs); j2 is then blocked with its reservation at 200.
  //   j0 0→100; j1 100→200; j2 200→350 (JCT 348).
  const std::vector<JobSpec> jobs = {job("j0", 0, 6, 100), job("j1", 1, 8, 100),
                                     job("j2", 2, 2, 150)};
  const SimResult r = run_sim(jobs, gpus(8), "backfill");
  expect_run(r.jobs[0], 0, 100);
  expect_run(r.jobs[1], 100, 200);
  expect_run(r.jobs[2], 200, 350);
  // Greedy skipping would have started j2 at 2 and delayed j1 to 152.
  const SimResult g = run_sim(jobs, gpus(8), "bestfit");
  expect_run(g.jobs[1], 152, 252);
  expect_run(g.jobs[2], 2, 152);
}

TEST(Baselines, BackfillMayUseGpusTheReservationLeavesSpare) {
  // j1 (6 GPUs) is blocked; at t=100 (j0's end) 8 GPUs are free, 2 more than j1 needs.
  // j2 (2 GPUs, 500 s) runs past 100 but only on those 2 spare GPUs: it starts at 2.
  // j3 (2 GPUs, 500 s) at t=3: now no spare is left (2 free + j0's 4 = exactly j1's 6),
  // so it waits. t=100: j1 starts; j3 is blocked with its reservation at 200 (j1's end).
  //   j0 0→100; j1 100→200; j2 2→502; j3 200→700 (JCT 697).
  const SimResult r = run_sim(
      {job("j0", 0, 4, 100), job("j1", 1, 6, 100), job("j2", 2, 2, 500), job("j3", 3, 2, 500)},
      gpus(8), "backfill");
  expect_run(r.jobs[0], 0, 100);
  expect_run(r.jobs[1], 100, 200);
  expect_run(r.jobs[2], 2, 502);
  expect_run(r.jobs[3], 200, 700);
}

TEST(Baselines, BackfillUsesTheEstimateNotTheTrueDuration) {
  // j2 truly runs 150 s but is estimated at 50 s: it ends by its estimate at 52 ≤ 100, so it
  // backfills — and then, as in real EASY, it delays j1 to its true end (152).
  //   j0 0→100; j2 2→152; j1 152→252.
  std::vector<JobSpec> jobs = {job("j0", 0, 6, 100), job("j1", 1, 8, 100), job("j2", 2, 2, 150)};
  jobs[2].estimate = 50;
  const SimResult r = run_sim(jobs, gpus(8), "backfill");
  expect_run(r.jobs[0], 0, 100);
  expect_run(r.jobs[1], 152, 252);
  expect_run(r.jobs[2], 2, 152);
}

// sjf orders by the runtime estimate when the trace gives one (the true duration is an
// oracle only without it): j1 is estimated at 50 s, so it runs before j2 although it takes
// 300 s.
TEST(Baselines, SjfOrdersByTheEstimateWhenThereIsOne) {
  std::vector<JobSpec> jobs = {job("j0", 0, 8, 100), job("j1", 1, 8, 300), job("j2", 2, 8, 100)};
  jobs[1].estimate = 50;
  const SimResult r = run_sim(jobs, gpus(8), "sjf");
  expect_run(r.jobs[1], 100, 400);
  expect_run(r.jobs[2], 400, 500);
}

// EASY backfill does not reserve on GPUs a job past its estimate holds (when they free is
// unknown). a (6 GPUs) is estimated at 100 s but runs 5,000 s; b (8 GPUs) blocks at 10 with
// a reservation at a's expected end; c (2 GPUs, 1,000 s) arrives at 200, when a has overrun:
// it starts at once on the 2 free GPUs and is done long before a frees the node for b.
TEST(Baselines, EasyBackfillDoesNotReserveOnAnOverrunningJob) {
  std::vector<JobSpec> jobs = {job("a", 0, 6, 5000), job("b", 10, 8, 100), job("c", 200, 2, 1000)};
  jobs[0].estimate = 100;
  const SimResult r = run_sim(jobs, gpus(8), "backfill");
  expect_run(r.jobs[2], 200, 1200);
  expect_run(r.jobs[1], 5000, 5100);
}

TEST(Baselines, SjfRunsTheShortestQueuedJobFirst) {
  // Every job takes the whole node. j0 runs 0→100; queued at t=100: j1 (300 s), j2 (100 s),
  // j3 (200 s). sjf: j2 100→200, j3 200→400, j1 400→700. JCTs 100, 699, 198, 397.
  const std::vector<JobSpec> jobs = {job("j0", 0, 8, 100), job("j1", 1, 8, 300),
                                     job("j2", 2, 8, 100), job("j3", 3, 8, 200)};
  const SimResult r = run_sim(jobs, gpus(8), "sjf");
  expect_run(r.jobs[0], 0, 100);
  expect_run(r.jobs[1], 400, 700);
  expect_run(r.jobs[2], 100, 200);
  expect_run(r.jobs[3], 200, 400);
  EXPECT_DOUBLE_EQ(summarize(r).jct_s.mean, (100.0 + 699 + 198 + 397) / 4);
  // fifo: j1 100→400, j2 400→500, j3 500→700; mean JCT (100 + 399 + 498 + 697) / 4.
  const SimResult f = run_sim(jobs, gpus(8), "fifo");
  expect_run(f.jobs[1], 100, 400);
  expect_run(f.jobs[2], 400, 500);
  expect_run(f.jobs[3], 500, 700);
  EXPECT_DOUBLE_EQ(summarize(f).jct_s.mean, (100.0 + 399 + 498 + 697) / 4);
}

TEST(Baselines, LasPreemptsForANewJobWithLessAttainedService) {
  // j0 (8 GPUs, 1000 s) crosses 3,600 GPU-s at t=450 and drops to queue 1. j1 (8 GPUs,
  // 100 s) arrives at 500 in queue 0: j0 is preempted (500 s of work kept; checkpoint
  // interval 0 loses nothing). j1 500→600; j0 resumes at 600 with 500 s left → 1100.
  const SimResult r = run_sim({job("j0", 0, 8, 1000), job("j1", 500, 8, 100)}, gpus(8), "las");
  expect_run(r.jobs[0], 0, 1100, 1);
  expect_run(r.jobs[1], 500, 600);
  EXPECT_DOUBLE_EQ(r.jobs[0].run_time, 1000);
  EXPECT_DOUBLE_EQ(r.jobs[0].gpu_seconds, 8000);
  EXPECT_DOUBLE_EQ(r.jobs[0].rework_gpu_seconds, 0);
  EXPECT_EQ(r.preemptions, 1);
  const Summary s = summarize(r);
  EXPECT_DOUBLE_EQ(s.jct_s.mean, (1100.0 + 100) / 2);
  EXPECT_DOUBLE_EQ(s.wait_s.mean, (100.0 + 0) / 2);
  // fifo: no preemption; j1 waits until 1000.
  const SimResult f = run_sim({job("j0", 0, 8, 1000), job("j1", 500, 8, 100)}, gpus(8), "fifo");
  expect_run(f.jobs[0], 0, 1000);
  expect_run(f.jobs[1], 1000, 1100);
}

TEST(Baselines, LasDemotionLetsAWaitingJobPreempt) {
  // j1 arrives at 100 while j0 is still in queue 0 with an earlier entry: no preemption.
  // At 450 j0 is demoted (3,600 GPU-s) and j1, now ahead, preempts it.
  //   j1 450→550 (JCT 450); j0 resumes at 550 with 550 s left → 1100.
  const SimResult r = run_sim({job("j0", 0, 8, 1000), job("j1", 100, 8, 100)}, gpus(8), "las");
  expect_run(r.jobs[0], 0, 1100, 1);
  expect_run(r.jobs[1], 450, 550);
  EXPECT_DOUBLE_EQ(jct(r.jobs[1]), 450);
}

TEST(Baselines, LasKeepsRunningJobsWhenANewJobFitsBeside) {
  // Two 8-GPU nodes: j1 fits on the free node; nobody is preempted even after j0's demotion.
  const SimResult r = run_sim({job("j0", 0, 8, 1000), job("j1", 500, 8, 100)}, gpus(16), "las");
  expect_run(r.jobs[0], 0, 1000);
  expect_run(r.jobs[1], 500, 600);
  EXPECT_EQ(r.preemptions, 0);
}

TEST(Baselines, LasSecondThresholdDemotesAgain) {
  // Both jobs take the whole 8-GPU node; thresholds 3,600 and 36,000 GPU-s = 450 and 4,500 s
  // of service. Within a queue, the earlier queue entry goes first.
  //   0–450      j0 in q0; at 450 it has 3,600 GPU-s → q1 (entered 450).
  //   450–1000   j0 in q1. j1 arrives at 1000 in q0 → j0 preempted (#1), 1000 s done.
  //   1000–1450  j1 in q0; at 1450 → q1 (entered 1450), behind j0 (450) → j1 preempted (#1),
  //              450 s done.
  //   1450–4950  j0 runs until 4,500 s of service (36,000 GPU-s) → q2 (entered 4950); j1 in
  //              q1 preempts it (#2). j0 has 1500 s left.
  //   4950–9000  j1 runs until 4,500 s of service → q2 (entered 9000), behind j0 (4950) →
  //              j1 preempted (#2), 500 s left.
  //   9000–10500 j0 finishes its 1500 s.  10500–11000 j1 finishes its 500 s.
  const SimResult r = run_sim({job("j0", 0, 8, 6000), job("j1", 1000, 8, 5000)}, gpus(8), "las");
  expect_run(r.jobs[0], 0, 10500, 2);
  expect_run(r.jobs[1], 1000, 11000, 2);
  EXPECT_DOUBLE_EQ(r.jobs[0].run_time, 6000);
  EXPECT_DOUBLE_EQ(r.jobs[1].run_time, 5000);
  EXPECT_EQ(r.preemptions, 4);
}

TEST(Baselines, FirstFitAndBestFitDifferOnFragmentation) {
  // Two 8-GPU nodes. j0 (4) → node 0; j1 (7) → node 1 (only it has 7 free).
  // j2 (1 GPU, 500 s) at t=2: bestfit puts it on node 1 (1 free), firstfit on node 0.
  // j3 (4 GPUs, 100 s) at t=3: bestfit finds node 0's 4 free cards → 3→103 (JCT 100);
  // firstfit left 3 + 1 free: j3 waits for j2 to end at 502 → 502→602 (JCT 599).
  const std::vector<JobSpec> jobs = {job("j0", 0, 4, 1000), job("j1", 1, 7, 1000),
                                     job("j2", 2, 1, 500), job("j3", 3, 4, 100)};
  const SimResult b = run_sim(jobs, gpus(16), "bestfit");
  expect_run(b.jobs[2], 2, 502);
  expect_run(b.jobs[3], 3, 103);
  const SimResult f = run_sim(jobs, gpus(16), "firstfit");
  expect_run(f.jobs[2], 2, 502);
  expect_run(f.jobs[3], 502, 602);
  EXPECT_DOUBLE_EQ(jct(f.jobs[3]), 599);
  // The placer override in a policy string: backfill with firstfit placement waits too.
  const SimResult ff = run_sim(jobs, gpus(16), "backfill/firstfit");
  expect_run(ff.jobs[3], 502, 602);
}

TEST(Baselines, UnschedulableJobsEndWithAReason) {
  std::vector<JobSpec> jobs = {
      job("ok", 0, 2, 10),       job("too-big", 0, 9, 10),         job("t4-only", 0, 1, 10),
      job("no-model", 0, 1, 10), job("too-much-memory", 0, 1, 10), job("ok2", 5, 8, 10)};
  jobs[2].allowed_models = {kT4};                          // in the catalog, not in the cluster
  jobs[3].allowed_models = {static_cast<GpuModelId>(77)};  // unknown id
  jobs[4] = fraction("too-much-memory", 0, 500, 10, 90000);
  for (const std::string& policy : profile_names()) {
    SCOPED_TRACE(policy);
    const SimResult r = run_sim(jobs, gpus(8), policy);
    for (size_t i : {1u, 2u, 3u, 4u}) {
      EXPECT_TRUE(r.jobs[i].unschedulable) << jobs[i].id;
      EXPECT_FALSE(r.jobs[i].reason.empty()) << jobs[i].id;
      EXPECT_DOUBLE_EQ(r.jobs[i].finish, -1);
      EXPECT_DOUBLE_EQ(r.jobs[i].first_start, -1);
    }
    EXPECT_NE(r.jobs[1].reason.find("9 GPUs"), std::string::npos) << r.jobs[1].reason;
    EXPECT_NE(r.jobs[2].reason.find("allowed model"), std::string::npos) << r.jobs[2].reason;
    expect_run(r.jobs[0], 0, 10);
    expect_run(r.jobs[5], 10, 20);  // ok2 waits only for ok, never for the rejected jobs
    const Summary s = summarize(r);
    EXPECT_EQ(s.completed, 2u);
    EXPECT_EQ(s.unschedulable, 4u);
    EXPECT_EQ(s.completed + s.unschedulable, s.submitted);
    EXPECT_FALSE(s.first_unschedulable_reason.empty());
  }
}

TEST(Baselines, ZeroDurationJobCompletesAtOnce) {
  for (const std::string& policy : profile_names()) {
    SCOPED_TRACE(policy);
    const SimResult r =
        run_sim({job("z", 10, 1, 0), job("a", 10, 8, 5), job("z2", 20, 0, 0)}, gpus(8), policy);
    expect_run(r.jobs[0], 10, 10);
    expect_run(r.jobs[1], 10, 15);
    EXPECT_DOUBLE_EQ(r.jobs[0].run_time, 0);
    EXPECT_DOUBLE_EQ(r.jobs[0].gpu_seconds, 0);
    // A CPU-only job on a GPU-only cluster with no host limits: runs on a GPU node's host.
    expect_run(r.jobs[2], 20, 20);
  }
}

TEST(Baselines, SimultaneousArrivalsKeepTraceOrder) {
  // All at t=0 on one node; the trace is not sorted by submit time ("late" is listed first).
  //   fifo: a 0→100, b 100→150, c 150→160, late (t=5) 160→161.
  const std::vector<JobSpec> jobs = {job("late", 5, 8, 1), job("a", 0, 8, 100), job("b", 0, 8, 50),
                                     job("c", 0, 8, 10)};
  for (const char* policy : {"fifo", "backfill", "bestfit", "firstfit", "las"}) {
    SCOPED_TRACE(policy);
    const SimResult r = run_sim(jobs, gpus(8), policy);
    expect_run(r.jobs[1], 0, 100);
    if (std::string(policy) == "las") continue;  // las reorders by attained service
    expect_run(r.jobs[2], 100, 150);
    expect_run(r.jobs[3], 150, 160);
    expect_run(r.jobs[0], 160, 161);
  }
  // sjf with equal durations breaks ties by submit time, then trace order.
  const SimResult s =
      run_sim({job("x", 0, 8, 10), job("y", 0, 8, 10), job("z", 0, 8, 10)}, gpus(8), "sjf");
  expect_run(s.jobs[0], 0, 10);
  expect_run(s.jobs[1], 10, 20);
  expect_run(s.jobs[2], 20, 30);
}

TEST(Baselines, CheckpointIntervalLosesWorkSinceTheLastCheckpoint) {
  // 16 GPUs (two nodes). j0 (16 GPUs, 1000 s, checkpoints every 100 s) reaches 3,600 GPU-s
  // at 225 s; j1 (16 GPUs, 100 s) arrives at 250 and preempts it. j0 ran 250 s: it keeps
  // 200 s of work and redoes 50 s × 16 GPUs = 800 GPU-s. j1 250→350; j0 resumes at 350
  // with 800 s left → 1150. j0 ran 250 + 800 = 1050 s in all.
  std::vector<JobSpec> jobs = {job("j0", 0, 16, 1000), job("j1", 250, 16, 100)};
  jobs[0].checkpoint_interval = 100;
  const SimResult r = run_sim(jobs, gpus(16), "las");
  expect_run(r.jobs[0], 0, 1150, 1);
  expect_run(r.jobs[1], 250, 350);
  EXPECT_DOUBLE_EQ(r.jobs[0].run_time, 1050);
  EXPECT_DOUBLE_EQ(r.jobs[0].gpu_seconds, 1050.0 * 16);
  EXPECT_DOUBLE_EQ(r.jobs[0].rework_gpu_seconds, 50.0 * 16);
  EXPECT_DOUBLE_EQ(summarize(r).rework_gpu_hours, 800.0 / 3600);
  EXPECT_DOUBLE_EQ(r.allocated_gpu_seconds, (1050.0 + 100) * 16);
  // Without checkpoints (interval 0) nothing is lost: 0→250, 350→1100.
  jobs[0].checkpoint_interval = 0;
  const SimResult z = run_sim(jobs, gpus(16), "las");
  expect_run(z.jobs[0], 0, 1100, 1);
  EXPECT_DOUBLE_EQ(z.jobs[0].rework_gpu_seconds, 0);
}

TEST(Baselines, SlowerModelStretchesTheRunTime) {
  // Durations are A100 seconds; V100 runs pretrain at 0.5× and eval at 0.25×.
  const ClusterSpec c = cluster_of({node("v0", kV100, 4)});
  std::vector<JobSpec> jobs = {job("train", 0, 2, 100), job("eval", 0, 2, 100)};
  jobs[1].job_class = JobClass::kEval;
  const SimResult r = run_sim(jobs, c, "fifo");
  expect_run(r.jobs[0], 0, 200);
  expect_run(r.jobs[1], 0, 400);
  EXPECT_EQ(r.jobs[0].last_model, kV100);
  // With no reference model there is no scaling at all.
  SimOptions o;
  const SimResult n = simulate(jobs, c, testing::test_gpus(), testing::profile("fifo"), o);
  expect_run(n.jobs[0], 0, 100);
  expect_run(n.jobs[1], 0, 100);
}

// A job that checkpoints every 10 h on a node failing every few minutes never finishes: the
// run stops after the failure budget with the job reported unfinished and the reason named,
// instead of running forever.
TEST(Baselines, RunStopsWhenFailuresOutrunTheWork) {
  JobSpec j = job("long", 0, 4, 36000);
  j.checkpoint_interval = 36000;
  SimOptions o;
  o.node_mtbf_hours = 0.05;
  o.max_node_failures = 200;
  const SimResult r = run_sim({j}, gpus(8), "fifo", o);
  EXPECT_EQ(r.node_failures, 200);  // the budget, not one more
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_LT(r.jobs[0].finish, 0);
  EXPECT_TRUE(r.jobs[0].unschedulable);
  EXPECT_EQ(r.jobs[0].reason, "not finished: the run stopped after too many node failures");
  EXPECT_NE(r.stopped.find("stopped after 200 node failures with 1 of 1 jobs not done"),
            std::string::npos)
      << r.stopped;
  // Without failures the same job runs its 10 h and nothing is stopped.
  const SimResult calm = run_sim({j}, gpus(8), "fifo", SimOptions{});
  EXPECT_DOUBLE_EQ(calm.jobs[0].finish, 36000);
  EXPECT_EQ(calm.stopped, "");
}

TEST(Baselines, NodeFailureStopsAndRequeuesTheJob) {
  // With failures injected, every job still completes and failures are counted.
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 20; ++i) jobs.push_back(job("j" + std::to_string(i), i * 600, 4, 3600));
  SimOptions o;
  o.node_mtbf_hours = 2;
  o.node_repair_hours = 0.5;
  o.seed = 7;
  const SimResult r = run_sim(jobs, gpus(16), "backfill", o);
  EXPECT_GT(r.node_failures, 0);
  int stopped = 0;
  for (const JobOutcome& j : r.jobs) {
    EXPECT_GE(j.finish, 0);
    stopped += j.preemptions;
    EXPECT_GE(j.run_time, 3600 - 1e-9);
  }
  EXPECT_GT(stopped, 0);
}

}  // namespace
}  // namespace frugal
