#pragma once
// The `storage:` section of a serve config as YAML:
//
//   storage:
//     enabled: true                   # default true when the section is present
//     tiers:                          # hot and warm required; cold optional
//       hot:  {path: /nvme/frugal, capacity_gb: 2000, usd_per_gb_month: 0.10,
//              read_mb_s: 3000, write_mb_s: 2000, standby_path: /nvme2/frugal}
//       warm: {path: /shared/frugal, usd_per_gb_month: 0.03}
//       cold: {path: /archive/frugal, usd_per_gb_month: 0.004,
//              transfer_usd_per_gb: 0.02,   # read out of this tier (default 0, >= 0)
//              mover_command: "aws s3 sync {src} s3://bucket/{rel}"}
//     lifecycle: {keep_hot: 2, warm_after_s: 21600, cold_after_s: 604800,
//                 retain_count: 0, retain_age_s: 0}   # the default policy
//     team_policies: {nlp: {keep_hot: 3, retain_count: 10}}  # fields not given: lifecycle's
//     checkpoint_marker: FRUGAL_COMPLETE
//     lifecycle_interval_s: 300
//     hot_unused_after_s: 604800      # hot data unused this long is waste (default 7 days)
//
// capacity_gb (GB = 1e9 bytes) or capacity_bytes; 0 or absent: unlimited. Unknown keys are
// errors. Only parses: validate() (storage_config.h) checks the folders.

#include <yaml-cpp/yaml.h>

#include <string>

#include "model/result.h"
#include "storage/storage_config.h"

namespace frugal::storage {

// `node` is the value of `storage:`; `where` names the file for errors
// ("serve.yaml: storage.tiers.hot.capacity_gb: expected a number").
Result<StorageConfig> parse_storage_yaml(const YAML::Node& node, const std::string& where);

}  // namespace frugal::storage
