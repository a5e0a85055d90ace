// `frugal whatif` (sim/whatif.h): the recorded profile replays what actually happened, and
// every run is summarised per tier. Cluster A100, durations A100 seconds (a job runs exactly
// `duration`).

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "io/whatif_report.h"
#include "sim/whatif.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;
using testing::run_sim;
using testing::test_gpus;

ClusterSpec gpus(int64_t n) {
  return make_homogeneous_cluster(n, kA100, 8);
}

JobSpec recorded(std::string id, Seconds submit, int gpus, Seconds duration, Seconds start) {
  JobSpec j = job(std::move(id), submit, gpus, duration);
  j.recorded_start = start;
  j.recorded_end = start + duration;
  return j;
}

SimOptions options() {
  SimOptions o;
  o.reference_model = kA100;
  o.check_invariants = true;
  return o;
}

TEST(Whatif, RecordedProfileStartsJobsWhenTheyReallyStarted) {
  // Room for all at once, yet the record says they waited (another scheduler's choices):
  // the replay waits as they did, not as a policy would.
  const std::vector<JobSpec> jobs = {recorded("a", 0, 2, 100, 30), recorded("b", 10, 2, 50, 200),
                                     recorded("c", 20, 4, 10, 20)};
  const SimResult r = run_sim(jobs, gpus(8), kRecordedPolicy);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start, 30);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 200);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 20);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish, 250);
  const ReplayFidelity f = replay_fidelity(r, jobs);
  EXPECT_EQ(f.jobs, 3u);
  EXPECT_DOUBLE_EQ(f.max_start_error_s, 0);
  EXPECT_DOUBLE_EQ(f.recorded_makespan_s, 250);
  EXPECT_DOUBLE_EQ(f.replay_makespan_s, 250);
}

TEST(Whatif, RecordedStartThatDoesNotFitWaitsWithoutHoldingUpOthers) {
  // One 8-GPU node: a holds 6 until 100. b (4 GPUs) is recorded at 50 — it cannot fit then in
  // the replay — and starts at 100; c (2 GPUs) recorded at 60 still starts at 60.
  const std::vector<JobSpec> jobs = {recorded("a", 0, 6, 100, 0), recorded("b", 40, 4, 10, 50),
                                     recorded("c", 45, 2, 10, 60)};
  const SimResult r = run_sim(jobs, gpus(8), kRecordedPolicy);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 100);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 60);
  const ReplayFidelity f = replay_fidelity(r, jobs);
  EXPECT_DOUBLE_EQ(f.max_start_error_s, 50);
  EXPECT_DOUBLE_EQ(f.start_error_s.p50, 0);
}

TEST(Whatif, JobsWithoutARecordedStartAreScheduledFromSubmission) {
  // A mixed trace: "x" has no record and takes the node's free GPUs as soon as it arrives.
  const std::vector<JobSpec> jobs = {recorded("a", 0, 4, 100, 10), job("x", 5, 4, 20)};
  const SimResult r = run_sim(jobs, gpus(8), kRecordedPolicy);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start, 10);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 5);
  EXPECT_EQ(replay_fidelity(r, jobs).jobs, 1u);
}

