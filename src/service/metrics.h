#pragma once
// Latency recording for /metrics: a Prometheus histogram (fixed buckets) plus a window of
// the latest samples for exact quantiles (p50/p99 in the bench), served as a summary.
// Not thread-safe: the decision loop owns every instance.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace frugal {

class LatencyHistogram {
 public:
  // Upper bounds of the buckets, seconds (the last bucket, +Inf, is implicit).
  static constexpr std::array<double, 14> kBounds = {
      50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 0.1, 0.25, 1, 5};

  explicit LatencyHistogram(size_t window = 65536) : window_(window) {}
  void record(double seconds);
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  // Quantile q in [0, 1] of the latest `window` samples (0 when none).
  double quantile(double q) const;
  // Appends to `out` the histogram `name` (HELP, TYPE, buckets, _sum, _count) and the summary
  // `<name>_window`: quantile="0.5" and "0.99" of the latest `window` samples, with the same
  // _sum and _count as the histogram (cumulative, as Prometheus client summaries are).
  void render(const std::string& name, const std::string& help, std::string& out) const;

 private:
  std::array<uint64_t, kBounds.size() + 1> buckets_{};
  uint64_t count_ = 0;
  double sum_ = 0;
  size_t window_;
  std::vector<double> recent_;  // ring buffer
  size_t next_ = 0;
};

// Appends one "# HELP/# TYPE/value" block for a gauge or counter.
void render_metric(const std::string& name, const char* type, const std::string& help, double value,
                   std::string& out);

}  // namespace frugal
