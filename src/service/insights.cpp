#include "service/insights.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace frugal {

std::vector<RightSizing> right_sizing(const std::vector<SizedJob>& jobs) {
  struct Sum {
    RightSizing r;
    double weight = 0, asked = 0, busy = 0;
    int64_t card_mib = 0;
  };
  std::map<std::pair<std::string, std::string>, Sum> by_key;
  for (const SizedJob& j : jobs) {
    if (j.utilization < 0 || j.gpus <= 0) continue;
    Sum& s = by_key[{j.team, j.key}];
    s.r.team = j.team;
    s.r.key = j.key;
    ++s.r.jobs;
    // A job measured at its first sample has run ~0 s: it still counts, a little.
    const double w = j.gpus * std::max(j.run_s, 1.0);
    s.weight += w;
    s.asked += j.gpus * w;
    s.busy += std::clamp(j.utilization, 0.0, 1.0) * w;
    s.r.gpu_hours += j.gpus * j.run_s / 3600;
    s.r.memory_used_mib = std::max(s.r.memory_used_mib, j.memory_mib);
    if (j.card_memory_mib > 0) s.card_mib = j.card_memory_mib;
  }
  std::vector<RightSizing> out;
  for (auto& [key, s] : by_key) {
    RightSizing& r = s.r;
    r.gpus_requested = s.asked / s.weight;
    r.mean_utilization = s.busy / s.weight;
    r.gpus_used = r.gpus_requested * r.mean_utilization;
    // Whole GPUs: the used count rounded up (a 5 % allowance), never below what the memory
    // its processes used needs.
    int need = std::max(1, static_cast<int>(std::ceil(r.gpus_used - 0.05)));
    if (r.memory_used_mib > 0 && s.card_mib > 0)
      need = std::max(need, static_cast<int>(std::ceil(static_cast<double>(r.memory_used_mib) /
                                                       static_cast<double>(s.card_mib))));
    if (r.gpus_requested >= 1 && need < std::floor(r.gpus_requested + 1e-9)) {
      r.suggested_gpus = need;
      r.suggestion = fmt::format("asks {:g} GPUs, uses {:.1f} on average: run as {}",
                                 std::round(r.gpus_requested * 10) / 10, r.gpus_used, need);
    } else {
      r.suggestion = fmt::format("uses {:.0f}% of the {:g} GPUs it asks for: no smaller size fits",
                                 r.mean_utilization * 100, std::round(r.gpus_requested * 10) / 10);
    }
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const RightSizing& a, const RightSizing& b) {
    const double ua = a.gpu_hours * (1 - a.mean_utilization);
    const double ub = b.gpu_hours * (1 - b.mean_utilization);
    return ua != ub ? ua > ub : std::tie(a.team, a.key) < std::tie(b.team, b.key);
  });
  return out;
}

nlohmann::json to_json(const RightSizing& r) {
  nlohmann::json j = {{"team", r.team},
                      {"key", r.key},
                      {"jobs", r.jobs},
                      {"gpu_hours", r.gpu_hours},
                      {"gpus_requested", r.gpus_requested},
                      {"mean_utilization", r.mean_utilization},
                      {"gpus_used", r.gpus_used},
                      {"suggestion", r.suggestion}};
  j["suggested_gpus"] = r.suggested_gpus > 0 ? nlohmann::json(r.suggested_gpus) : nlohmann::json();
  j["gpu_memory_used_mib"] =
      r.memory_used_mib >= 0 ? nlohmann::json(r.memory_used_mib) : nlohmann::json();
  return j;
}

}  // namespace frugal
