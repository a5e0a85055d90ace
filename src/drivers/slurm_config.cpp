#include "drivers/slurm_config.h"

namespace frugal {

const GresMapping* SlurmConfig::by_gres_type(const std::string& type) const {
  for (const auto& m : gpu_map)
    if (m.gres_type == type) return &m;
  return nullptr;
}

const GresMapping* SlurmConfig::by_model(const std::string& model) const {
  for (const auto& m : gpu_map)
    if (m.model == model) return &m;
  return nullptr;
}

int64_t SlurmConfig::priority_for_tier(const std::string& tier) const {
  if (tier == "core") return priority_core;
  if (tier == "important") return priority_important;
  return priority_general;
}

}  // namespace frugal
