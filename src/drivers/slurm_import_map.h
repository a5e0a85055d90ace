#pragma once
// How `frugal import slurm` names what Slurm's accounting does not say in frugal's terms
// (docs/WHATIF.md): tiers from QOS and partition, the team from account or user, a job
// class per partition or QOS, the GPU models a partition allows, and GRES types as catalog
// models. The defaults apply without a map file; a file (`--map`, YAML) replaces the tables
// it gives:
//
//   tiers:
//     qos: {high: core, normal: general}   # replaces the default QOS table
//     partition: {prod: important}
//     default: general                     # neither matched
//   teams: account                         # account (else user), or user (else account)
//   classes:
//     partition: {debug: eval, etl: preprocess}
//     qos: {}
//     default: pretrain
//   partitions:
//     h100: {models: [H100]}               # allowed models of the partition's jobs
//   gpu_types: {hopper: H100}              # GRES type → catalog model (beside the defaults)
//
// A job's tier is its QOS's entry, else its partition's, else `default`; likewise its class.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/gpu_catalog.h"
#include "model/job_class.h"
#include "model/result.h"

namespace frugal {

struct SlurmImportMap {
  // The default QOS table: frugal's own tier names, and common QOS names. "normal" is not
  // in it, so the partition table decides for the usual QOS.
  std::map<std::string, Tier> tier_by_qos = {
      {"core", Tier::kCore},          {"important", Tier::kImportant}, {"general", Tier::kGeneral},
      {"high", Tier::kCore},          {"urgent", Tier::kCore},         {"medium", Tier::kImportant},
      {"low", Tier::kGeneral},        {"scavenger", Tier::kGeneral},   {"standby", Tier::kGeneral},
      {"preemptible", Tier::kGeneral}};
  std::map<std::string, Tier> tier_by_partition;
  Tier default_tier = Tier::kGeneral;
  bool team_from_user = false;  // teams: user
  std::map<std::string, JobClass> class_by_partition, class_by_qos;
  JobClass default_class = JobClass::kPretrain;
  std::map<std::string, std::vector<GpuModelId>> partition_models;
  std::map<std::string, std::string> gpu_types;  // GRES type → catalog model name

  Tier tier(const std::string& qos, const std::string& partition) const;
  JobClass job_class(const std::string& qos, const std::string& partition) const;
};

// Reads a map file's text. Errors name the origin, the key path and the line; unknown keys,
// tiers, classes and GPU models are errors.
Result<SlurmImportMap> parse_import_map_yaml(std::string_view text, const std::string& origin,
                                             const GpuCatalog& catalog);

}  // namespace frugal
