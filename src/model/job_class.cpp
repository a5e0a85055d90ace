#include "model/job_class.h"

namespace frugal {

std::optional<JobClass> parse_job_class(std::string_view s) {
  for (int i = 0; i < kJobClassCount; ++i)
    if (kJobClassNames[i] == s) return static_cast<JobClass>(i);
  return std::nullopt;
}

std::optional<Tier> parse_tier(std::string_view s) {
  for (int i = 0; i < kTierCount; ++i)
    if (kTierNames[i] == s) return static_cast<Tier>(i);
  return std::nullopt;
}

}  // namespace frugal
