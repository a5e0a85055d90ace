#pragma once
// The combined `frugal` profile — the product default of `frugal simulate` and of the
// service (default_profile_name()). Its pipeline (`frugal policies` prints it):
//
//   QueueSort   tier-shortest: effective tier (core > important > general; a general job
//               queued `tiers.starvation_s` counts as important), then the shortest runtime
//               estimate, then arrival. With `urgent`, a queued important or general job
//               with a deadline whose slack has run out (deadline − estimate −
//               max(margin_s, margin_frac × estimate), the time-shift margins) is urgent:
//               it goes after core work and before every job that is not urgent (urgent
//               important jobs before urgent general ones, each shortest first), and it
//               counts as important for preemption.
//   Admit       time-shift (policy/time_shift.h) with the options below.
//   Filter      hetero-fast (policy/hetero.h); Place: ordered bestfit.
//   PostFilter  easy-backfill.   Preempt: tier-preempt (policy/tiers.h), checkpoint-first.
//   Consolidate when `consolidate` (policy/consolidate.h).
//   Relay       follow-the-sun when `sun` (policy/follow_sun.h).
//   Cycle plugins (policy/features.h): elastic sizing with time-of-use sizing when `tou`
//               and `autoscale_first` as set; pack-down; soon-free; prompt release when
//               `prompt_release`; on clusters with spot pools, spot placement
//               (policy/spot_placement.h: which jobs go on spot, spot-or-on-demand
//               provisioning; not named in the description, which is the same on every
//               cluster); dataset locality and prefetch (policy/dataset_locality.h,
//               policy/dataset_prefetch.h; not named either: no-ops for jobs without
//               datasets).
//
// Why each default is what it is — the measurements behind them — is in docs/EXPERIMENTS.md
// ("Why frugal's defaults"). Options follow the name: "frugal:max_delay_s=43200:tou=0".

#include <optional>
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
  // immediate start, priced on on-demand centres when it does not fit now, each GPU-hour of
  // waiting priced at $1.
  TimeShiftOptions time_shift = {
      .max_delay_s = 12 * 3600.0, .min_saving = 2, .overflow = true, .wait_usd_gpu_h = 1.0};
  bool urgent = true;       // option "urgent" (see QueueSort above)
  bool consolidate = true;  // option "consolidate"
  bool elastic = true;
  bool pack_down = true;
  bool soon_free = true;
  bool prompt_release = true;    // option "release"
  bool autoscale_first = false;  // option "autoscale_first" (frugal_option_specs() says what)
  bool tou_elastic = true;       // option "tou"
  bool sun = true;               // option "sun"
};

// frugal's options, typed (framework/options.h): the time-shift keys with frugal's defaults,
// starvation_s, and the flags sun, release, autoscale_first, tou and consolidate.
std::vector<OptionSpec> frugal_option_specs();
// The options from values parsed against frugal_option_specs().
FrugalOptions frugal_options(const OptionValues& v);
// Parses "key=value" pairs separated by ':' over the defaults; errors name the item.
Result<FrugalOptions> parse_frugal_options(const std::string& text);

// The profile described above, named "frugal".
Profile make_frugal_profile(const FrugalOptions& o = {});
// Its pipeline plugins without the cycle plugins, and those cycle plugins (policy/features.h):
// make_profile adds a policy string's +suffixes to the latter before building them.
Profile make_frugal_profile_base(const FrugalOptions& o);
FeatureSet frugal_features(const FrugalOptions& o);

// The policy `frugal simulate` (and the service) use when none is given: "frugal".
std::string default_profile_name();

// QueueSort "tier-shortest" (exposed for tests). With `urgent`, a deadline job also counts
// as starved from deadline − estimate − max(margin_s, margin_frac × estimate) (as queued),
// and a starved non-core deadline job is urgent (above).
struct DeadlineMargin {
  Seconds margin_s = 3600;
  double margin_frac = 0.25;
};
std::unique_ptr<QueueSort> make_tier_shortest_sort(
    Seconds starvation_s = 24 * 3600, std::optional<DeadlineMargin> urgent = std::nullopt);

}  // namespace frugal
