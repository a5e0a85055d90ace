#pragma once
// A running job's measured use over a sliding window, as the engine takes it
// (framework/telemetry.h MeasuredUse, Engine::observe_job): the utilisation and memory
// samples the service folds from telemetry (Scheduler::note_measured). Samples less than
// half a sampling period apart share a bucket, so memory is bounded by span / period
// whatever the rate of reports. No clock: every sample carries its time.

#include <deque>
#include <optional>

#include "framework/telemetry.h"

namespace frugal {

class UseWindow {
 public:
  struct Rules {
    double span_s = 300;    // the longest window kept
    double period_s = 5;    // a sample describes the period before its time
    double max_gap_s = 60;  // a longer silence between samples starts the window afresh
  };

  // One sample at `at` (any time unit, the same for every call): utilisation 0..1 and the
  // share of card memory used (< 0 unknown). A sample older than the newest is ignored.
  void add(const Rules& rules, double at, double utilization, double memory_frac);
  void clear() { buckets_.clear(); }
  bool empty() const { return buckets_.empty(); }
  // The kept samples summarised: `at` the newest's time; `window` from the oldest sample's
  // period start to the newest (at most span_s); mean (by sample), peak and newest
  // utilisation; the peak memory share (-1 when no sample knew it). Nothing when empty.
  std::optional<MeasuredUse> summary(const Rules& rules) const;

 private:
  struct Bucket {
    double at = 0;     // its newest sample
    double first = 0;  // its oldest sample
    double sum = 0;
    int n = 0;
    double peak = -1;
    double latest = -1;
    double memory = -1;
  };
  std::deque<Bucket> buckets_;
};

}  // namespace frugal
