#include "service/rate_window.h"

#include <algorithm>

namespace frugal {

void RateWindow::add(double t, double rate) {
  samples_.emplace_back(t, rate);
  // The front is needed while it is the last sample at or before the window's start.
  while (samples_.size() >= 2 && samples_[1].first <= t - span_s_) samples_.pop_front();
}

std::optional<double> RateWindow::mean(double now) const {
  const double start = now - span_s_;
  if (samples_.empty() || samples_.front().first > start || !(span_s_ > 0)) return std::nullopt;
  double sum = 0;
  for (size_t i = 0; i < samples_.size(); ++i) {
    const double from = std::max(samples_[i].first, start);
    const double to = i + 1 < samples_.size() ? std::min(samples_[i + 1].first, now) : now;
    if (to > from) sum += samples_[i].second * (to - from);
  }
  return sum / span_s_;
}

}  // namespace frugal
