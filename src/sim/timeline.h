#pragma once
// A run's time series at a bounded resolution: what the HTML report (src/io/html_report.h)
// draws. The simulator hands it piecewise-constant values — each metric held over a span
// [t0, t1) of trace time — and it keeps, per bucket of `bucket_s()` seconds, the integral of
// each metric over the part of the bucket that was covered. A bucket's value is that
// integral over its covered seconds: the exact time-weighted mean of the samples in it.
//
// Memory is bounded whatever the run's length or job count: at most `max_buckets` buckets
// (1,024 by default). When a span would reach past the last bucket, adjacent pairs are
// merged (their integrals and covered seconds added) and the bucket width doubles, as often
// as needed; the means stay exact at the coarser resolution. Cost of add(): O(buckets the
// span crosses), amortised O(1) for the short spans between simulator events.
// No clock, no I/O. Not thread-safe.

#include <array>
#include <cstddef>
#include <vector>

namespace frugal {

// The metrics, in this order in TimelineSample::v and Timeline::mean().
enum class TimelineMetric : size_t {
  kProvisionedGpus = 0,  // GPUs on provisioned (powered, rented) nodes
  kAllocatedGpus,        // GPUs allocated to jobs (milli-GPU / 1000)
  kBusyGpus,             // GPUs computing (the simulator has no utilisation model: = allocated)
  kQueueJobs,            // jobs waiting (queued, deferred or held)
  kCostUsdPerHour,       // rental + energy of the provisioned capacity, USD/h
  kPriceUsdPerMwh,       // electricity price of the cluster's first region, USD/MWh
  kCount
};
inline constexpr size_t kTimelineMetrics = static_cast<size_t>(TimelineMetric::kCount);

// Values of every metric, held constant over one span.
struct TimelineSample {
  std::array<double, kTimelineMetrics> v{};
  double& operator[](TimelineMetric m) { return v[static_cast<size_t>(m)]; }
  double operator[](TimelineMetric m) const { return v[static_cast<size_t>(m)]; }
};

class Timeline {
 public:
  // `bucket_s` is the initial bucket width (> 0), `max_buckets` the cap (>= 2, rounded up to
  // even).
  Timeline(double bucket_s, size_t max_buckets);
  Timeline() : Timeline(60, 1024) {}

  // `s` held over [t0, t1). Spans must not go back in time (t0 >= the previous t1 is not
  // required, but t0 before the first span's start is clamped to it); empty spans are ignored.
  void add(double t0, double t1, const TimelineSample& s);

  bool empty() const { return buckets_.empty(); }
  double origin() const { return origin_; }      // start of bucket 0 (the first span's t0)
  double bucket_s() const { return bucket_s_; }  // width of every bucket now
  size_t size() const { return buckets_.size(); }
  size_t max_buckets() const { return max_; }
  // Seconds of bucket i that spans covered (0: a gap, the mean is then 0).
  double covered_s(size_t i) const { return buckets_[i].covered; }
  // Time-weighted mean of metric m over the covered part of bucket i.
  double mean(size_t i, TimelineMetric m) const;

 private:
  struct Bucket {
    double covered = 0;
    std::array<double, kTimelineMetrics> integral{};
  };
  void widen();  // merge adjacent pairs, double the width
  std::vector<Bucket> buckets_;
  double origin_ = 0;
  double bucket_s_;
  size_t max_;
  bool started_ = false;
};

}  // namespace frugal
