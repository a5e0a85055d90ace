#include "policy/registry.h"

#include <algorithm>

#include "policy/admit_filter.h"
#include "policy/consolidate.h"
#include "policy/follow_sun.h"
#include "policy/frugal_profile.h"
#include "policy/gavel.h"
#include "policy/hetero.h"
#include "policy/placer.h"
#include "policy/post_filter.h"
#include "policy/preempt.h"
#include "policy/queue_sort.h"
#include "policy/recorded.h"
#include "policy/tiers.h"
#include "policy/time_shift.h"

namespace frugal {
namespace {

using Kind = PolicyEntry::Kind;

// Admit capacity, Filter model-constraint, Place bestfit: what every profile starts from.
Profile base(std::unique_ptr<QueueSort> sort, std::unique_ptr<PostFilter> post) {
  Profile p;
  p.admit = make_capacity_admit();
  p.filter = make_model_filter();
  p.placer = make_best_fit_placer();
  p.sort = std::move(sort);
  p.post_filter = std::move(post);
  return p;
}

PolicyEntry profile(std::string name, std::string help,
                    std::function<Profile(const OptionValues&, FeatureSet&)> build,
                    std::vector<OptionSpec> options = {}) {
  PolicyEntry e;
  e.kind = Kind::kProfile;
  e.name = std::move(name);
  e.help = std::move(help);
  e.options = std::move(options);
  e.build = std::move(build);
  return e;
}

PolicyEntry modifier(Kind kind, std::string name, std::string help,
                     std::function<void(Profile&, FeatureSet&)> apply) {
  PolicyEntry e;
  e.kind = kind;
  e.name = std::move(name);
  e.help = std::move(help);
  e.apply = std::move(apply);
  return e;
}

// The hetero filter orders the models, an order-honouring bestfit follows the order.
void hetero(Profile& p, AuxOrder order) {
  p.filter = make_hetero_filter(order);
  p.placer = make_ordered_placer(make_best_fit_placer());
}

std::vector<PolicyEntry> profiles() {
  using F = FeatureSet;
  using V = OptionValues;
  std::vector<PolicyEntry> out;
  out.push_back(
      profile("fifo", "arrival order; nothing passes a job that does not fit",
              [](const V&, F&) { return base(make_arrival_sort(), make_strict_post_filter()); }));
  out.push_back(
      profile("backfill",
              "arrival order with EASY backfill: later jobs start when they do not "
              "delay the first blocked one",
              [](const V&, F&) { return base(make_arrival_sort(), make_easy_backfill()); }));
  out.push_back(
      profile("sjf", "shortest runtime estimate first; a job that does not fit is skipped",
              [](const V&, F&) { return base(make_shortest_sort(), make_skip_post_filter()); }));
  out.push_back(profile("las",
                        "least attained service (Tiresias-style): jobs drop in priority as "
                        "they run and are preempted for higher-priority work",
                        [](const V&, F&) {
                          Profile p = base(make_las_sort(), make_skip_post_filter());
                          p.preempt = make_priority_order_preempt();
                          return p;
                        }));
  for (const char* fit : {"firstfit", "bestfit"})
    out.push_back(
        profile(fit, std::string("arrival order, skip, placement ") + fit, [fit](const V&, F&) {
          Profile p = base(make_arrival_sort(), make_skip_post_filter());
          p.placer = make_placer(fit);
          return p;
        }));
  out.push_back(profile("frugal-place",
                        "backfill with heterogeneity-aware placement (hetero-fast): core work "
                        "where it finishes soonest, auxiliary work fastest first",
                        [](const V&, F&) {
                          Profile p = base(make_arrival_sort(), make_easy_backfill());
                          hetero(p, AuxOrder::kFastest);
                          return p;
                        }));
  out.push_back(profile("gavel",
                        "arrival order with Gavel-style max-min fair model allocation (LP)",
                        [](const V&, F&) {
                          Profile p = base(make_arrival_sort(), make_skip_post_filter());
                          p.filter = make_gavel_filter();
                          p.placer = make_ordered_placer(make_best_fit_placer());
                          return p;
                        }));
  out.push_back(profile("tiers",
                        "priority tiers (core > important > general) with a starvation guard "
                        "and checkpoint-first preemption of lower tiers",
                        [](const V&, F&) {
                          Profile p = base(make_tier_sort(), make_easy_backfill());
                          p.preempt = make_tier_preempt();
                          return p;
                        }));
  out.push_back(profile(
      "timeshift",
      "backfill whose admission defers deferrable jobs to the cheapest hour before their "
      "deadline",
      [](const V& v, F&) {
        Profile p = base(make_arrival_sort(), make_easy_backfill());
        p.admit = make_time_shift_admit(time_shift_options(v));
        return p;
      },
      time_shift_option_specs()));
  out.push_back(profile(
      "frugal",
      "the product default: tiers, shortest first, time-shift, hetero-fast placement, "
      "consolidation, elastic and time-of-use sizing, pack-down, soon-free, prompt release, "
      "follow-the-sun",
      [](const V& v, F& features) {
        const FrugalOptions o = frugal_options(v);
        features = frugal_features(o);
        return make_frugal_profile_base(o);
      },
      frugal_option_specs()));
  out.push_back(profile("recorded",
                        "what actually happened: each job starts at its recorded first start "
                        "(trace column first_start), or as soon after as it fits; the actual "
                        "row of frugal whatif",
                        [](const V&, F&) {
                          Profile p = base(make_recorded_sort(), make_skip_post_filter());
                          p.admit = make_recorded_admit();
                          return p;
                        }));
  return out;
}

std::vector<PolicyEntry> placers() {
  std::vector<PolicyEntry> out;
  for (const std::string& name : placer_names())
    out.push_back(modifier(Kind::kPlacer, name, "Place " + name + " instead of the profile's",
                           [name](Profile& p, FeatureSet&) { p.placer = make_placer(name); }));
  out.push_back(modifier(Kind::kPlacer, "hetero",
                         "Filter hetero (cost per unit of work) with an order-honouring bestfit",
                         [](Profile& p, FeatureSet&) { hetero(p, AuxOrder::kCostPerWork); }));
  out.push_back(modifier(Kind::kPlacer, "hetero-fast",
                         "Filter hetero-fast (fastest first) with an order-honouring bestfit",
                         [](Profile& p, FeatureSet&) { hetero(p, AuxOrder::kFastest); }));
  return out;
}

std::vector<PolicyEntry> suffixes() {
  std::vector<PolicyEntry> out;
  const auto add = [&](const char* name, const char* help,
                       std::function<void(Profile&, FeatureSet&)> apply) {
    out.push_back(modifier(Kind::kSuffix, name, help, std::move(apply)));
  };
  add("consolidate",
      "migrate small jobs to free whole GPUs for a queued gang blocked by fragmentation",
      [](Profile& p, FeatureSet&) { p.consolidate = make_consolidate(); });
  add("datasets",
      "place jobs that declare datasets near them and stage a deferred job's datasets before "
      "its planned start (on in frugal; adds no word to the description)",
      [](Profile&, FeatureSet& f) { f.datasets = true; });
  add("elastic",
      "resize elastic jobs (max_gpus > gpus) while they run: grow into idle GPUs, shrink for "
      "queued work",
      [](Profile&, FeatureSet& f) { f.elastic = true; });
  add("packdown",
      "with nothing queued, empty lightly used on-demand nodes by migration so the autoscaler "
      "can release them",
      [](Profile&, FeatureSet& f) { f.pack_down = true; });
  add("release", "hand an idle on-demand node back at once rather than after its idle timeout",
      [](Profile&, FeatureSet& f) { f.prompt_release = true; });
  add("soonfree", "do not provision for queued demand that running jobs free within the boot delay",
      [](Profile&, FeatureSet& f) { f.soon_free = true; });
  add("sun", "follow-the-sun: place and relay movable jobs in the region cheapest over their run",
      [](Profile& p, FeatureSet&) {
        if (!p.relay) add_follow_sun(p);
      });
  add("tou", "time-of-use sizing of elastic jobs on on-demand nodes (implies +elastic)",
      [](Profile&, FeatureSet& f) { f.tou = f.elastic = true; });
  return out;
}

}  // namespace

const std::vector<PolicyEntry>& policy_registry() {
  static const std::vector<PolicyEntry> kEntries = [] {
    std::vector<PolicyEntry> all = profiles();
    for (auto* more : {placers, suffixes})
      for (PolicyEntry& e : more()) all.push_back(std::move(e));
    return all;
  }();
  return kEntries;
}

const PolicyEntry* find_policy_entry(PolicyEntry::Kind kind, std::string_view name) {
  const auto& all = policy_registry();
  const auto it = std::find_if(all.begin(), all.end(), [&](const PolicyEntry& e) {
    return e.kind == kind && e.name == name;
  });
  return it == all.end() ? nullptr : &*it;
}

std::vector<std::string> policy_entry_names(PolicyEntry::Kind kind) {
  std::vector<std::string> out;
  for (const PolicyEntry& e : policy_registry())
    if (e.kind == kind) out.push_back(e.name);
  return out;
}

}  // namespace frugal
