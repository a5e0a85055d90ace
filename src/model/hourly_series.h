#pragma once
// A value per UTC hour (an electricity price in USD/MWh, a carbon intensity in gCO2/kWh,
// an off-peak indicator), starting at a whole UTC hour. Integrals over any time span come
// from prefix sums in O(1). Beyond its end (or before its start) the series wraps around
// by its own length, so a year of data serves a simulation of any length; wraps() says
// whether a span needed that, so reports can say so.
//
// Times are Unix seconds (UTC). Immutable after construction; thread-safe to read.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace frugal {

class HourlySeries {
 public:
  HourlySeries() = default;
  // `start_unix_s` must be a whole hour; `values[i]` holds for [start + 3600 i, +3600).
  HourlySeries(int64_t start_unix_s, std::vector<double> values);

  bool empty() const { return values_.empty(); }
  size_t hours() const { return values_.size(); }
  int64_t start() const { return start_; }
  int64_t end() const { return start_ + 3600 * static_cast<int64_t>(values_.size()); }
  const std::vector<double>& values() const { return values_; }

  // Value of the hour containing `t` (wrapped). 0 when empty.
  double at(double t) const;
  // ∫ value dt over [t0, t1), in value × seconds (wrapped). 0 when empty or t1 <= t0.
  // Equals cumulative(t1) − cumulative(t0) when not empty and t1 > t0.
  double integral(double t0, double t1) const;
  // ∫ value dt from start() to t, the series extended periodically both ways (negative
  // before start()). Not empty only.
  double cumulative(double t) const;
  // True when [t0, t1) reaches outside [start(), end()).
  bool wraps(double t0, double t1) const { return !empty() && (t0 < start_ || t1 > end()); }
  // A series of `hours` hours, all equal to `value` (a flat price).
  static HourlySeries constant(int64_t start_unix_s, size_t hours, double value);

 private:
  // ∫ over [start, start + x) for x in [0, length] seconds.
  double prefix_at(double x) const;

  int64_t start_ = 0;
  std::vector<double> values_;
  std::vector<double> prefix_;  // prefix_[i] = sum of values_[0..i) × 3600
};

}  // namespace frugal
