#pragma once
// Simulated checkpoint storage: jobs' checkpoint series carried through the lifecycle rules
// (plan_lifecycle, lifecycle.h) as the live storage manager applies them — a sweep every
// `sweep_s` seconds that carries out the whole plan at once — giving the GB-hours each tier
// holds over time and their cost at the tiers' prices. Pure (no clock, no I/O).
//
// Model, per series: the job runs from `start` for `run_s`; a checkpoint of `gb` completes at
// start + k * interval_s for k = 1, 2, ... while that is <= start + run_s, after being written
// on the hot tier for `write_s` before (occupying its full size, incomplete, meanwhile). The
// job can restart while it runs (t < start + run_s); after that its newest checkpoint is no
// longer protected. Storage is counted from `from` (the earliest start) to `until`; moves are
// instantaneous (their transfer time and any retrieval fee are not modelled).

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "model/cluster_spec.h"
#include "model/result.h"
#include "storage/plan/lifecycle.h"

namespace frugal::storage {

struct CheckpointSeries {
  std::string job = "job";
  std::string team = "default";
  double start = 0;       // seconds
  double run_s = 0;       // running time (>= 0)
  double interval_s = 0;  // > 0
  double gb = 0;          // size of one checkpoint (> 0)
  double write_s = 0;     // writing time of one checkpoint (0 <= write_s <= interval_s)
};

// USD per GB-month (30 days) of hot, warm and cold, indexed by Tier.
struct TierPrices {
  std::array<double, 3> usd_per_gb_month{};
};

// The tiers named "hot", "warm" and "cold" among a cluster's storage tiers (empty: the
// defaults); an Error naming the first one missing.
Result<TierPrices> tier_prices(const std::vector<StorageTier>& tiers);

// A policy that never moves or deletes anything: every checkpoint stays where written.
LifecyclePolicy keep_everything_policy();

struct StorageSimOptions {
  double until = -1;     // end of the accounting (s); < 0: the last series' end
  double sweep_s = 300;  // the manager's sweep period (> 0); sweeps at multiples of it
  bool record_samples = false;
};

// What each tier holds after a change (t ascending; one sample per instant).
struct TierSample {
  double t = 0;
  std::array<double, 3> gb{};
};

struct StorageSimResult {
  std::array<double, 3> gb_hours{};     // per tier
  std::array<double, 3> usd{};          // gb_hours at the tier's price
  std::array<double, 3> gb_moved_in{};  // GB moved down into each tier
  std::array<double, 3> gb_at_end{};    // held per tier at `until`
  double peak_gb = 0;                   // most held at once, all tiers together
  int written = 0;                      // checkpoints completed
  int moves = 0;
  int deleted = 0;
  std::vector<TierSample> samples;  // with record_samples
  double total_usd() const { return usd[0] + usd[1] + usd[2]; }
  double total_gb_hours() const { return gb_hours[0] + gb_hours[1] + gb_hours[2]; }
};

// Errors: a series with interval_s <= 0, gb <= 0, run_s < 0, write_s outside
// [0, interval_s], or a non-finite number; sweep_s <= 0; until before the earliest start.
Result<StorageSimResult> simulate_checkpoint_storage(
    const std::vector<CheckpointSeries>& series,
    const std::function<const LifecyclePolicy&(const std::string& team)>& policy_for,
    const TierPrices& prices, const StorageSimOptions& options);

}  // namespace frugal::storage
