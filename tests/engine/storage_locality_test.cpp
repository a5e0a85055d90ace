// Dataset locality and prefetch (policy/dataset_locality.h, policy/dataset_prefetch.h) through
// the engine's residency events (Engine::dataset_resident and siblings).

#include <gtest/gtest.h>

#include "../common/test_util.h"
#include "../cost/cost_test_util.h"
#include "engine/engine.h"

namespace frugal {
namespace {

using testing::job;
using testing::kA100;
using testing::test_gpus;

// k whole GPUs on node n, from GPU 0.
Placement on_node(NodeId n, int k) {
  Placement p;
  p.model = kA100;
  for (int16_t g = 0; g < k; ++g) p.slots.push_back(Slot{n, g, kMilliPerGpu});
  return p;
}

// The node job j started on in `ds`; -1 when it did not start.
int64_t started_on(const std::vector<Decision>& ds, JobIdx j) {
  for (const Decision& d : ds)
    if (d.kind == Decision::Kind::kStart && d.job == j) return d.placement.slots.front().node;
  return -1;
}

// Four 8-GPU A100 nodes (no prices: staging is weighed in GPU time alone) under bestfit with
// the datasets feature; fillers adopted on nodes 0 and 2 leave `free0` and `free2` GPUs free.
struct Rig {
  Engine e{make_homogeneous_cluster(32, kA100, 8), test_gpus(),
           testing::profile("bestfit+datasets"), EngineOptions{kA100}};
  JobSpec f0 = job("f0", 0, 1, 1e6), f2 = job("f2", 0, 1, 1e6);
  Rig(int free0, int free2) {
    f0.gpus = 8 - free0;
    f2.gpus = 8 - free2;
    EXPECT_TRUE(e.adopt(0, &f0, on_node(0, f0.gpus), 0, 0).ok());
    if (f2.gpus > 0) {
      EXPECT_TRUE(e.adopt(1, &f2, on_node(2, f2.gpus), 0, 0).ok());
    }
    // Nodes 1 and 3 are busy too, so bestfit's choice is between 0 and 2.
    EXPECT_TRUE(e.adopt(2, &busy1, on_node(1, 8), 0, 0).ok());
    EXPECT_TRUE(e.adopt(3, &busy3, on_node(3, 8), 0, 0).ok());
  }
  JobSpec busy1 = job("b1", 0, 8, 1e6), busy3 = job("b3", 0, 8, 1e6);
};

JobSpec with_dataset(int gpus, std::string name) {
  JobSpec s = job("x", 0, gpus, 3600);
  s.datasets = {std::move(name)};
  return s;
}

TEST(StorageLocality, EqualFitPrefersTheNodeHoldingTheData) {
  Rig r(4, 4);  // bestfit alone takes node 0 (same fit, lower id)
  r.e.dataset_resident(2, "imagenet@1", 150);
  const JobSpec x = with_dataset(4, "imagenet@1");
  r.e.submit(4, &x, 0);
  EXPECT_EQ(started_on(r.e.schedule(0), 4), 2);
  EXPECT_EQ(r.e.check_invariants(), "");
}

TEST(StorageLocality, ALargeDatasetOutweighsASlightlyWorseFit) {
  // Node 2 leaves one more GPU free than node 0 (worse by 1 → 1 GPU-hour); staging 2000 GB at
  // the default 1 GB/s on 4 GPUs is 2.2 GPU-hours: node 2 wins.
  Rig r(4, 5);
  r.e.dataset_resident(2, "corpus@7", 2000);
  const JobSpec x = with_dataset(4, "corpus@7");
  r.e.submit(4, &x, 0);
  EXPECT_EQ(started_on(r.e.schedule(0), 4), 2);
}

TEST(StorageLocality, AMuchWorseFitKeepsTheProfilesChoice) {
  // Node 2 is empty (8 free) against node 0's exact 4: worse by 4 → 4 GPU-hours (fit_gpu_h 1).
  // 4 GPUs × staging seconds ÷ 3600 must exceed 4: more than 3600 GB at 1 GB/s.
  for (const auto& [gb, want] : {std::pair{100.0, 0}, {3500.0, 0}, {3700.0, 2}}) {
    Rig r(4, 8);
    r.e.dataset_resident(2, "big@1", gb);
    const JobSpec x = with_dataset(4, "big@1");
    r.e.submit(4, &x, 0);
    EXPECT_EQ(started_on(r.e.schedule(0), 4), want) << gb << " GB";
  }
}

TEST(StorageLocality, ANodeWithoutRoomIsNotChosen) {
  Rig r(4, 2);  // node 2 holds the data but has 2 free GPUs
  r.e.dataset_resident(2, "d@1", 5000);
  const JobSpec x = with_dataset(4, "d@1");
  r.e.submit(4, &x, 0);
  EXPECT_EQ(started_on(r.e.schedule(0), 4), 0);
}

TEST(StorageLocality, EvictedDataNoLongerDrawsTheJob) {
  Rig r(4, 4);
  r.e.dataset_resident(2, "d@1", 500);
  EXPECT_TRUE(r.e.dataset_evicted(2, "d@1"));
  EXPECT_FALSE(r.e.dataset_evicted(2, "d@1"));
  const JobSpec x = with_dataset(4, "d@1");
  r.e.submit(4, &x, 0);
  EXPECT_EQ(started_on(r.e.schedule(0), 4), 0);
}

TEST(StorageLocality, SlowStagingOnANodeCountsAgainstIt) {
  // Node 0 holds half the data, node 2 the other half; node 0 stages at 0.1 GB/s, so the part
  // it lacks takes 10× longer there: node 2 wins at an equal fit.
  Rig r(4, 4);
  r.e.dataset_resident(0, "a@1", 100);
  r.e.dataset_resident(2, "b@1", 100);
  r.e.staging_bandwidth(0, 0.1);
  JobSpec x = with_dataset(4, "a@1");
  x.datasets.push_back("b@1");
  r.e.submit(4, &x, 0);
  EXPECT_EQ(started_on(r.e.schedule(0), 4), 2);
}

TEST(StorageLocality, TheTracesSingleDatasetCountsToo) {
  Rig r(4, 4);
  r.e.dataset_resident(2, "wiki", 0);  // size unknown: the job's dataset_gb gives it
  JobSpec x = job("x", 0, 4, 3600);
  x.dataset = "wiki";
  x.dataset_gb = 300;
  r.e.submit(4, &x, 0);
  EXPECT_EQ(started_on(r.e.schedule(0), 4), 2);
}

TEST(StorageLocality, NoDatasetsNoChange) {
  // Same rig, data resident, but the job declares none: bestfit's node 0, as without the
  // feature; and a job with datasets but no residency anywhere likewise.
  for (const char* policy : {"bestfit", "bestfit+datasets"}) {
    Engine e(make_homogeneous_cluster(32, kA100, 8), test_gpus(), testing::profile(policy),
             EngineOptions{kA100});
    JobSpec f = job("f", 0, 4, 1e6), plain = job("p", 0, 4, 3600);
    JobSpec unknown = with_dataset(4, "nowhere@1");
    ASSERT_TRUE(e.adopt(0, &f, on_node(2, 4), 0, 0).ok());
    e.dataset_resident(1, "d@1", 1000);
    e.submit(1, &plain, 0);
    e.submit(2, &unknown, 0);
    const auto& ds = e.schedule(0);
    EXPECT_EQ(started_on(ds, 1), 2) << policy;
    EXPECT_EQ(started_on(ds, 2), 0) << policy;
    for (const Decision& d : ds) EXPECT_NE(d.kind, Decision::Kind::kPrefetch);
  }
}

// One 1-GPU node whose energy is cheapest in hour 4 (tests/cost/timeshift_test.cpp): a
// deferrable job waits for it under time-shifting.
Engine deferring_engine() {
  ClusterSpec c = testing::hand_cluster(Capacity::kReserved, {testing::gpu_node("n", kA100, 1)});
  c.regions[0].electricity_usd_per_mwh = HourlySeries(testing::kEpoch, {100, 80, 20, 50, 10, 90});
  c.regions[0].offpeak = HourlySeries();
  c.regions[0].pue = 1.0;
  return Engine(c, testing::priced_gpus(), testing::profile("timeshift+datasets"),
                EngineOptions{kA100});
}

const Decision* find_decision(const std::vector<Decision>& ds, Decision::Kind k) {
  for (const Decision& d : ds)
    if (d.kind == k) return &d;
  return nullptr;
}

TEST(StoragePrefetch, StagingEndsBeforeTheDeferredStart) {
  Engine e = deferring_engine();
  e.dataset_size("corpus@3", 600);
  e.staging_bandwidth(0, 0.5);  // 1200 s of staging; lead 1200 + 300 margin
  JobSpec d = job("d", 0, 1, 1800);
  d.deferrable = true;
  d.deadline = 6 * 3600;
  d.datasets = {"corpus@3"};
  e.submit(0, &d, 0);
  const auto& first = e.schedule(0);
  const Decision* defer = find_decision(first, Decision::Kind::kDefer);
  ASSERT_NE(defer, nullptr);
  const Seconds start = defer->until;
  ASSERT_GT(start, 1500);
  EXPECT_EQ(find_decision(first, Decision::Kind::kPrefetch), nullptr);  // not yet: too early
  const Seconds wake = e.next_wakeup();
  EXPECT_DOUBLE_EQ(wake, start - 1500);
  const auto& ds = e.schedule(wake);
  const Decision* pf = find_decision(ds, Decision::Kind::kPrefetch);
  ASSERT_NE(pf, nullptr);
  EXPECT_EQ(pf->job, 0u);
  EXPECT_DOUBLE_EQ(pf->until, start);
  ASSERT_EQ(pf->placement.nodes(), std::vector<NodeId>{0});
  EXPECT_LE(wake + 600 / 0.5, start);  // staging finishes before the planned start
  EXPECT_NE(pf->reason.find("corpus@3"), std::string::npos);
  EXPECT_TRUE(e.datasets()->holds(0, "corpus@3"));
  EXPECT_EQ(find_decision(e.schedule(start - 1), Decision::Kind::kPrefetch), nullptr);  // once
  EXPECT_EQ(started_on(e.schedule(start), 0), 0);
  EXPECT_EQ(e.check_invariants(), "");
}

TEST(StoragePrefetch, AShortDeferralPrefetchesAtOnce) {
  Engine e = deferring_engine();
  JobSpec d = job("d", 0, 1, 1800);
  d.deferrable = true;
  d.deadline = 6 * 3600;
  d.dataset = "wiki";
  d.dataset_gb = 1e5;  // 1e5 s at 1 GB/s: longer than any deferral here
  e.submit(0, &d, 0);
  const auto& ds = e.schedule(0);
  ASSERT_NE(find_decision(ds, Decision::Kind::kDefer), nullptr);
  EXPECT_NE(find_decision(ds, Decision::Kind::kPrefetch), nullptr);
}

TEST(StoragePrefetch, NothingForADeferredJobWithoutDatasets) {
  Engine e = deferring_engine();
  JobSpec d = job("d", 0, 1, 1800);
  d.deferrable = true;
  d.deadline = 6 * 3600;
  e.submit(0, &d, 0);
  const auto& ds = e.schedule(0);
  const Decision* defer = find_decision(ds, Decision::Kind::kDefer);
  ASSERT_NE(defer, nullptr);
  EXPECT_DOUBLE_EQ(e.next_wakeup(), defer->until);
  EXPECT_EQ(find_decision(ds, Decision::Kind::kPrefetch), nullptr);
}

TEST(StoragePrefetch, TheSimulatorCarriesDeferredJobsWithDatasets) {
  // Time-shifting with locality and prefetch over deferrable jobs sharing a trace dataset:
  // the simulator ignores the kPrefetch hints, state stays consistent, and the jobs start
  // when they would without datasets (here the prefetched node is where they go anyway).
  ClusterSpec c = testing::hand_cluster(
      Capacity::kReserved, {testing::gpu_node("a", kA100, 4), testing::gpu_node("b", kA100, 4)});
  c.regions[0].electricity_usd_per_mwh = HourlySeries(testing::kEpoch, {100, 80, 20, 50, 10, 90});
  c.regions[0].offpeak = HourlySeries();
  c.regions[0].pue = 1.0;
  std::vector<JobSpec> plain, with;
  for (int i = 0; i < 6; ++i) {
    JobSpec s = job("j" + std::to_string(i), 600.0 * i, 1 + i % 3, 1800);
    s.deferrable = true;
    s.deadline = 6 * 3600;
    plain.push_back(s);
    s.dataset = "shared";
    s.dataset_gb = 500;
    with.push_back(s);
  }
  const SimResult a = testing::run_priced(plain, c, "timeshift");
  const SimResult b = testing::run_priced(with, c, "timeshift+datasets");
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  bool deferred = false;
  for (size_t i = 0; i < b.jobs.size(); ++i) {
    EXPECT_FALSE(b.jobs[i].unschedulable) << i;
    EXPECT_GE(b.jobs[i].first_start, 0) << i;
    EXPECT_DOUBLE_EQ(a.jobs[i].first_start, b.jobs[i].first_start) << i;
    deferred |= b.jobs[i].first_start >= 3 * 3600;
  }
  EXPECT_TRUE(deferred);
}

TEST(StorageLocality, ResidencyBookkeeping) {
  DatasetResidency d;
  JobSpec s = job("x", 0, 1, 1);
  s.datasets = {"a@1", "b@1", "a@1"};
  s.dataset = "b@1";
  EXPECT_EQ(DatasetResidency::job_datasets(s), (std::vector<std::string>{"a@1", "b@1"}));
  d.resident(3, "a@1", 10);
  d.resident(1, "b@1", 5);
  d.resident(3, "b@1", 0);  // size stands
  EXPECT_DOUBLE_EQ(d.job_gb(s), 15);
  EXPECT_DOUBLE_EQ(d.held_gb(3, s), 15);
  EXPECT_DOUBLE_EQ(d.held_gb(1, s), 5);
  EXPECT_EQ(d.nodes_holding(s), (std::vector<NodeId>{1, 3}));
  d.clear_node(3);
  EXPECT_EQ(d.nodes_holding(s), (std::vector<NodeId>{1}));
  d.set_bandwidth(1, 2);
  EXPECT_DOUBLE_EQ(d.bandwidth(1, 1), 2);
  EXPECT_DOUBLE_EQ(d.bandwidth(0, 1), 1);
  EXPECT_DOUBLE_EQ(d.min_bandwidth(1), 1);
}

}  // namespace
}  // namespace frugal
