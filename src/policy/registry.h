#pragma once
// The registry of everything a policy string may name: profiles ("fifo", "frugal"),
// placers (after '/', "backfill/firstfit") and suffixes (after '+', "bestfit+consolidate"),
// each with one line of help and, for profiles, typed options (framework/options.h) given as
// "name:key=value:key=value". make_profile (profile.h) builds from it, and `frugal policies`
// lists it, so the listing is generated from the code that builds. Adding a profile, placer
// or suffix is one entry in registry.cpp.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/options.h"
#include "framework/profile.h"
#include "model/result.h"
#include "policy/features.h"

namespace frugal {

struct PolicyEntry {
  enum class Kind { kProfile, kPlacer, kSuffix };
  Kind kind = Kind::kProfile;
  std::string name;
  std::string help;
  std::vector<OptionSpec> options;  // kProfile only; empty: takes no options
  // kProfile: the profile for parsed options; cycle plugins go into `features` (built last,
  // after the suffixes add theirs).
  std::function<Profile(const OptionValues&, FeatureSet&)> build;
  // kPlacer, kSuffix: applied to the profile built so far.
  std::function<void(Profile&, FeatureSet&)> apply;
};

// Every entry, profiles first, in listing order.
const std::vector<PolicyEntry>& policy_registry();
// The entry of that kind and name; nullptr when none.
const PolicyEntry* find_policy_entry(PolicyEntry::Kind kind, std::string_view name);
// The names of one kind, in listing order.
std::vector<std::string> policy_entry_names(PolicyEntry::Kind kind);

}  // namespace frugal
