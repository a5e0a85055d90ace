#include "policy/profile.h"
#include <fmt/format.h>

#include <algorithm>

#include "policy/admit_filter.h"
#include "policy/features.h"
#include "policy/placer.h"
#include "policy/post_filter.h"
#include "policy/registry.h"
#include "policy/tiers.h"

namespace frugal {

std::vector<std::string> profile_names() {
  return policy_entry_names(PolicyEntry::Kind::kProfile);
}

std::vector<std::string> profile_options() {
  return policy_entry_names(PolicyEntry::Kind::kSuffix);
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

PolicyParts split_policy(const std::string& policy) {
  PolicyParts parts;
  std::string spec = policy;
  if (const auto plus = spec.find('+'); plus != std::string::npos) {
    std::string rest = spec.substr(plus + 1);
    spec = spec.substr(0, plus);
    while (true) {
      const auto next = rest.find('+');
      parts.suffixes.push_back(rest.substr(0, next));
      if (next == std::string::npos) break;
      rest = rest.substr(next + 1);
    }
  }
  parts.base = spec;
  if (const auto slash = spec.find('/'); slash != std::string::npos) {
    parts.base = spec.substr(0, slash);
    parts.placer = spec.substr(slash + 1);
  }
  if (const auto colon = parts.base.find(':'); colon != std::string::npos) {
    parts.options = parts.base.substr(colon + 1);
    parts.base = parts.base.substr(0, colon);
  }
  return parts;
}

Result<Profile> make_profile(const std::string& policy) {
  using Kind = PolicyEntry::Kind;
  const PolicyParts parts = split_policy(policy);
  const PolicyEntry* entry = find_policy_entry(Kind::kProfile, parts.base);
  if (entry == nullptr)
    return Error{fmt::format("unknown policy '{}'; known: {}", parts.base,
                             fmt::join(profile_names(), ", "))};
  if (!parts.options.empty() && entry->options.empty())
    return Error{fmt::format("policy '{}' takes no options", parts.base)};
  auto values = parse_options(entry->options, parts.options, entry->name);
  if (!values.ok()) return values.error();
  FeatureSet features;
  Profile p = entry->build(values.value(), features);
  p.name = policy;
  if (!parts.placer.empty()) {
    const PolicyEntry* placer = find_policy_entry(Kind::kPlacer, parts.placer);
    if (placer == nullptr)
      return Error{fmt::format("unknown placement '{}' in policy '{}'; known: {}", parts.placer,
                               policy, fmt::join(policy_entry_names(Kind::kPlacer), ", "))};
    placer->apply(p, features);
  }
  for (const std::string& name : parts.suffixes) {
    const PolicyEntry* suffix = find_policy_entry(Kind::kSuffix, name);
    if (suffix == nullptr)
      return Error{fmt::format("unknown option '+{}' in policy '{}'; known: +{}", name, policy,
                               fmt::join(profile_options(), ", +"))};
    suffix->apply(p, features);
  }
  add_features(p, features);
  return p;
}

}  // namespace frugal
