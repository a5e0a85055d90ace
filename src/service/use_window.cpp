#include "service/use_window.h"

#include <algorithm>

namespace frugal {

void UseWindow::add(const Rules& rules, double at, double utilization, double memory_frac) {
  if (!buckets_.empty() && at < buckets_.back().at) return;
  if (!buckets_.empty() && at - buckets_.back().at > rules.max_gap_s) buckets_.clear();
  if (buckets_.empty() || at - buckets_.back().first >= rules.period_s / 2)
    buckets_.push_back(Bucket{at, at});
  Bucket& b = buckets_.back();
  b.at = at;
  b.sum += utilization;
  ++b.n;
  b.peak = std::max(b.peak, utilization);
  b.latest = utilization;
  if (memory_frac >= 0) b.memory = std::max(b.memory, memory_frac);
  // Keep what the newest window of span_s needs: buckets whose period ends inside it.
  while (buckets_.size() > 1 && buckets_.front().at <= at - rules.span_s) buckets_.pop_front();
}

std::optional<MeasuredUse> UseWindow::summary(const Rules& rules) const {
  if (buckets_.empty()) return std::nullopt;
  MeasuredUse u;
  const Bucket& newest = buckets_.back();
  u.at = newest.at;
  u.window = std::min(rules.span_s, newest.at - buckets_.front().first + rules.period_s);
  double sum = 0;
  int n = 0;
  for (const Bucket& b : buckets_) {
    sum += b.sum;
    n += b.n;
    u.peak = std::max(u.peak, b.peak);
    u.memory_frac = std::max(u.memory_frac, b.memory);
  }
  u.utilization = sum / n;
  u.latest = newest.latest;
  return u;
}

}  // namespace frugal
