#pragma once
// Admit "time-shift": off-peak time-shifting of deferrable work.
//
// A deferrable job (JobSpec::deferrable, with a GPU demand) is priced at arrival for every
// candidate start h: now and each whole UTC hour in (now, latest], where
//
//   latest = min(deadline − runtime_safe − margin, now + max_delay_s)   (deadline set)
//          = now + max_delay_s                                          (no deadline)
//   runtime_safe = the run time on the slowest of the centres it is priced on (below), but
//                  at most the estimate on the reference model (or on the fastest candidate
//                  model when none is as fast); margin = max(margin_s, margin_frac ×
//                  runtime_safe). A job priced on H100s alone thus gets the room its H100 run
//                  leaves (the reference A100 run is 2.5 × longer: with it, one 64-GPU job
//                  alone was 72 % of the gap to the energy bound on ITP cluster 01). A job
//                  that then lands on a much slower model may still miss its deadline (the
//                  simulator counts deadline_misses); pricing with the slowest candidate
//                  instead left almost no job room to move on a mixed cluster.
//
// cost(h) = Σ_c w_c · span(c, GPUs, utilisation, h, h + estimate / speed_c).total_usd / Σ w_c
// over the GPU cost centres c of the job's allowed models that can hold it where it most likely
// runs (w_c = the centre's GPUs, the chance it lands there): the owned and reserved centres
// (on-demand capacity is the overflow) — but with `overflow`, when the profile cannot place it
// now (CycleView::try_place) the provisioned capacity is full and the autoscaler would add
// on-demand nodes, so the on-demand centres; every candidate when the chosen kind has none
// (`frugal` sets `overflow`: on an autoscaled cluster with a small reserved base most
// deferrable work runs on on-demand nodes, whose rental has time-of-use discounts); span() prices
// energy at the region's day-ahead hourly price and rental with time-of-use discounts
// (src/cost/pricing.h) — both known in advance. An hour h is a candidate only where, on each
// on-demand centre the job is priced on, the GPUs already promised to deferred jobs plus this
// job's share (w_c / Σ w) fit in the centre over its run (src/policy/deferral_claims.h; without
// it every job went to the same cheap hour and a capped pool made some miss their deadlines).
// The job is deferred to the cheapest h (earliest on
// ties; with `wait_usd_gpu_h` > 0 the cheapest by cost(h) + wait_usd_gpu_h × GPUs × (h − now)
// in hours, i.e. each GPU-hour of deferral is charged as a price of the JCT it costs) when
// cost(now) − [that penalised cost of h] > min_saving × |energy cost(now)| (the threshold is
// relative to the energy part: reserved rental does not move with time and would swamp any ratio on
// the total); otherwise, and for every other job, the verdict is the capacity admit's (which also
// rejects jobs that can never run). Deterministic.
//
// With `energy_only`, cost(h) is the energy part of span() alone: the job goes to the hour of
// least energy cost whatever the rental there (time-of-use rental discounts are ignored). It
// minimises the deferrable jobs' energy cost (the goal of issue 5's time-shifting target and
// the energy-optimal offline bound), not their cost: where an off-peak rental window and the
// cheap-energy hours differ it gives up the rental discount. Off by default.
//
// With `overflow_model`, a job priced on on-demand centres only (all its candidates are on
// demand, or `overflow` and it does not fit now) is priced on the centres of the model the
// autoscaler would add for it (CycleView::overflow_model: the first of the profile's
// candidate models with on-demand capacity), not on the GPU-weighted mix of every on-demand
// model — on an autoscaled cluster with large pools of slower models the mix prices hours in
// regions the job never runs in. Off by default (docs/EXPERIMENTS.md measures it).
//
// With `valley` (and `overflow`), a job that does not fit now may also be deferred to the
// earliest time a reserved or owned node is expected to have room for it
// (src/policy/reserved_valley.h), priced at its energy alone — that rental is paid whether or
// not the job runs there — plus the wait price; the cheapest of that and the hours above
// wins, and a valley chosen is claimed so later jobs do not count on the same GPUs.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "framework/options.h"
#include "framework/plugins.h"
#include "model/result.h"

namespace frugal {

// The longest deferral (and deadline margin) an option may ask for: 30 days. The admit
// prices every whole hour of the window, so an unbounded one would never finish.
inline constexpr double kMaxTimeShiftDelayS = 30 * 24 * 3600.0;

struct TimeShiftOptions {
  double max_delay_s = 24 * 3600.0;  // slack without a deadline (and cap with one)
  double min_saving = 0.05;          // defer only when it saves more than this fraction of
                                     // the job's energy cost at an immediate start
  double margin_s = 3600;            // deadline safety margin, at least
  double margin_frac = 0.25;         // ... and at least this fraction of the run time
  bool overflow = false;             // price on on-demand centres when it does not fit now
  double wait_usd_gpu_h = 0;         // price of deferral, USD per GPU-hour of waiting
  bool valley = false;               // also consider reserved valleys (below)
  bool energy_only = false;          // cost(h) = energy alone, rental ignored (below)
  bool overflow_model = false;       // on-demand pricing: only the autoscaler's model (below)
};

// The options above, typed (framework/options.h), with `defaults` as their defaults:
// max_delay_s and margin_s at most kMaxTimeShiftDelayS; min_saving, margin_frac,
// wait_usd_gpu_h any non-negative number; overflow, valley, energy_only, overflow_model 0 or 1.
std::vector<OptionSpec> time_shift_option_specs(const TimeShiftOptions& defaults = {});
// The options from values parsed against time_shift_option_specs().
TimeShiftOptions time_shift_options(const OptionValues& v);
// Parses "key=value" pairs separated by ':' over the defaults; errors name the item.
Result<TimeShiftOptions> parse_time_shift_options(const std::string& text);

std::unique_ptr<Admit> make_time_shift_admit(TimeShiftOptions options = {});

}  // namespace frugal
