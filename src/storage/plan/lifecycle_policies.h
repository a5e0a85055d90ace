#pragma once
// The lifecycle policies of a storage configuration as the simulator uses them: a default
// policy, per-team overrides and the sweep period. The same keys as the service's `storage:`
// section (storage/storage_yaml.h); io/lifecycle_yaml.h reads them from a file. Plain data.

#include <map>
#include <string>

#include "storage/plan/lifecycle.h"

namespace frugal::storage {

struct LifecyclePolicies {
  LifecyclePolicy default_policy;
  std::map<std::string, LifecyclePolicy> team_policies;  // team -> policy
  double sweep_s = 300;  // how often the lifecycle runs (the service's lifecycle_interval_s)

  // The team's policy, else the default.
  const LifecyclePolicy& for_team(const std::string& team) const {
    auto it = team_policies.find(team);
    return it == team_policies.end() ? default_policy : it->second;
  }
};

}  // namespace frugal::storage
