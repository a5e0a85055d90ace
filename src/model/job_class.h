#pragma once
// Job classes and priority tiers, with their canonical names for files and reports.

#include <array>
#include <optional>
#include <string_view>

namespace frugal {

// What kind of work a job is; GPU speed is given per class (see GpuModel::speed).
enum class JobClass : uint8_t { kPretrain = 0, kFinetune = 1, kEval = 2, kPreprocess = 3 };
inline constexpr int kJobClassCount = 4;
inline constexpr std::array<std::string_view, kJobClassCount> kJobClassNames = {
    "pretrain", "finetune", "eval", "preprocess"};

// Priority tier: core > important > general. Lower enum value = higher priority.
enum class Tier : uint8_t { kCore = 0, kImportant = 1, kGeneral = 2 };
inline constexpr int kTierCount = 3;
inline constexpr std::array<std::string_view, kTierCount> kTierNames = {"core", "important",
                                                                        "general"};

inline std::string_view to_string(JobClass c) {
  return kJobClassNames[static_cast<int>(c)];
}
inline std::string_view to_string(Tier t) {
  return kTierNames[static_cast<int>(t)];
}

// Parses a canonical name (lower case); nullopt when unknown.
std::optional<JobClass> parse_job_class(std::string_view s);
std::optional<Tier> parse_tier(std::string_view s);

}  // namespace frugal
