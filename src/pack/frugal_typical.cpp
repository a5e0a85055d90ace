#include "pack/frugal_typical.h"

#include <map>
#include <string>
#include <unordered_map>

namespace frugal::pack {

TypicalPods frugal_typical_pods(const std::vector<Pod>& pods, const std::vector<NodeSpec>& nodes,
                                double max_reach, double min_pressure, double threshold_pct) {
  int64_t total_gpus = 0;
  for (const NodeSpec& n : nodes) total_gpus += n.num_gpu;
  double all_milli = 0;
  std::map<std::string, double> demand;  // gpu_spec text → GPU milli its pods ask for
  for (const Pod& p : pods) {
    all_milli += static_cast<double>(p.total_milli());
    if (p.model_mask != 0) demand[p.model_key] += static_cast<double>(p.total_milli());
  }
  std::unordered_map<uint64_t, double> reach;  // model mask → share of the cluster's GPUs
  auto reach_of = [&](uint64_t mask) {
    auto it = reach.find(mask);
    if (it != reach.end()) return it->second;
    int64_t g = 0;
    for (const NodeSpec& n : nodes)
      if (model_ok(mask, n.model)) g += n.num_gpu;
    const double r =
        total_gpus > 0 ? static_cast<double>(g) / static_cast<double>(total_gpus) : 0.0;
    reach.emplace(mask, r);
    return r;
  };
  auto own_domain = [&](const Pod& p) {
    if (p.model_mask == 0) return false;
    const double r = reach_of(p.model_mask);
    const double asked = all_milli > 0 ? demand[p.model_key] / all_milli : 0.0;
    return r <= max_reach && asked >= min_pressure * r;
  };
  std::map<std::string, std::vector<Pod>> domains;  // domain text → its pods
  for (const Pod& p : pods) domains[own_domain(p) ? p.model_key : std::string()].push_back(p);
  return typical_pods_of_groups(domains, pods.size(), threshold_pct);
}

}  // namespace frugal::pack
