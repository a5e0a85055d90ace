#pragma once
// Prices a span of GPU time in one cost centre (a pool's GPUs of one model, see
// ClusterState): rental dollars, energy (kWh and dollars at each hour's market price) and
// CO2. Trace time t maps to Unix time epoch + t.
//
//  rental  = GPUs × rate, where rate is the reserved price (owned/reserved pools) or the
//            on-demand list price less the time-of-use discount in off-peak hours;
//  power   = GPUs × (idle_w + (peak_w − idle_w) × utilisation + node overhead per GPU) × PUE;
//  energy$ = ∫ power(t) × electricity price(t) dt;  CO2 = ∫ power(t) × carbon intensity(t) dt.
// CPU-only centres have no rental and no GPU power; their host overhead is priced per node.
// Immutable after construction; thread-safe to read.

#include <vector>

#include "cluster/cluster_state.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"

namespace frugal {

struct SpanCost {
  double rental_usd = 0;
  double energy_usd = 0;
  double energy_kwh = 0;
  double co2_kg = 0;
  double total_usd() const { return rental_usd + energy_usd; }
  SpanCost& operator+=(const SpanCost& o) {
    rental_usd += o.rental_usd;
    energy_usd += o.energy_usd;
    energy_kwh += o.energy_kwh;
    co2_kg += o.co2_kg;
    return *this;
  }
  SpanCost scaled(double f) const {
    return {rental_usd * f, energy_usd * f, energy_kwh * f, co2_kg * f};
  }
};

class Pricing {
 public:
  // A region's series integrated over one span of trace time: what span() needs besides the
  // centre's constants. Computing it once serves every centre of the region over that span.
  struct Window {
    double hours = 0;       // (t1 − t0) / 3600
    double offpeak_s = 0;   // ∫ off-peak indicator, seconds
    double elec_mwh_h = 0;  // ∫ electricity price, USD/MWh × hours
    double carbon_g_h = 0;  // ∫ carbon intensity, gCO2/kWh × hours
  };

  // A region's series' cumulative integrals (HourlySeries::cumulative) at one trace time:
  // two of them give a Window, so consecutive spans can share their common end point.
  struct Mark {
    double t = 0;                              // trace time
    double unix_s = 0;                         // epoch + t, as the series see it
    double offpeak = 0, elec = 0, carbon = 0;  // 0 for an empty series
  };

  Pricing(const ClusterSpec& spec, const GpuCatalog& catalog, const ClusterState& state);

  // Cost of `gpus` GPUs (may be fractional) of centre `c` at utilisation `u` over the trace
  // times [t0, t1). For a CPU-only centre `gpus` counts nodes and u is ignored.
  SpanCost span(uint32_t c, double gpus, double u, double t0, double t1) const;
  // The same with the region's integrals precomputed: span(c, g, u, window(r, t0, t1))
  // equals span(c, g, u, t0, t1) exactly when r is c's region and t1 > t0.
  SpanCost span(uint32_t c, double gpus, double u, const Window& w) const;
  Window window(uint32_t region, double t0, double t1) const;
  Mark mark(uint32_t region, double t) const;
  // window(region, m0.t, m1.t) from marks of `region` (exactly equal; m1.t > m0.t).
  Window window(uint32_t region, const Mark& m0, const Mark& m1) const;
  // Rental dollars per GPU-hour of centre c at trace time t (for reports and heuristics).
  double rental_rate(uint32_t c, double t) const;
  // Cheapest rental per GPU-hour among centres holding model m (list or reserved rate,
  // before time-of-use discounts); < 0 when no centre has it.
  double cheapest_rate(GpuModelId m) const;
  // Whether any price or carbon lookup used so far fell outside the series (wrapped).
  bool wrapped(double t0, double t1) const;
  uint32_t region_of_centre(uint32_t c) const { return centres_[c].region; }

 private:
  struct Centre {
    uint32_t region = 0;
    GpuModelId model = kNoGpuModel;
    bool cpu_only = false;
    bool on_demand = false;
    double rate_usd_h = 0;                          // reserved rate, or on-demand list rate
    double discount = 0;                            // off-peak discount (on-demand only)
    double idle_w = 0, peak_w = 0, overhead_w = 0;  // per GPU (per node when cpu_only)
  };
  std::vector<Centre> centres_;
  const ClusterSpec& spec_;
};

}  // namespace frugal
