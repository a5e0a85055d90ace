#include "model/hourly_series.h"

#include <cmath>

namespace frugal {

HourlySeries::HourlySeries(int64_t start_unix_s, std::vector<double> values)
    : start_(start_unix_s), values_(std::move(values)) {
  prefix_.resize(values_.size() + 1, 0.0);
  for (size_t i = 0; i < values_.size(); ++i) prefix_[i + 1] = prefix_[i] + values_[i] * 3600.0;
}

HourlySeries HourlySeries::constant(int64_t start_unix_s, size_t hours, double value) {
  return HourlySeries(start_unix_s, std::vector<double>(hours, value));
}

double HourlySeries::at(double t) const {
  if (values_.empty()) return 0;
  const double len = 3600.0 * static_cast<double>(values_.size());
  double x = std::fmod(t - static_cast<double>(start_), len);
  if (x < 0) x += len;
  size_t h = static_cast<size_t>(x / 3600.0);
  if (h >= values_.size()) h = values_.size() - 1;
  return values_[h];
}

double HourlySeries::prefix_at(double x) const {
  size_t h = static_cast<size_t>(x / 3600.0);
  if (h >= values_.size()) return prefix_.back();
  return prefix_[h] + values_[h] * (x - 3600.0 * static_cast<double>(h));
}

double HourlySeries::cumulative(double t) const {
  const double len = 3600.0 * static_cast<double>(values_.size());
  const double rel = t - static_cast<double>(start_);
  // Inside the first cycle: floor(rel / len) is 0 (rel / len ≤ 1 − 2⁻⁵³ for rel < len), so
  // the general formula below reduces exactly to prefix_at(rel).
  if (rel >= 0 && rel < len) return prefix_at(rel);
  const double cycles = std::floor(rel / len);
  double x = rel - cycles * len;
  if (x < 0) x = 0;
  if (x > len) x = len;
  return cycles * prefix_.back() + prefix_at(x);
}

double HourlySeries::integral(double t0, double t1) const {
  if (values_.empty() || !(t1 > t0)) return 0;
  return cumulative(t1) - cumulative(t0);
}

}  // namespace frugal
