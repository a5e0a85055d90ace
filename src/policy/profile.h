#pragma once
// A profile composes one plugin per extension point. Baselines are profiles, so every
// comparison runs through the same pipeline:
//
//   profile    QueueSort  PostFilter     Preempt         Place
//   fifo       arrival    strict         -               bestfit
//   backfill   arrival    easy-backfill  -               bestfit
//   sjf        shortest   skip           -               bestfit
//   las        las        skip           priority-order  bestfit
//   firstfit   arrival    skip           -               firstfit
//   bestfit    arrival    skip           -               bestfit
//   frugal-place arrival  easy-backfill  -               hetero-fast (src/policy/hetero.h)
//   gavel      arrival    skip           -               gavel max-min LP (src/policy/gavel.h)
//   tiers      tier       easy-backfill  tier-preempt    bestfit (src/policy/tiers.h)
//   timeshift  arrival    easy-backfill  -               bestfit
//   frugal     tier-shortest easy-backfill tier-preempt  hetero-fast + ordered bestfit, with
//              time-shift, consolidation, pack-down and soon-free (src/policy/frugal_profile.h)
//
// Every profile uses Admit "capacity" except timeshift, whose Admit "time-shift" defers
// deferrable jobs to cheap hours within their deadline (src/policy/time_shift.h); its
// options follow the name: "timeshift:max_delay_s=43200:min_saving=0.05". Filter is
// "model-constraint" except for frugal-place ("hetero-fast") and gavel ("gavel"). A policy string
// may override the placer: "backfill/firstfit" is backfill with firstfit placement; "POLICY/hetero"
// and "POLICY/hetero-fast" swap in that Filter and an order-honouring bestfit
// ("backfill/hetero-fast" = frugal-place).
//
// Options follow as "+name" suffixes, after the placer if any:
//   +consolidate  adds the Consolidate point (src/policy/consolidate.h): migrate small
//                 jobs to free whole cards for a queued gang blocked by fragmentation
//   +elastic      resizes elastic jobs (JobSpec::max_gpus > gpus) while they run: grow
//                 into idle whole GPUs, shrink to make room for a queued job (kResize)
//   +packdown     on an autoscaled cluster with nothing queued, migrates the jobs off a
//                 lightly used on-demand node onto fuller (or reserved) nodes when the node
//                 time saved exceeds the moves' cost, so the autoscaler can release it
//   +sun          follow-the-sun for movable jobs (JobSpec::movable; src/policy/follow_sun.h):
//                 wraps the Filter and Place so they order regions by expected cost
//                 (energy × PUE at hourly prices, on-demand rental, data transfer), and adds
//                 the Relay point that moves long jobs to a cheaper region when it pays
//   +soonfree     the autoscaler does not provision for queued demand that running jobs of
//                 the model are expected to free within its on-demand pools' provisioning
//                 delay (the job would wait as long for a new node)
//   +tou          time-of-use elastic sizing (implies +elastic; src/policy/tou_sizing.cpp):
//                 elastic jobs on on-demand nodes grow onto new nodes in their region's
//                 discounted off-peak hours when that costs less than doing the work later
//                 at the full rate, and outside them hold no more than they need
//   frugal        the combined profile (src/policy/frugal_profile.h)
// e.g. "bestfit+consolidate", "backfill/firstfit+consolidate". Any profile, including
// frugal profiles added later, takes the suffix: it composes, it is not a profile.

#include <memory>
#include <string>
#include <vector>

#include "framework/profile.h"
#include "model/result.h"
#include "policy/tiers.h"

namespace frugal {

// Builds the profile named by `policy` ("name", "name/placer", each optionally followed by
// "+option" suffixes). Error lists valid names.
Result<Profile> make_profile(const std::string& policy);
std::vector<std::string> profile_names();
// Option suffixes a policy string may carry ("consolidate", "elastic").
std::vector<std::string> profile_options();
// The `tiers` profile with non-default options (grace, starvation guard, bounds).
Profile make_tiers_profile(const TierOptions& o);

}  // namespace frugal