TEST(Whatif, ActualRowFirstAndPricedByTheSameLedger) {
  const std::vector<JobSpec> jobs = {recorded("a", 0, 8, 100, 0), recorded("b", 0, 8, 100, 500)};
  auto rep = run_whatif(jobs, gpus(8), test_gpus(), {"fifo", "sjf"}, options());
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  const WhatifReport& w = rep.value();
  EXPECT_EQ(w.recorded, 2u);
  ASSERT_EQ(w.runs.size(), 3u);
  EXPECT_TRUE(w.runs[0].actual);
  EXPECT_EQ(w.runs[0].summary.policy, "recorded");
  EXPECT_EQ(w.runs[1].summary.policy, "fifo");
  EXPECT_FALSE(w.runs[1].actual);
  // The record left the node idle 400 s; fifo runs b at 100. Same GPU-hours of work: the
  // idle stretch is the ledger's unattributed capacity (8 GPUs × 400 s).
  EXPECT_DOUBLE_EQ(w.runs[0].summary.makespan_s, 600);
  EXPECT_DOUBLE_EQ(w.runs[1].summary.makespan_s, 200);
  EXPECT_DOUBLE_EQ(w.runs[0].summary.wait_s.mean, 250);
  EXPECT_DOUBLE_EQ(w.runs[1].summary.wait_s.mean, 50);
  EXPECT_NEAR(w.runs[0].summary.ledger.unattributed.gpu_hours, 8 * 400 / 3600.0, 1e-9);
  EXPECT_NEAR(w.runs[1].summary.ledger.unattributed.gpu_hours, 0, 1e-9);
  EXPECT_NEAR(w.runs[0].summary.ledger.total.gpu_hours,
              w.runs[1].summary.ledger.total.gpu_hours -
                  w.runs[1].summary.ledger.unattributed.gpu_hours +
                  w.runs[0].summary.ledger.unattributed.gpu_hours,
              1e-9);
  const nlohmann::json j = to_json(w);
  EXPECT_EQ(j["recorded_starts"], 2);
  EXPECT_TRUE(j["runs"][0]["actual"].get<bool>());
  EXPECT_TRUE(j["runs"][0].contains("fidelity"));
  EXPECT_FALSE(j["runs"][1].contains("fidelity"));
  EXPECT_DOUBLE_EQ(j["runs"][1]["vs_actual"]["wait_mean_s"].get<double>(), -200);
  EXPECT_DOUBLE_EQ(j["runs"][0]["vs_actual"]["cost_usd"].get<double>(), 0);
  const std::string table = whatif_table(w);
  EXPECT_NE(table.find("recorded replay: 2 jobs"), std::string::npos) << table;
  EXPECT_NE(table.find("fifo"), std::string::npos);
}

TEST(Whatif, TraceWithoutRecordedStartsHasNoActualRow) {
  const std::vector<JobSpec> jobs = {job("a", 0, 8, 100), job("b", 0, 8, 100)};
  auto rep = run_whatif(jobs, gpus(8), test_gpus(), {"fifo", "backfill"}, options());
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep.value().runs.size(), 2u);
  for (const WhatifRun& r : rep.value().runs) EXPECT_FALSE(r.actual);
  EXPECT_FALSE(to_json(rep.value())["runs"][0].contains("vs_actual"));
  EXPECT_NE(whatif_table(rep.value()).find("no actual row"), std::string::npos);
}

TEST(Whatif, BadPoliciesAreNamed) {
  const std::vector<JobSpec> jobs = {recorded("a", 0, 1, 10, 0)};
  auto bad = run_whatif(jobs, gpus(8), test_gpus(), {"fifo", "nosuch"}, options());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("nosuch"), std::string::npos) << bad.error().message;
  auto twice = run_whatif(jobs, gpus(8), test_gpus(), {"recorded"}, options());
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("actual row"), std::string::npos);
}

TEST(Whatif, TierFiguresSplitWaitAndDeadlineMisses) {
  // One 8-GPU node, fifo: core c runs 0→100, general g waits for it (100→150) and misses its
  // deadline at 120; important i (never fits: 9 GPUs) is rejected, a miss too.
  std::vector<JobSpec> jobs = {job("c", 0, 8, 100), job("g", 0, 8, 50), job("i", 0, 9, 10)};
  jobs[0].tier = Tier::kCore;
  jobs[1].tier = Tier::kGeneral;
  jobs[1].deadline = 120;
  jobs[2].tier = Tier::kImportant;
  jobs[2].deadline = 1000;
  const SimResult r = run_sim(jobs, gpus(8), "fifo");
  const auto t = tier_figures(r, jobs);
  EXPECT_EQ(t[0].jobs, 1u);
  EXPECT_EQ(t[0].completed, 1u);
  EXPECT_DOUBLE_EQ(t[0].wait_s.mean, 0);
  EXPECT_DOUBLE_EQ(t[0].jct_s.mean, 100);
  EXPECT_EQ(t[0].deadline_misses, 0);
  const auto& general = t[static_cast<size_t>(Tier::kGeneral)];
  EXPECT_EQ(general.completed, 1u);
  EXPECT_DOUBLE_EQ(general.wait_s.mean, 100);
  EXPECT_DOUBLE_EQ(general.jct_s.p99, 150);
  EXPECT_EQ(general.deadline_misses, 1);
  const auto& important = t[static_cast<size_t>(Tier::kImportant)];
  EXPECT_EQ(important.jobs, 1u);
  EXPECT_EQ(important.completed, 0u);
  EXPECT_EQ(important.deadline_misses, 1);
}

}  // namespace
}  // namespace frugal
