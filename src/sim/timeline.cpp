#include "sim/timeline.h"

#include <algorithm>
#include <cmath>

namespace frugal {

Timeline::Timeline(double bucket_s, size_t max_buckets)
    : bucket_s_(bucket_s > 0 ? bucket_s : 60),
      max_(std::max<size_t>(2, max_buckets + max_buckets % 2)) {}

void Timeline::widen() {
  std::vector<Bucket> merged((buckets_.size() + 1) / 2);
  for (size_t i = 0; i < buckets_.size(); ++i) {
    Bucket& m = merged[i / 2];
    m.covered += buckets_[i].covered;
    for (size_t k = 0; k < kTimelineMetrics; ++k) m.integral[k] += buckets_[i].integral[k];
  }
  buckets_ = std::move(merged);
  bucket_s_ *= 2;
}

void Timeline::add(double t0, double t1, const TimelineSample& s) {
  if (!started_) {
    origin_ = t0;
    started_ = true;
  }
  t0 = std::max(t0, origin_);
  if (!(t1 > t0)) return;
  while (t1 - origin_ > bucket_s_ * static_cast<double>(max_)) widen();
  // The bucket holding t1's left neighbourhood (a span ending on a boundary opens no bucket).
  const auto last = static_cast<size_t>(
      std::clamp(std::ceil((t1 - origin_) / bucket_s_) - 1, 0.0, static_cast<double>(max_ - 1)));
  if (buckets_.size() <= last) buckets_.resize(last + 1);
  double t = t0;
  while (t < t1) {
    auto i = static_cast<size_t>(std::floor((t - origin_) / bucket_s_));
    i = std::min(i, buckets_.size() - 1);
    const double end = std::min(t1, origin_ + bucket_s_ * static_cast<double>(i + 1));
    const double dt = (end > t ? end : t1) - t;  // the last bucket takes any rounding rest
    Bucket& b = buckets_[i];
    b.covered += dt;
    for (size_t k = 0; k < kTimelineMetrics; ++k) b.integral[k] += s.v[k] * dt;
    t += dt;
  }
}

double Timeline::mean(size_t i, TimelineMetric m) const {
  const Bucket& b = buckets_[i];
  return b.covered > 0 ? b.integral[static_cast<size_t>(m)] / b.covered : 0.0;
}

}  // namespace frugal
