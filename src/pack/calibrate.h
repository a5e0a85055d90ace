#pragma once
// frugal's choice of placement rules for one workload, made before any run by simulating the
// workload itself: "prove the rule on the user's own workload, else fall back to FGD".
//
// choose_rules fills the cluster `streams` times with arrival streams of its own (tune_workload
// and random_node_ranks on std::mt19937_64 seeds kCalibrationSeed + k: the same experiment as a
// run's, statistically, and never one of a run's Go-stream draws), each once with FGD and once
// with frugal's own rules (frugal_score over frugal_typical_pods, no migrations), and measures
// the paired gain own − FGD in allocated GPU share (points) at the levels kCalibrationLevels.
// It keeps frugal's own rules only where they are not worse than FGD's at any of those levels
// with some confidence (keep_own_rules: mean − kCalibrationZ · stdev / √streams ≥ 0 at every
// level); otherwise frugal places with FGD's rules (FGD's score over the typical pods, FGD's
// card), and, without migrations, its runs are then FGD's bit for bit. A level where nothing
// fails gives 0 ± 0 and passes. Deterministic: the same nodes, pods, tune and streams give the
// same choice, whatever the runs' seeds. Cost: 2 · streams fills (≈ 6 s on openb default with
// 30 streams on one core).

#include <array>
#include <cstdint>
#include <vector>

#include "pack/frag.h"
#include "pack/pack_model.h"

namespace frugal::pack {

inline constexpr uint64_t kCalibrationSeed = 0x66727567616c0000;  // "frugal\0\0"
inline constexpr int kCalibrationStreams = 30;
inline constexpr std::array<int, 6> kCalibrationLevels = {90, 95, 100, 110, 120, 130};
inline constexpr double kCalibrationZ = 1.0;

struct RuleChoice {
  bool own_rules = true;
  int streams = 0;  // 0: not calibrated (no GPU pod, or streams = 0): own rules
  // Mean and sample stdev over the streams of the paired gain at each of kCalibrationLevels
  // (points of allocated GPU share; a level no stream reached counts 0).
  std::array<double, kCalibrationLevels.size()> gain{};
  std::array<double, kCalibrationLevels.size()> stdev{};
  // The median over the streams of own's allocation minus that of FGD's (the statistic a
  // comparison of medians over seeds reports).
  std::array<double, kCalibrationLevels.size()> median_gain{};
  double seconds = 0;  // wall time of the calibration fills
};

// The decision over measured gains: true when, at every level, gain − kCalibrationZ · stdev /
// √streams ≥ 0 (and when streams = 0).
bool keep_own_rules(const RuleChoice& measured);

// `fgd_memo` must be built over typical_pods(pods), `own_memo` over frugal_typical_pods(pods,
// nodes) (experiment.h).
RuleChoice choose_rules(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& pods,
                        double tune, FragMemo& fgd_memo, FragMemo& own_memo,
                        int streams = kCalibrationStreams);

}  // namespace frugal::pack
