#pragma once
// The combined `frugal` profile — the product default of `frugal simulate` (and of the
// service, through default_profile_name()). One plugin per extension point, each the
// measured best of its kind in this repository (docs/EXPERIMENTS.md, docs/RESULTS.md):
//
//   QueueSort   tier-shortest: effective tier (core > important > general; a general job
//               waiting `tiers.starvation_s` counts as important), then the shortest runtime
//               estimate (the true duration, or the online prediction with
//               --predict-runtimes), then arrival. SJF inside a tier lowers mean JCT; the
//               starvation guard bounds how long a long job can be passed over.
//   Admit       time-shift (src/policy/time_shift.h): deferrable jobs wait for the cheapest
//               whole hour before their deadline by day-ahead energy prices and time-of-use
//               rental, priced on on-demand centres when the job does not fit now
//               (`overflow`) — on an autoscaled cluster this is what makes on-demand bursts
//               of deferrable work land in off-peak hours — with each GPU-hour of
//               deferral priced in (`wait_usd_gpu_h`). Defaults below (12 h, 2×, $1).
//   Filter      hetero-fast (src/policy/hetero.h): core work on the model where it finishes
//               soonest, auxiliary work fastest first with deadline-aware fallbacks.
//   Place       ordered bestfit (honours the filter's model order).
//   PostFilter  easy-backfill (reservation for the first blocked job).
//   Preempt     tier-preempt (src/policy/tiers.h): checkpoint-first, lower tiers only,
//               least work at risk; at most one checkpoint interval lost per victim; no
//               plans past the first queued job that gets none (so starvation-promoted
//               jobs do not churn, tiers.h).
//   Consolidate on (src/policy/consolidate.h) when `consolidate`.
//   Pack-down   on (`pack_down`; src/policy/pack_down.cpp): with nothing queued, the jobs
//               (rigid, or elastic at or above their request) of a lightly used on-demand
//               node move to fuller or reserved nodes, and those of any on-demand node onto
//               idle reserved GPUs, when the node time saved
//               exceeds the moves' cost (restart, plus a boot's worth of the reserved GPUs
//               filled), so the autoscaler releases it.
//   Autoscale   soon-free (`soon_free`): no on-demand node is asked for demand that running
//               jobs of the model are expected to free within the provisioning delay.
//               Prompt release (`prompt_release`, +release): an on-demand node that falls
//               idle is handed back at once instead of after its pool's idle timeout, unless
//               deferred work falls due within that timeout. On ITP 01-07 (bench/evaluate)
//               it cut cost 2-7 % at mean JCT +0..+2 % (docs/EXPERIMENTS.md, "Prompt
//               release").
//   Elastic     on (`elastic`): jobs that declare max_gpus > gpus start at what fits, grow
//               into idle GPUs and shrink for queued work (Profile::elastic). Growth takes
//               idle GPUs of the job's own nodes, or moves it to capacity paid for whether
//               used or not; onto an autoscaled on-demand node it moves only back up to its
//               request, so growing never delays a node's release (Engine::grown_elsewhere).
//               bench/evaluate makes half the training jobs elastic (docs/EXPERIMENTS.md,
//               "Elastic jobs"). Time-of-use sizing (`tou_elastic`, +tou;
//               src/policy/tou_sizing.cpp): in a region's discounted off-peak hours an
//               elastic job on on-demand nodes grows onto new nodes when that costs less than
//               doing the work later at the full rate; outside them a job that will still run
//               at the next off-peak start holds only its minimum when that does not delay
//               its end. On ITP 01-07 cost −0.6 … −1.9 % (c05 +0.1 %) with mean JCT −0.1 …
//               −3.6 % (docs/EXPERIMENTS.md, "Round 5").
//   Relay       follow-the-sun (`sun`, +sun; src/policy/follow_sun.h): jobs that declare
//               `movable` are placed in the region cheapest over their run and relayed at
//               checkpoints when the price gap pays; nothing changes for other jobs.
//
// Options follow the name like timeshift's: "frugal:max_delay_s=43200:min_saving=0.05".

