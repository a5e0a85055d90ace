// frugal's per-workload choice of placement rules (calibrate.h): the decision, the paired
// calibration fills, and FGD's rules making frugal FGD bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pack/calibrate.h"
#include "pack/discretise.h"
#include "pack/experiment.h"
#include "pack/fill_engine.h"
#include "pack/frugal_typical.h"
#include "pack/typical_pods.h"
#include "pack/workload.h"

namespace frugal::pack {
namespace {

// Two models, 24 cards and a CPU-only node; sharing, whole-card, gang and CPU-only pods, some
// restricted to model 1.
std::vector<NodeSpec> calibration_cluster() {
  std::vector<NodeSpec> n;
  for (int i = 0; i < 2; ++i) n.push_back(NodeSpec{"a" + std::to_string(i), 64000, 1 << 20, 8, 0});
  for (int i = 0; i < 4; ++i) n.push_back(NodeSpec{"b" + std::to_string(i), 24000, 1 << 20, 2, 1});
  n.push_back(NodeSpec{"c", 96000, 1 << 20, 0, -1});
  return n;
}

std::vector<Pod> calibration_workload() {
  std::vector<Pod> pods;
  auto add = [&](int count, int64_t cpu, int num_gpu, int32_t milli, uint64_t mask) {
    for (int i = 0; i < count; ++i)
      pods.push_back(
          Pod{"p" + std::to_string(pods.size()), cpu, 2048, num_gpu, milli, mask, mask ? "B" : ""});
  };
  add(6, 4000, 1, 250, 0);
  add(5, 6000, 1, 500, 0);
  add(4, 3000, 1, 750, 0);
  add(3, 8000, 1, 1000, 0);
  add(2, 16000, 2, 1000, 0);
  add(1, 32000, 4, 1000, 0);
  add(3, 6000, 1, 600, 2);  // model 1 only
  add(4, 12000, 0, 0, 0);   // CPU-only
  return pods;
}

RuleChoice measured(std::array<double, kCalibrationLevels.size()> gain,
                    std::array<double, kCalibrationLevels.size()> stdev, int streams) {
  RuleChoice m;
  m.gain = gain;
  m.stdev = stdev;
  m.streams = streams;
  return m;
}

TEST(PackCalibrate, KeepsOwnRulesOnlyWithoutALossAtAnyLevel) {
  EXPECT_TRUE(keep_own_rules(RuleChoice{}));  // not calibrated
  EXPECT_TRUE(keep_own_rules(measured({0, 0, 0.1, 0.1, 0.1, 0.1}, {0, 0, 0.1, 0.1, 0.1, 0.1}, 4)));
  // A loss at one level, measured exactly, is enough to fall back to FGD's rules.
  EXPECT_FALSE(keep_own_rules(measured({-0.01, 0, 2, 2, 2, 2}, {0, 0, 0, 0, 0, 0}, 30)));
  // A gain smaller than kCalibrationZ standard errors is not enough either ...
  EXPECT_FALSE(
      keep_own_rules(measured({0, 0, 0.05, 0.05, 0.05, 0.05}, {0, 0, 0.4, 0.4, 0.4, 0.4}, 16)));
  // ... a larger one is.
  EXPECT_TRUE(
      keep_own_rules(measured({0, 0, 0.15, 0.15, 0.15, 0.15}, {0, 0, 0.4, 0.4, 0.4, 0.4}, 16)));
}

// The gains are the mean and sample stdev of own − FGD over fills of the calibration streams
// (tune_workload / random_node_ranks on kCalibrationSeed + k), FGD and frugal on the same stream.
TEST(PackCalibrate, GainsArePairedFillsOfTheCalibrationStreams) {
  const std::vector<NodeSpec> nodes = calibration_cluster();
  const std::vector<Pod> pods = calibration_workload();
  const TypicalPods typical = typical_pods(pods);
  const TypicalPods own_typical = frugal_typical_pods(pods, nodes);
  FragMemo memo(typical), own_memo(own_typical);
  constexpr int kStreams = 5;
  const RuleChoice got = choose_rules(nodes, pods, 1.3, memo, own_memo, kStreams);
  EXPECT_EQ(got.streams, kStreams);
  EXPECT_EQ(got.own_rules, keep_own_rules(got));

  int64_t capacity = 0;
  for (const NodeSpec& n : nodes) capacity += int64_t{n.num_gpu} * kMilli;
  std::array<std::vector<double>, kCalibrationLevels.size()> diffs, own_alloc, fgd_alloc;
  for (int k = 0; k < kStreams; ++k) {
    const uint64_t seed = kCalibrationSeed + static_cast<uint64_t>(k);
    const auto seq = tune_workload(pods, capacity, 1.3, seed);
    const auto rank = random_node_ranks(nodes.size(), seed);
    const LevelSeries f =
        discretise(run_fill(nodes, rank, seq, Policy::kFgd, memo, PolicyRng(seed)));
    const LevelSeries o =
        discretise(run_fill(nodes, rank, seq, Policy::kFrugal, memo, PolicyRng(seed), &own_memo));
    for (size_t l = 0; l < kCalibrationLevels.size(); ++l) {
      const auto b = static_cast<size_t>(kCalibrationLevels[l]);
      diffs[l].push_back(f.has[b] && o.has[b] ? o.alloc[b] - f.alloc[b] : 0.0);
      if (f.has[b] && o.has[b]) {
        own_alloc[l].push_back(o.alloc[b]);
        fgd_alloc[l].push_back(f.alloc[b]);
      }
    }
  }
  for (size_t l = 0; l < kCalibrationLevels.size(); ++l) {
    double mean = 0, ss = 0;
    for (double d : diffs[l]) mean += d / kStreams;
    for (double d : diffs[l]) ss += (d - mean) * (d - mean);
    EXPECT_NEAR(got.gain[l], mean, 1e-9) << kCalibrationLevels[l];
    EXPECT_NEAR(got.stdev[l], std::sqrt(ss / (kStreams - 1)), 1e-9) << kCalibrationLevels[l];
    // Over the streams that reached the level (a small cluster skips some levels).
    auto median = [](std::vector<double> v) {
      if (v.empty()) return 0.0;
      std::sort(v.begin(), v.end());
      const size_t m = v.size() / 2;
      return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
    };
    EXPECT_NEAR(got.median_gain[l], median(own_alloc[l]) - median(fgd_alloc[l]), 1e-9)
        << kCalibrationLevels[l];
  }
}

// The choice depends on the workload only: runs under other seeds get the same one.
TEST(PackCalibrate, TheChoiceIsTheSameWhateverTheRunSeeds) {
  ExperimentConfig cfg;
  cfg.policies = {Policy::kFgd, Policy::kFrugal};
  cfg.seeds = 2;
  cfg.bound = false;
  cfg.calibration_streams = 4;
  const ExperimentResult a = run_experiment(calibration_cluster(), calibration_workload(), cfg);
  cfg.first_seed = 7;
  const ExperimentResult b = run_experiment(calibration_cluster(), calibration_workload(), cfg);
  EXPECT_EQ(a.rules.streams, 4);
  EXPECT_EQ(a.rules.own_rules, b.rules.own_rules);
  EXPECT_EQ(a.rules.gain, b.rules.gain);
  EXPECT_EQ(a.rules.stdev, b.rules.stdev);
  // Without frugal nothing is calibrated.
  cfg.policies = {Policy::kFgd};
  EXPECT_EQ(run_experiment(calibration_cluster(), calibration_workload(), cfg).rules.streams, 0);
}

// Under FGD's rules and without migrations, frugal's runs are FGD's, level for level.
TEST(PackCalibrate, FgdRulesMakeFrugalFgdBitForBit) {
  for (bool go : {true, false}) {
    ExperimentConfig cfg;
    cfg.policies = {Policy::kFgd, Policy::kFrugal};
    cfg.seeds = 3;
    cfg.bound = false;
    cfg.go_rand = go;
    cfg.frugal_rules = ExperimentConfig::Rules::kFgd;
    const ExperimentResult r = run_experiment(calibration_cluster(), calibration_workload(), cfg);
    EXPECT_EQ(r.rules.streams, 0);
    EXPECT_FALSE(r.rules.own_rules);
    for (size_t k = 0; k < 3; ++k) {
      const LevelSeries& f = r.runs.at(0).seeds.at(k);
      const LevelSeries& o = r.runs.at(1).seeds.at(k);
      EXPECT_EQ(f.has, o.has) << k;
      EXPECT_EQ(f.alloc, o.alloc) << k;
      EXPECT_EQ(f.frag, o.frag) << k;
      EXPECT_EQ(r.runs.at(0).failed.at(k), r.runs.at(1).failed.at(k)) << k;
    }
    // Its own rules place differently on this workload (else the check above proves nothing).
    cfg.frugal_rules = ExperimentConfig::Rules::kOwn;
    const ExperimentResult own = run_experiment(calibration_cluster(), calibration_workload(), cfg);
    bool differs = false;
    for (size_t k = 0; k < 3; ++k)
      differs |= own.runs.at(0).seeds.at(k).frag != own.runs.at(1).seeds.at(k).frag;
    EXPECT_TRUE(differs) << (go ? "go" : "std");
  }
}

TEST(PackCalibrate, NoGpuPodNoCalibration) {
  std::vector<Pod> pods{Pod{"c", 2000, 1024, 0, 0, 0, ""}};
  const TypicalPods typical = typical_pods(pods);
  FragMemo memo(typical), own(typical);
  const RuleChoice r = choose_rules(calibration_cluster(), pods, 1.3, memo, own);
  EXPECT_EQ(r.streams, 0);
  EXPECT_TRUE(r.own_rules);
}

}  // namespace
}  // namespace frugal::pack
