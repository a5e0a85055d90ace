#pragma once
// Follow-the-sun: where a movable job (JobSpec::movable) runs, and when it moves.
//
// Costs are marginal (src/policy/region_cost.h: energy at the region's hourly prices × PUE,
// plus on-demand rental with time-of-use discounts; owned/reserved rental is sunk) over the
// job's expected run (runtime estimate ÷ speed), and data transfer (src/cost/transfer.h:
// dataset, plus checkpoint once it has progressed, × the source region's egress price).
//
// Filter "sun(<inner>)": the inner filter's models, plus, for a movable job,
// Candidates::regions: for each candidate model m, the regions ordered by
//   cost(m, r) = min over centres c of model m in region r with a node big enough of
//                marginal(c, GPUs, now, now + estimate ÷ speed(m))
//                + transfer from the job's declared data region (JobSpec::data_region) to r
// (ties → region index); regions without such a centre are left out.
// Place "sun(<inner>)": the inner placer chooses (model and all, exactly as without +sun);
// then, for a whole-GPU job with Candidates::regions that fits on one node of that model,
// the regions of that model in order, up to the inner placement's own region: the first
// whose best-fit node (place_in_region) has no more wholly free GPUs than the inner
// placement's node wins — a cheaper region is taken only at no loss of packing (breaking
// up a free node there strands gangs; measured in docs/EXPERIMENTS.md) — else the inner
// placement stands. Fractional, CPU-only and multi-node jobs keep the inner placement. A movable
// job thus takes the cheapest region with room now; it does not wait for a full cheap
// region, and the model choice (hetero's, bestfit's) is not second-guessed.
// Relay "sun": at each whole UTC hour (prices change hourly), a running movable job on one
// node, not elastic, not signalled, not moved in this instant, expected to run at least
// `min_remaining_s` more, is priced where it is,
//   stay = marginal(current centre, GPUs, now, expected end),
// and, for every other region with a node of the same model (same speed) that fits now,
//   move = marginal(that centre, GPUs, now, now + restart + left ÷ speed) + transfer,
// where left is the work not yet checkpointed-and-kept (work since the last checkpoint is
// redone; restart = the engine's migration_cost_s). The cheapest move (ties → region
// index) is made (kMigrate) when stay − move > max(min_gain_usd, min_gain_frac × stay): the
// gap over the remaining run pays for checkpoint transfer and restart with a margin, so a
// job does not ping-pong on small differences. It also ranks on-demand nodes for the
// autoscaler (Relay::provision_rank): the marginal cost of one GPU of the node over the next
// hour, so new on-demand capacity — for any queued job, movable or not — lands in the region
// cheapest now rather than in spec order. Deterministic.

#include <memory>

#include "framework/plugins.h"

namespace frugal {

struct SunOptions {
  double min_remaining_s = 3600;  // only jobs expected to run at least this long are relayed
  double min_gain_frac = 0.05;    // relay only for savings above this share of `stay` ...
  double min_gain_usd = 1.0;      // ... and above this many dollars
};

std::unique_ptr<Filter> make_sun_filter(std::unique_ptr<Filter> inner);
std::unique_ptr<Placer> make_sun_placer(std::unique_ptr<Placer> inner);
std::unique_ptr<Relay> make_sun_relay(SunOptions options = {});

struct Profile;
// Wraps p's Filter and Place in sun(...) and sets its Relay (profile suffix +sun).
void add_follow_sun(Profile& p, SunOptions options = {});

}  // namespace frugal
