#pragma once
// A policy in YAML (the service config's `policy:` key), as a policy string
// (policy/profile.h). Either the string itself, or a map with the parts spelled out:
//
//   policy:
//     name: frugal              # a profile (`frugal policies` lists them)
//     options: {tou: 0, max_delay_s: 43200}   # its typed options; booleans as 0/1
//     placer: firstfit          # optional, as "/firstfit"
//     suffixes: [consolidate]   # optional, as "+consolidate"
//
// The options are checked by make_profile against the profile's declared types and bounds.
// Missing, null or "" → default_profile_name().

#include <yaml-cpp/yaml.h>

#include <string>

namespace frugal {

// The policy string `n` describes. Throws YAML::Exception (with the node's line) on a shape
// it cannot read: a map key other than the four above, a missing name, an option that is not
// a scalar, a suffix list that is not a list of strings.
std::string policy_text(const YAML::Node& n);

}  // namespace frugal