#include <string>

#include "model/result.h"
#include "policy/features.h"
#include "policy/profile.h"
#include "policy/tiers.h"
#include "policy/time_shift.h"

namespace frugal {

struct FrugalOptions {
  TierOptions tiers;
  // Deferral at most 12 h, only when it saves more than twice the job's energy cost at an
  // immediate start (so in practice for time-of-use rental, not for energy alone), priced on
  // on-demand centres when it does not fit now: on ITP 01/02/03/07 this costs the same as
  // timeshift's defaults (24 h, 0.05, overflow) within ±0.5 % with 15-44 % lower mean JCT
  // (docs/EXPERIMENTS.md, "The evaluation").
  //
  // Each GPU-hour of deferral is priced at $1 (`wait_usd_gpu_h`; 8-22 % of an on-demand
  // GPU-hour here): a job is deferred to the hour minimising cost + that price, so only
  // deferrals that save more than $1 per GPU-hour of waiting are made. $1 is the smallest
  // of the measured prices (0.25, 0.5, 0.75, 1) at which frugal's mean JCT is no worse than
  // the best baseline's on every ITP cluster (issue 5); $0.25 is 2-6 % cheaper there and
  // 1.1-1.7 × slower on mean JCT (docs/EXPERIMENTS.md, "Pricing the deferral").
  TimeShiftOptions time_shift = {
      .max_delay_s = 12 * 3600.0, .min_saving = 2, .overflow = true, .wait_usd_gpu_h = 1.0};
  bool consolidate = true;
  bool elastic = true;
  bool pack_down = true;
  bool soon_free = true;
  bool prompt_release = true;
  // Elastic jobs do not shrink for a queued job the autoscaler can add a node for (option
  // "autoscale_first=1"; off by default). Measured on ITP 01-07 (docs/EXPERIMENTS.md, "With
  // predicted runtimes"): with true durations mean JCT −4.6 … +0.7 % for cost +0.2 … +3.6 %
  // (share −1.2 … 0 points); with predicted runtimes mean JCT −0.2 … −13.9 % for cost
  // −0.4 … +3.0 %, which kept frugal's mean JCT at or below the best baseline's there — before
  // elastic jobs past a predicted runtime could grow again (policy/elastic_sizing.cpp; round 5),
  // since when the default meets that line with predictions too.
  bool autoscale_first = false;
  // Time-of-use elastic sizing (+tou, src/policy/tou_sizing.cpp; above). Option "tou=0".
  bool tou_elastic = true;
  // Follow-the-sun for movable jobs (src/policy/follow_sun.h; the +sun suffix). On: it
  // changes nothing for jobs not marked movable (identical results on every evaluation trace)
  // and saves a little where they are (docs/EXPERIMENTS.md, "Follow-the-sun"). Option "sun=0".
  bool sun = true;
};

// Parses "key=value" pairs separated by ':' — the time-shift keys (max_delay_s,
// min_saving, margin_s, margin_frac, overflow, wait_usd_gpu_h, valley, energy_only,
// overflow_model; src/policy/time_shift.h), starvation_s, sun, release, autoscale_first and tou (0
// or 1) — over the defaults.
Result<FrugalOptions> parse_frugal_options(const std::string& text);

// The profile described above, named "frugal".
Profile make_frugal_profile(const FrugalOptions& o = {});
// Its pipeline plugins without the cycle plugins, and those cycle plugins (policy/features.h):
// make_profile adds a policy string's +suffixes to the latter before building them.
Profile make_frugal_profile_base(const FrugalOptions& o);
FeatureSet frugal_features(const FrugalOptions& o);

// The policy `frugal simulate` (and the service) use when none is given: "frugal".
std::string default_profile_name();

// QueueSort "tier-shortest" (exposed for tests).
std::unique_ptr<QueueSort> make_tier_shortest_sort(Seconds starvation_s = 24 * 3600);

}  // namespace frugal
