#include "cost/pricing.h"

#include <algorithm>

namespace frugal {

Pricing::Pricing(const ClusterSpec& spec, const GpuCatalog& catalog, const ClusterState& state)
    : spec_(spec) {
  centres_.resize(state.centre_count());
  std::vector<int> nodes_in(state.centre_count(), 0);
  for (uint32_t c = 0; c < state.centre_count(); ++c) {
    Centre& ce = centres_[c];
    const Pool& pool = spec.pools[state.centre_pool(c)];
    const GpuModelId m = state.centre_model(c);
    ce.region = pool.region;
    ce.on_demand = rented(pool.capacity);
    ce.cpu_only = m == kNoGpuModel;
    ce.model = m;
    if (ce.cpu_only) continue;
    const GpuModel& gm = catalog.at(m);
    ce.rate_usd_h = rental_rate_usd_h(pool, gm, m);
    // Spot is a market price of its own: no time-of-use discount on top.
    ce.discount =
        pool.capacity == Capacity::kOnDemand ? spec.regions[pool.region].time_of_use.discount : 0;
    ce.idle_w = gm.idle_w;
    ce.peak_w = gm.peak_w;
  }
  // Host overhead: per GPU on GPU nodes, per node on CPU-only nodes (mean over the centre).
  std::vector<double> overhead(state.centre_count(), 0), units(state.centre_count(), 0);
  for (NodeId n = 0; n < spec.nodes.size(); ++n) {
    const uint32_t c = state.centre_of(n);
    overhead[c] += spec.nodes[n].overhead_w;
    units[c] += centres_[c].cpu_only ? 1 : spec.nodes[n].gpus;
  }
  for (uint32_t c = 0; c < centres_.size(); ++c)
    centres_[c].overhead_w = units[c] > 0 ? overhead[c] / units[c] : 0;
}

double Pricing::rental_rate(uint32_t c, double t) const {
  const Centre& ce = centres_[c];
  if (!ce.on_demand || ce.discount == 0) return ce.rate_usd_h;
  const Region& r = spec_.regions[ce.region];
  return ce.rate_usd_h *
         (1 - ce.discount * r.offpeak.at(static_cast<double>(spec_.epoch_unix_s) + t));
}

double Pricing::cheapest_rate(GpuModelId m) const {
  double best = -1;
  for (const Centre& ce : centres_)
    if (ce.model == m && !ce.cpu_only && (best < 0 || ce.rate_usd_h < best)) best = ce.rate_usd_h;
  return best;
}

Pricing::Mark Pricing::mark(uint32_t region, double t) const {
  const Region& r = spec_.regions[region];
  const double a = static_cast<double>(spec_.epoch_unix_s) + t;
  Mark m;
  m.t = t;
  m.unix_s = a;
  if (!r.offpeak.empty()) m.offpeak = r.offpeak.cumulative(a);
  if (!r.electricity_usd_per_mwh.empty()) m.elec = r.electricity_usd_per_mwh.cumulative(a);
  if (!r.carbon_g_per_kwh.empty()) m.carbon = r.carbon_g_per_kwh.cumulative(a);
  return m;
}

Pricing::Window Pricing::window(uint32_t region, const Mark& m0, const Mark& m1) const {
  // The same arithmetic as HourlySeries::integral and hours_integral, from the marks.
  const Region& r = spec_.regions[region];
  Window w;
  w.hours = (m1.t - m0.t) / 3600.0;
  w.offpeak_s = r.offpeak.empty() ? 0.0 : m1.offpeak - m0.offpeak;
  w.elec_mwh_h = r.electricity_usd_per_mwh.empty()
                     ? r.default_electricity_usd_per_mwh * (m1.unix_s - m0.unix_s) / 3600.0
                     : (m1.elec - m0.elec) / 3600.0;
  w.carbon_g_h = r.carbon_g_per_kwh.empty()
                     ? r.default_carbon_g_per_kwh * (m1.unix_s - m0.unix_s) / 3600.0
                     : (m1.carbon - m0.carbon) / 3600.0;
  return w;
}

Pricing::Window Pricing::window(uint32_t region, double t0, double t1) const {
  return window(region, mark(region, t0), mark(region, t1));
}

SpanCost Pricing::span(uint32_t c, double gpus, double u, double t0, double t1) const {
  if (!(t1 > t0) || gpus == 0) return {};
  return span(c, gpus, u, window(centres_[c].region, t0, t1));
}

SpanCost Pricing::span(uint32_t c, double gpus, double u, const Window& w) const {
  SpanCost out;
  if (gpus == 0) return out;
  const Centre& ce = centres_[c];
  const Region& r = spec_.regions[ce.region];
  if (!ce.cpu_only) {
    double rate_hours = w.hours;
    if (ce.on_demand && ce.discount > 0 && !r.offpeak.empty())
      rate_hours -= ce.discount * w.offpeak_s / 3600.0;
    out.rental_usd = gpus * ce.rate_usd_h * rate_hours;
  }
  const double watts =
      ce.cpu_only ? ce.overhead_w : ce.idle_w + (ce.peak_w - ce.idle_w) * u + ce.overhead_w;
  const double kw = gpus * watts * r.pue / 1000.0;
  out.energy_kwh = kw * w.hours;
  out.energy_usd = kw / 1000.0 * w.elec_mwh_h;
  out.co2_kg = kw * w.carbon_g_h / 1000.0;
  return out;
}

bool Pricing::wrapped(double t0, double t1) const {
  const double a = static_cast<double>(spec_.epoch_unix_s) + t0;
  const double b = static_cast<double>(spec_.epoch_unix_s) + t1;
  for (const Region& r : spec_.regions)
    if (r.electricity_usd_per_mwh.wraps(a, b) || r.carbon_g_per_kwh.wraps(a, b) ||
        r.offpeak.wraps(a, b))
      return true;
  return false;
}

}  // namespace frugal
