#include "sim/spot_reclaims.h"

#include <cmath>

namespace frugal {

SpotReclaims::SpotReclaims(const ClusterSpec& spec, uint64_t seed)
    : spec_(spec), rng_(seed ^ 0x7370'6f74'7265'636cULL) {}

Seconds SpotReclaims::next(NodeId n, Seconds t) {
  if (n >= spec_.nodes.size()) return kNever;
  const Pool& pool = spec_.pools[spec_.nodes[n].pool];
  if (pool.capacity != Capacity::kSpot || !(pool.spot.mean_rate() > 0)) return kNever;
  std::exponential_distribution<double> unit(1.0);
  return reclaim_after(pool.spot, t, unit(rng_));
}

Seconds reclaim_after(const SpotTerms& terms, Seconds t0, double hazard) {
  const HourlySeries& s = terms.reclaim_rate_series;
  if (s.empty()) {
    const double rate = terms.reclaim_rate_per_node_hour;
    return rate > 0 ? t0 + hazard / rate * 3600 : kNever;
  }
  // Expected reclaims per node over one period of the series (rate × hours).
  const double period_h = static_cast<double>(s.hours());
  const double per_period = s.integral(0, period_h * 3600) / 3600;
  if (!(per_period > 0)) return kNever;
  // Whole periods first, then hour by hour (at most one period more).
  const double periods = std::floor(hazard / per_period);
  Seconds t = t0 + periods * period_h * 3600;
  double left = hazard - periods * per_period;
  for (size_t i = 0; i <= s.hours() + 1; ++i) {
    const Seconds hour_end = (std::floor(t / 3600) + 1) * 3600;
    const double rate = s.at(t);
    const double here = rate * (hour_end - t) / 3600;
    if (rate > 0 && here >= left) return t + left / rate * 3600;
    left -= here;
    t = hour_end;
  }
  return t;  // rounding left a sliver: the end of the walk
}

}  // namespace frugal
