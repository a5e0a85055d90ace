#include "service/metrics.h"

#include <fmt/format.h>

#include <algorithm>

#include "service/prom_text.h"

namespace frugal {

void LatencyHistogram::record(double s) {
  size_t b = 0;
  while (b < kBounds.size() && s > kBounds[b]) ++b;
  ++buckets_[b];
  ++count_;
  sum_ += s;
  if (recent_.size() < window_) {
    recent_.push_back(s);
  } else {
    recent_[next_] = s;
    next_ = (next_ + 1) % window_;
  }
}

double LatencyHistogram::quantile(double q) const {
  if (recent_.empty()) return 0;
  std::vector<double> v = recent_;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void LatencyHistogram::render(const std::string& name, const std::string& help,
                              std::string& out) const {
  render_header(name, "histogram", help, out);
  uint64_t cumulative = 0;
  for (size_t b = 0; b < kBounds.size(); ++b) {
    cumulative += buckets_[b];
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, kBounds[b], cumulative);
  }
  cumulative += buckets_[kBounds.size()];
  out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n{}_sum {}\n{}_count {}\n", name, cumulative,
                     name, sum_, name, count_);
  // A summary, not gauges: only a summary's samples may carry a `quantile` label (promtool).
  const std::string w = name + "_window";
  render_header(w, "summary", fmt::format("{} (quantiles of the latest {} samples)", help, window_),
                out);
  render_sample(w, {{"quantile", "0.5"}}, quantile(0.5), out);
  render_sample(w, {{"quantile", "0.99"}}, quantile(0.99), out);
  out += fmt::format("{}_sum {}\n{}_count {}\n", w, sum_, w, count_);
}

void render_metric(const std::string& name, const char* type, const std::string& help, double value,
                   std::string& out) {
  render_header(name, type, help, out);
  render_sample(name, {}, value, out);
}

}  // namespace frugal
