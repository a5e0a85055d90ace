#include "policy/profile.h"

#include <fmt/format.h>

#include <algorithm>

#include "policy/admit_filter.h"
#include "policy/consolidate.h"
#include "policy/features.h"
#include "policy/follow_sun.h"
#include "policy/frugal_profile.h"
#include "policy/gavel.h"
#include "policy/hetero.h"
#include "policy/placer.h"
#include "policy/post_filter.h"
#include "policy/preempt.h"
#include "policy/queue_sort.h"
#include "policy/tiers.h"
#include "policy/time_shift.h"

namespace frugal {

std::vector<std::string> profile_names() {
  return {"fifo",         "backfill", "sjf",   "las",       "firstfit", "bestfit",
          "frugal-place", "gavel",    "tiers", "timeshift", "frugal"};
}

std::vector<std::string> profile_options() {
  return {"consolidate", "elastic", "packdown", "release", "soonfree", "sun", "tou"};
}

std::string Profile::describe() const {
  std::string d = fmt::format("sort={} admit={} filter={} place={} postfilter={} preempt={}",
                              sort->name(), admit->name(), filter->name(), placer->name(),
                              post_filter->name(), preempt ? preempt->name() : "none");
  if (consolidate) d += " consolidate=" + consolidate->name();
  if (relay) d += " relay=" + relay->name();
  // Cycle plugins' words in a fixed order (reports compare profiles by this string).
  std::vector<std::string> words;
  for (const auto& plugin : plugins)
    for (std::string& w : plugin->describe_words()) words.push_back(std::move(w));
  for (const char* w : {"elastic", "packdown", "soonfree", "release", "autoscale-first", "tou"})
    if (std::erase(words, w) > 0) d += fmt::format(" {}", w);
  for (const std::string& w : words) d += " " + w;
  return d;
}

bool Profile::prompt_release() const {
  return std::any_of(plugins.begin(), plugins.end(),
                     [](const auto& plugin) { return plugin->prompt_release(); });
}

Profile make_tiers_profile(const TierOptions& o) {
  Profile p;
  p.name = "tiers";
  p.admit = make_capacity_admit();
  p.filter = make_model_filter();
  p.placer = make_best_fit_placer();
  p.sort = make_tier_sort(o.starvation_s);
  p.post_filter = make_easy_backfill();
  p.preempt = make_tier_preempt(o);
  return p;
}

Result<Profile> make_profile(const std::string& policy) {
  std::string spec = policy;
  std::vector<std::string> options;
  if (const auto plus = spec.find('+'); plus != std::string::npos) {
    std::string rest = spec.substr(plus + 1);
    spec = spec.substr(0, plus);
    while (true) {
      const auto next = rest.find('+');
      options.push_back(rest.substr(0, next));
      if (next == std::string::npos) break;
      rest = rest.substr(next + 1);
    }
  }
  std::string base = spec, placer_name;
  if (const auto slash = spec.find('/'); slash != std::string::npos) {
    base = spec.substr(0, slash);
    placer_name = spec.substr(slash + 1);
  }
  std::string params;  // "name:key=value:key=value"
  if (const auto colon = base.find(':'); colon != std::string::npos) {
    params = base.substr(colon + 1);
    base = base.substr(0, colon);
  }
  if (!params.empty() && base != "timeshift" && base != "frugal")
    return Error{fmt::format("policy '{}' takes no options", base)};
  Profile p;
  FeatureSet features;
  p.name = policy;
  p.admit = make_capacity_admit();
  p.filter = make_model_filter();
  p.placer = make_best_fit_placer();
  if (base == "fifo") {
    p.sort = make_arrival_sort();
    p.post_filter = make_strict_post_filter();
  } else if (base == "backfill") {
    p.sort = make_arrival_sort();
    p.post_filter = make_easy_backfill();
  } else if (base == "sjf") {
    p.sort = make_shortest_sort();
    p.post_filter = make_skip_post_filter();
  } else if (base == "las") {
    p.sort = make_las_sort();
    p.post_filter = make_skip_post_filter();
    p.preempt = make_priority_order_preempt();
  } else if (base == "tiers") {
    p.sort = make_tier_sort();
    p.post_filter = make_easy_backfill();
    p.preempt = make_tier_preempt();
  } else if (base == "frugal-place") {
    p.sort = make_arrival_sort();
    p.post_filter = make_easy_backfill();
    p.filter = make_hetero_filter(AuxOrder::kFastest);
    p.placer = make_ordered_placer(make_best_fit_placer());
  } else if (base == "gavel") {
    p.sort = make_arrival_sort();
    p.post_filter = make_skip_post_filter();
    p.filter = make_gavel_filter();
    p.placer = make_ordered_placer(make_best_fit_placer());
  } else if (base == "timeshift") {
    auto o = parse_time_shift_options(params);
    if (!o.ok()) return Error{o.error().message};
    p.sort = make_arrival_sort();
    p.post_filter = make_easy_backfill();
    p.admit = make_time_shift_admit(o.value());
  } else if (base == "frugal") {
    auto o = parse_frugal_options(params);
    if (!o.ok()) return Error{o.error().message};
    p = make_frugal_profile_base(o.value());
    features = frugal_features(o.value());
    p.name = policy;
  } else if (base == "firstfit" || base == "bestfit") {
    p.sort = make_arrival_sort();
    p.post_filter = make_skip_post_filter();
    p.placer = make_placer(base);
  } else {
    return Error{
        fmt::format("unknown policy '{}'; known: {}", base, fmt::join(profile_names(), ", "))};
  }
  if (placer_name == "hetero" || placer_name == "hetero-fast") {
    // Not a bare placer: the hetero filter orders the models, the placer honours the order.
    p.filter =
        make_hetero_filter(placer_name == "hetero" ? AuxOrder::kCostPerWork : AuxOrder::kFastest);
    p.placer = make_ordered_placer(make_best_fit_placer());
  } else if (!placer_name.empty()) {
    p.placer = make_placer(placer_name);
    if (!p.placer)
      return Error{
          fmt::format("unknown placement '{}' in policy '{}'; known: {}, hetero, hetero-fast",
                      placer_name, policy, fmt::join(placer_names(), ", "))};
  }
  for (const std::string& o : options) {
    if (o == "consolidate") {
      p.consolidate = make_consolidate();
    } else if (o == "elastic") {
      features.elastic = true;
    } else if (o == "packdown") {
      features.pack_down = true;
    } else if (o == "soonfree") {
      features.soon_free = true;
    } else if (o == "release") {
      features.prompt_release = true;
    } else if (o == "tou") {
      features.tou = features.elastic = true;  // sizes elastic jobs: implies +elastic
    } else if (o == "sun") {
      if (!p.relay) add_follow_sun(p);
    } else {
      return Error{fmt::format("unknown option '+{}' in policy '{}'; known: +{}", o, policy,
                               fmt::join(profile_options(), ", +"))};
    }
  }
  add_features(p, features);
  return p;
}

}  // namespace frugal
