#pragma once
// Online runtime prediction from completed jobs (issue "Time, priority and elasticity",
// item 6). No I/O, no clock: a driver feeds it each completion (`observe`) and asks it for
// a new job's duration at arrival (`predict`). Backfill and the other estimate users
// (JobSpec::runtime_estimate) then see predictions instead of the trace's true duration.
//
// Keys, from most to least specific; the first with at least `min_samples` observations
// answers:
//   1. (team, name, gpus)   2. (team, name)   3. (name)
//   4. (team, class, gpus)  5. (class, gpus)  6. global
// Levels 1-3 are skipped for a job without a name. A trace without teams, names or classes
// (ITP raw: job_id, submit, duration, num_gpu) gives every job team "default" and class
// pretrain, so the chain degrades to (gpus) → global there.
//
// The prediction is the `quantile` of a key's recent observations, interpolated linearly
// between order statistics (numpy's default). The default is the median (0.5): it
// minimises absolute error. For backfill safety a higher quantile (e.g. 0.75) makes
// under-estimates rarer — an under-estimated job runs past the shadow time and delays the
// reserved head job — at the price of fewer backfilled jobs.
//
// Memory is bounded: each key keeps its last `window` observations in a ring (64 by
// default), so predictions follow drift and a key costs O(window). The global key is a ring
// of the same size (the recent global quantile). When even the global ring is empty, the
// prediction is `default_s` (1 h). Deterministic: the same observations in the same order
// give the same predictions.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/job.h"

namespace frugal {

struct PredictorOptions {
  double quantile = 0.5;     // 0..1; 0.5 = median, 0.75 = safer for backfill
  size_t min_samples = 3;    // observations a key needs before it is trusted (global: 1)
  size_t window = 64;        // observations kept per key (ring)
  Seconds default_s = 3600;  // prediction when nothing at all has been observed
};

// Which key answered a prediction, most specific first.
enum class PredictionLevel : uint8_t {
  kTeamNameGpus,
  kTeamName,
  kName,
  kTeamClassGpus,
  kClassGpus,
  kGlobal,
  kDefault,
};
inline constexpr int kPredictionLevels = 7;
const char* to_string(PredictionLevel level);

struct Prediction {
  Seconds seconds = 0;
  PredictionLevel level = PredictionLevel::kDefault;
  size_t samples = 0;  // observations behind it (in the window)
};

class RuntimePredictor {
 public:
  explicit RuntimePredictor(PredictorOptions options = {});

  // Records that a job like `job` ran `duration` seconds (reference-model seconds).
  void observe(const JobSpec& job, Seconds duration);
  // Predicts `job`'s duration from what has been observed so far.
  Prediction predict(const JobSpec& job) const;

  const PredictorOptions& options() const { return options_; }
  size_t keys() const { return rings_.size(); }  // distinct keys seen (incl. global)
  // Observations currently held for the key of `level` for `job` (0 when none).
  size_t held(const JobSpec& job, PredictionLevel level) const;

 private:
  struct Ring {
    std::vector<double> values;  // up to window; `next` is the oldest once full
    size_t next = 0;
  };
  // The keys of `job`, most specific first; "" for a level that does not apply.
  std::vector<std::string> keys_of(const JobSpec& job) const;
  double quantile_of(const Ring& r) const;

  PredictorOptions options_;
  std::unordered_map<std::string, Ring> rings_;
};

// Error metrics of predictions against true durations.
//   mae_s                 mean |predicted − actual|
//   median_abs_pct_error  median of |predicted − actual| / actual × 100 (jobs with actual > 0)
//   within_2x_share       share with actual / 2 ≤ predicted ≤ 2 × actual
//   underestimate_share   share with predicted < actual
struct PredictionReport {
  size_t jobs = 0;
  double mae_s = 0;
  double median_abs_pct_error = 0;  // 0 when no job had a positive duration (pct_jobs == 0)
  size_t pct_jobs = 0;              // jobs with a positive duration: the median's sample
  double within_2x_share = 0;
  double underestimate_share = 0;
  std::vector<size_t> by_level = std::vector<size_t>(kPredictionLevels, 0);
};

class PredictionErrors {
 public:
  void add(Seconds predicted, Seconds actual, PredictionLevel level);
  PredictionReport report() const;

 private:
  size_t n_ = 0, within_ = 0, under_ = 0;
  double abs_sum_ = 0;
  std::vector<double> pct_;
  std::vector<size_t> by_level_ = std::vector<size_t>(kPredictionLevels, 0);
};

// Offline replay with no look-ahead: jobs in submit order (stable); a job completes at
// submit + duration (as if it never waited), and a job's prediction uses only jobs that
// completed at or before its arrival (completions at the same instant first, as in the
// simulator). `predictions`, when given, receives each job's prediction in trace order.
PredictionReport replay_predictions(const std::vector<JobSpec>& jobs,
                                    const PredictorOptions& options,
                                    std::vector<Prediction>* predictions = nullptr);

}  // namespace frugal
