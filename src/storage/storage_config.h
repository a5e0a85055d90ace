#pragma once
// The storage manager's configuration (the `storage:` section of a serve config): tiers as
// real folders, lifecycle policies per team, the checkpoint completion convention.
// Plain data; parse_storage_yaml (storage_yaml.h) fills it, validate() checks it against the
// file system before the manager opens.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/result.h"
#include "storage/plan/lifecycle.h"

namespace frugal::storage {

struct TierConfig {
  std::string name;             // "hot" | "warm" | "cold"
  std::string path;             // a folder (hot: node-local NVMe; warm: shared FS; cold: archive)
  std::string standby_path;     // optional: where writes go while `path` is unavailable
  uint64_t capacity_bytes = 0;  // 0: unlimited
  double usd_per_gb_month = 0;
  double read_mb_s = 0;   // 0: unknown
  double write_mb_s = 0;  // 0: unknown
  // Cold tier only, optional: an external command that copies a finished folder to an
  // object store after it landed in `path` (e.g. "aws s3 sync {src} s3://bucket/{rel}"),
  // run with {src} and {rel} substituted. Empty: the cold tier is the folder `path` only.
  std::string mover_command;
  // USD per GB (1e9 bytes) read out of this tier into another (a cold archive's retrieval
  // fee, an object store's egress); 0: free. Priced by bytes moved logically (storage_bill.h).
  double transfer_usd_per_gb = 0;
};

struct StorageConfig {
  bool enabled = false;
  std::vector<TierConfig> tiers;  // at most one per name; hot and warm are required when enabled
  LifecyclePolicy default_policy;
  std::map<std::string, LifecyclePolicy> team_policies;  // team -> policy
  std::string marker = "FRUGAL_COMPLETE";  // a checkpoint folder holding this file is complete
  double lifecycle_interval_s = 300;       // how often the service runs the lifecycle
  // Folders under which a team may register datasets through the service (POST /v1/datasets;
  // the real path, symbolic links resolved, must lie inside one). Empty: only the admin may
  // register. The admin and `frugal storage dataset add` may name any path.
  std::vector<std::string> dataset_roots;
  // A file set on the hot tier not used for this long (checkpoints: since completion or last
  // use) is waste category hot_unused in the bill (storage_bill.h).
  double hot_unused_after_s = 7 * 86400.0;
};

// The tier of that name, or nullptr.
const TierConfig* find_tier(const StorageConfig& config, const std::string& name);

// The policy of `team` (team_policies, else default_policy).
const LifecyclePolicy& policy_for(const StorageConfig& config, const std::string& team);

// Checks the configuration against the file system: tier names known and unique, hot and warm
// present, every tier path (and standby_path when set) exists, is a directory and is writable
// (a probe file is created and removed), capacities and prices sane, marker non-empty.
// Errors name the tier and field, e.g. "storage.tiers.warm.path: /x does not exist".
Status validate(const StorageConfig& config);

// One folder's usability as validate() checks it ("" when fine, else the reason, e.g.
// "/x does not exist", "/x is not writable: Permission denied").
std::string check_folder(const std::string& path);

}  // namespace frugal::storage
