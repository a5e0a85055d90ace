#pragma once
// The pack experiment: policies × seeds on one workload, and the statistics over seeds.
//
// Seeded runs (replay == nullptr): seeds are first_seed, first_seed + 1, ...
//   go_rand (default): seed k replays the artifact's own draws with Go's math/rand
//     (go_rand_draws: shuffle, up-sampling, node prefixes; exact for the artifact's seeds), and
//     the random policy continues that Go stream;
//   otherwise: tune_workload(pods, capacity, tune, k) and random_node_ranks(n, k) on
//     std::mt19937_64 (the same experiment statistically).
// Replay (replay != nullptr): one run with the given arrival order and node ranks (the
// artifact's seed-42 draws), reported as seed first_seed.
// The typical pods always come from the original pod list; one FragMemo is shared by all runs.
// frugal scores with its own measure, F over frugal_typical_pods (same list, the popularity cut
// applied per narrow gpu_spec domain; identical to the typical pods when no pod has a gpu_spec);
// every policy's recorded fragmentation uses the typical pods.
// With config.bound, each run also gets the limit of packing its arrivals (bound.h): a
// LevelSeries whose alloc at each level is discretised from bound_per_event exactly as a
// policy's allocation is, so per run and level it is ≥ every policy's alloc (and so are the
// medians over runs). A solver failure leaves `bound` empty and says why in bound_error.
// config.migrations_per_100 (M, ≥ 0) is frugal's migration budget (migration.h); the other
// policies never migrate. M = 0 is frugal without migrations, bit for bit.
// With config.frugal_rules = kAuto and frugal among the policies, frugal's rules are chosen for the
// workload first (calibrate.h, result.rules): where its own rules lose to FGD's on the
// calibration streams, frugal's runs place with FGD's rules (and, with M > 0, migrate under
// them); with M = 0 they are then FGD's runs, bit for bit.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pack/bound.h"
#include "pack/calibrate.h"
#include "pack/discretise.h"
#include "pack/pack_model.h"
#include "pack/policy.h"
#include "pack/typical_pods.h"

namespace frugal::pack {

struct Replay {
  std::vector<Pod> order;
  std::vector<int> rank;
};

struct ExperimentConfig {
  std::vector<Policy> policies;
  int seeds = 10;
  uint64_t first_seed = 42;
  double tune = 1.3;
  const Replay* replay = nullptr;
  bool go_rand = true;
  bool bound = true;
  BoundOptions bound_options;  // opt-in integer (Cbc) bound, see bound.h
  double migrations_per_100 = 0;
  // frugal's rules: chosen per workload (kAuto, calibrate.h), or forced (no calibration).
  enum class Rules { kAuto, kOwn, kFgd };
  Rules frugal_rules = Rules::kAuto;
  int calibration_streams = kCalibrationStreams;
  // The repack bound (opt-in): per run, policy and level of kRepackLevels, at the level's last
  // arrival, AllocBound::max_alloc_milli with keep = the pods the policy has placed by then:
  // what any rearrangement of them (unlimited migrations), with any of the pods it failed
  // added, could allocate. Its gap to the policy is what migrations could still win from the
  // policy's state; its gap to the bound is what only another choice of placed pods could.
  bool repack = false;
};

inline constexpr std::array<int, 4> kRepackLevels = {100, 110, 120, 130};

struct PolicyRuns {
  Policy policy;
  std::vector<LevelSeries> seeds;   // one per run, in seed order
  std::vector<int64_t> failed;      // failed pods per run
  std::vector<int64_t> migrations;  // migrations per run
  // With config.repack, one per run: alloc (% of capacity, round2) set at the levels of
  // kRepackLevels the run reaches; `repack_policy` the policy's own alloc at the same arrivals
  // (not the level's mean), so that the two compare arrival for arrival.
  std::vector<LevelSeries> repack;
  std::vector<LevelSeries> repack_policy;
};

struct ExperimentResult {
  TypicalPods typical;
  std::vector<PolicyRuns> runs;    // in config.policies order
  size_t pods_per_run = 0;         // arrivals in the first run
  double seconds = 0;              // wall time of all fills
  std::vector<LevelSeries> bound;  // one per run (alloc only), empty without config.bound
  std::string bound_error;         // why `bound` is empty despite config.bound
  double bound_seconds = 0;        // wall time of the bound's LP solves
  double repack_seconds = 0;       // wall time of the repack bound's LP solves
  std::string repack_error;        // why the repack series are empty despite config.repack
  RuleChoice rules;                // frugal's rules (streams = 0: not calibrated, own rules)
};

ExperimentResult run_experiment(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& pods,
                                const ExperimentConfig& config);

// Statistics of one metric at one level over the runs that have it. median is pandas'
// (mean of the two middle values for an even count); stdev is the sample stdev (0 for n < 2).
struct LevelStats {
  int n = 0;
  double median = 0, mean = 0, stdev = 0;
};
enum class Metric { kAlloc, kFrag, kRatio, kMigrations };
LevelStats level_stats(const PolicyRuns& runs, Metric metric, int level);
LevelStats level_stats(const std::vector<LevelSeries>& runs, Metric metric, int level);

}  // namespace frugal::pack
