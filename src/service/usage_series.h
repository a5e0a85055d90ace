#pragma once
// The cluster's usage over time for GET /v1/usage (docs/API.md, "Usage over time"): readings
// taken by the decision loop, folded into fixed buckets of `interval_s` as time-weighted
// means (each reading holds from its time until the next one), the closed buckets kept for
// `keep_s`. Pure: no clock, no I/O; the caller stores what observe() closes. Not
// thread-safe: the decision loop owns it.

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "service/store.h"

namespace frugal {

// What the cluster looks like at one instant (Scheduler::usage_reading).
struct UsageReading {
  double provisioned_gpus = 0;  // paid for (booting included)
  double allocated_gpus = 0;    // held by jobs (fractions summed)
  double busy_gpus = -1;        // sum of measured utilisation; < 0: no GPU measured
  double queued_jobs = 0;       // waiting for GPUs (incl. deferred)
  double burn_usd_h = 0;        // the cluster's spend rate
  double idle_usd_h = 0;        // of it, provisioned GPUs nobody holds (idle + stranded)
  std::map<std::string, double> teams_usd_h;  // each team's running jobs' spend rate
};

class UsageSeries {
 public:
  // interval_s > 0; keep_s: closed buckets older than this (behind the newest reading) go.
  UsageSeries(double interval_s, double keep_s);

  double interval_s() const { return interval_s_; }
  // The open bucket's start, and whether any reading covered time in it yet.
  double open_at() const { return open_at_; }
  bool open() const { return span_s_ > 0; }
  // Buckets stored before a restart, any order; those not older than the open bucket are
  // kept (the time between the last stored bucket and the first reading stays empty).
  void restore(std::vector<UsageSampleRow> rows);
  // The reading at `now`: the previous one is held from its time to `now`; the buckets that
  // ended by `now` (and saw any reading) are closed and returned, oldest first. A `now`
  // before the previous reading's time only replaces the reading.
  std::vector<UsageSampleRow> observe(double now, UsageReading reading);
  // Closed buckets starting at or after `from`, oldest first, then the open bucket's means so
  // far when it covers any time (its span_s < interval_s).
  std::vector<UsageSampleRow> since(double from) const;
  // Drops the closed buckets that start before `before`.
  void prune(double before);

 private:
  // Adds the held reading over [t0, t1), which lies inside the open bucket.
  void accumulate(double t0, double t1);
  UsageSampleRow open_means() const;

  double interval_s_, keep_s_;
  std::deque<UsageSampleRow> closed_;
  bool have_reading_ = false;
  double reading_at_ = 0;
  UsageReading reading_;
  // The open bucket: its start and the integrals (value × seconds) of its fields.
  double open_at_ = 0, span_s_ = 0, busy_span_s_ = 0;
  UsageReading sums_;
};

}  // namespace frugal
