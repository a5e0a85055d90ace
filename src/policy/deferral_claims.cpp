#include "policy/deferral_claims.h"

#include <algorithm>
#include <utility>

namespace frugal {

void DeferralClaims::release(const std::string& job) {
  std::erase_if(claims_, [&](const Claim& c) { return c.job == job; });
}

void DeferralClaims::claim(const std::string& job, uint32_t centre, Seconds from, Seconds to,
                           double gpus) {
  if (to > from && gpus > 0) claims_.push_back({job, centre, from, to, gpus});
}

double DeferralClaims::peak(uint32_t centre, Seconds from, Seconds to,
                            const std::string& job) const {
  // Sweep the overlapping claims' starts (clipped to `from`) and ends; at equal times an
  // end comes before a start, so back-to-back claims do not add up.
  std::vector<std::pair<Seconds, double>> steps;
  for (const Claim& c : claims_)
    if (c.centre == centre && c.from < to && c.to > from && c.job != job) {
      steps.emplace_back(std::max(c.from, from), c.gpus);
      steps.emplace_back(c.to, -c.gpus);
    }
  std::sort(steps.begin(), steps.end());
  double now = 0, most = 0;
  for (const auto& [t, d] : steps) most = std::max(most, now += d);
  return most;
}

void DeferralClaims::expire(Seconds now) {
  std::erase_if(claims_, [&](const Claim& c) { return c.to <= now; });
}

}  // namespace frugal
