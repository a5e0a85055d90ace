#pragma once
// Policy strings → profiles. A profile composes one plugin per extension point plus its cycle
// plugins; baselines are profiles, so every comparison runs through the same pipeline.
//
//   POLICY := NAME[:key=value[:key=value...]][/PLACER][+SUFFIX[+SUFFIX...]]
//
// e.g. "fifo", "backfill/firstfit", "bestfit+consolidate", "timeshift:max_delay_s=43200",
// "frugal:tou=0+sun". NAME, PLACER and SUFFIX name entries of the registry
// (policy/registry.cpp) — `frugal policies` lists them all with their help, their pipeline
// and every option with its default. Options are typed (framework/options.h); a suffix
// composes with any profile, including frugal profiles added later.

#include <memory>
#include <string>
#include <vector>

#include "framework/profile.h"
#include "model/result.h"
#include "policy/tiers.h"

namespace frugal {

// The parts of a policy string (grammar above), unchecked.
struct PolicyParts {
  std::string base;     // NAME
  std::string options;  // after ':' ("key=value:key=value"), may be empty
  std::string placer;   // after '/', may be empty
  std::vector<std::string> suffixes;
};
PolicyParts split_policy(const std::string& policy);

// Builds the profile `policy` names. Errors name the unknown part and list valid names, or
// name the option item that does not parse.
Result<Profile> make_profile(const std::string& policy);
std::vector<std::string> profile_names();
// The profile names, and the suffixes a policy string may carry ("consolidate", ...).
std::vector<std::string> profile_options();
// The `tiers` profile with non-default options (grace, starvation guard, bounds).
Profile make_tiers_profile(const TierOptions& o);

}  // namespace frugal
