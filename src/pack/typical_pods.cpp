#include "pack/typical_pods.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace frugal::pack {

TypicalPods typical_pods(const std::vector<Pod>& pods, double threshold_pct) {
  using Key = std::tuple<int64_t, int32_t, int, std::string>;  // the artifact's Less order
  std::map<Key, std::pair<int64_t, uint64_t>> counts;          // key → (count, mask)
  for (const Pod& p : pods) {
    auto& c = counts[Key{p.cpu, p.milli, p.num_gpu, p.model_key}];
    ++c.first;
    c.second = p.model_mask;
  }
  std::vector<TypicalPod> list;
  list.reserve(counts.size());
  for (const auto& [k, v] : counts) {
    TypicalPod t;
    t.cpu = std::get<0>(k);
    t.milli = std::get<1>(k);
    t.num_gpu = std::get<2>(k);
    t.model_key = std::get<3>(k);
    t.model_mask = v.second;
    t.count = v.first;
    list.push_back(std::move(t));
  }
  // sort.Reverse over (count, PodResource.Less): highest count first, ties by key descending.
  std::sort(list.begin(), list.end(), [](const TypicalPod& a, const TypicalPod& b) {
    if (a.count != b.count) return a.count > b.count;
    return std::tie(a.cpu, a.milli, a.num_gpu, a.model_key) >
           std::tie(b.cpu, b.milli, b.num_gpu, b.model_key);
  });
  const double total = static_cast<double>(pods.size());
  const double expected = threshold_pct * total / 100.0;
  double cum = 0;
  size_t k = 0;
  while (cum < expected && k < list.size()) cum += static_cast<double>(list[k++].count);
  list.resize(k);
  TypicalPods out;
  out.coverage = total > 0 ? cum / total : 0;
  for (TypicalPod& t : list) t.freq = (static_cast<double>(t.count) / total) / (cum / total);
  out.pods = std::move(list);
  return out;
}

TypicalPods typical_pods_per_domain(const std::vector<Pod>& pods, double threshold_pct) {
  std::map<std::string, std::vector<Pod>> domains;  // gpu_spec text → its pods
  for (const Pod& p : pods) domains[p.model_key].push_back(p);
  return typical_pods_of_groups(domains, pods.size(), threshold_pct);
}

TypicalPods typical_pods_of_groups(const std::map<std::string, std::vector<Pod>>& groups,
                                   size_t total_pods, double threshold_pct) {
  TypicalPods out;
  const double total = static_cast<double>(total_pods);
  for (const auto& [key, group] : groups) {
    TypicalPods t = typical_pods(group, threshold_pct);
    const double share = static_cast<double>(group.size()) / total;
    out.coverage += t.coverage * share;
    for (TypicalPod& tp : t.pods) {
      tp.freq *= share;
      out.pods.push_back(std::move(tp));
    }
  }
  std::sort(out.pods.begin(), out.pods.end(), [](const TypicalPod& a, const TypicalPod& b) {
    if (a.count != b.count) return a.count > b.count;
    return std::tie(a.cpu, a.milli, a.num_gpu, a.model_key) >
           std::tie(b.cpu, b.milli, b.num_gpu, b.model_key);
  });
  return out;
}

}  // namespace frugal::pack
