#pragma once
// The mean of a rate sampled at irregular instants over a trailing window, each sample
// holding until the next: e.g. the cluster's spend rate over the last 15 minutes
// (the budget_burn alert, service/alerts.h). Not thread-safe.

#include <deque>
#include <optional>
#include <utility>

namespace frugal {

class RateWindow {
 public:
  explicit RateWindow(double span_s) : span_s_(span_s) {}
  // A sample of `rate` at `t` (times must not decrease); samples older than the window
  // are dropped but the last one before it.
  void add(double t, double rate);
  // The time-weighted mean over [now − span, now]; nullopt until the samples cover the whole
  // window (the first at or before now − span).
  std::optional<double> mean(double now) const;
  double span_s() const { return span_s_; }

 private:
  double span_s_;
  std::deque<std::pair<double, double>> samples_;  // (t, rate), t ascending
};

}  // namespace frugal
