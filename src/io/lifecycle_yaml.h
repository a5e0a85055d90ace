#pragma once
// Checkpoint lifecycle policies for the simulator (`simulate --storage-lifecycle FILE`,
// `frugal storage-cost`), in the keys of the service's `storage:` section:
//
//   lifecycle: {keep_hot: 2, warm_after_s: 3600, cold_after_s: 86400,
//               retain_count: 20, retain_age_s: 0}     # the default policy
//   team_policies: {nlp: {keep_hot: 3}}                # fields not given: lifecycle's
//   lifecycle_interval_s: 300                          # the sweep period
//
// The file may also be a whole serve config: then its `storage:` section is read and the
// keys that describe real folders (enabled, tiers, checkpoint_marker) are ignored. Fields
// left out take LifecyclePolicy's defaults. Errors name the file, field, line and column.

#include <string>
#include <string_view>

#include "model/result.h"
#include "storage/plan/lifecycle_policies.h"

namespace frugal {

// keep_hot >= 0, retain_count >= 0, retain_age_s >= 0, lifecycle_interval_s > 0; unknown
// keys are errors.
Result<storage::LifecyclePolicies> parse_lifecycle_yaml(std::string_view text,
                                                        const std::string& origin);
Result<storage::LifecyclePolicies> load_lifecycle_file(const std::string& path);

}  // namespace frugal
