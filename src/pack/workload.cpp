#include "pack/workload.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "pack/go_rand.h"

namespace frugal::pack {

namespace {

bool adds_gpu_demand(const std::vector<Pod>& pods) {
  return std::any_of(pods.begin(), pods.end(), [](const Pod& p) { return p.total_milli() > 0; });
}

}  // namespace

std::vector<Pod> tune_workload(const std::vector<Pod>& pods, int64_t capacity_milli, double ratio,
                               uint64_t seed) {
  std::vector<Pod> out = pods;
  std::sort(out.begin(), out.end(), [](const Pod& a, const Pod& b) { return a.name < b.name; });
  std::mt19937_64 rng(seed);
  std::shuffle(out.begin(), out.end(), rng);
  if (ratio <= 0 || out.empty()) return out;
  int64_t total = 0;
  for (const Pod& p : out) total += p.total_milli();
  const double target = ratio * static_cast<double>(capacity_milli);
  while (static_cast<double>(total) > target && !out.empty()) {  // tune down (multigpu30)
    const size_t idx = std::uniform_int_distribution<size_t>(0, out.size() - 1)(rng);
    total -= out[idx].total_milli();
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(idx));
  }
  // Nothing left after tuning down (the target is below every pod), or no pod that adds GPU
  // demand (copies of CPU-only pods never reach the target): nothing to up-sample.
  if (!adds_gpu_demand(out)) return out;
  const size_t n = out.size();
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  for (int i = 0;; ++i) {
    const Pod& src = out[pick(rng)];
    if (static_cast<double>(total + src.milli) > target) break;
    total += src.total_milli();
    Pod copy = src;
    copy.name += "-tuned-" + std::to_string(i);
    out.push_back(std::move(copy));
  }
  return out;
}

std::vector<int> random_node_ranks(size_t n, uint64_t seed) {
  std::vector<int> rank(n);
  std::iota(rank.begin(), rank.end(), 0);
  std::mt19937_64 rng(seed ^ 0x5DEECE66Dull);
  std::shuffle(rank.begin(), rank.end(), rng);
  return rank;
}

GoDraws go_rand_draws(const std::vector<Pod>& pods, const std::vector<NodeSpec>& nodes,
                      double ratio, int64_t seed, int extra_draws) {
  GoRand r(seed);
  r.Int();
  GoDraws d;
  d.order = pods;
  std::sort(d.order.begin(), d.order.end(),
            [](const Pod& a, const Pod& b) { return a.name < b.name; });
  const std::vector<Pod> by_name_pods = d.order;
  r.Shuffle(static_cast<int>(d.order.size()), [&](int i, int j) {
    std::swap(d.order[static_cast<size_t>(i)], d.order[static_cast<size_t>(j)]);
  });
  const size_t n = d.order.size();
  if (ratio > 0 && n > 0) {
    int64_t capacity = 0;
    for (const NodeSpec& s : nodes) capacity += static_cast<int64_t>(s.num_gpu) * kMilli;
    int64_t total = 0;
    for (const Pod& p : d.order) total += p.total_milli();
    const double target = ratio * static_cast<double>(capacity);
    if (static_cast<double>(total) > target) {
      // tuneDownPods: drop shuffled pods at random until the total fits.
      while (static_cast<double>(total) > target && !d.order.empty()) {
        const auto idx = static_cast<size_t>(r.Intn(static_cast<int64_t>(d.order.size())));
        total -= d.order[idx].total_milli();
        d.order.erase(d.order.begin() + static_cast<std::ptrdiff_t>(idx));
      }
    } else if (adds_gpu_demand(by_name_pods)) {  // else: copies would never reach it
      for (int i = 0;; ++i) {
        const Pod& src = by_name_pods[static_cast<size_t>(r.Intn(static_cast<int64_t>(n)))];
        if (static_cast<double>(total + src.milli) > target) break;
        total += src.total_milli();
        Pod copy = src;
        copy.name += "-tuned-" + std::to_string(i);
        d.order.push_back(std::move(copy));
      }
    }
  }
  for (int k = 0; k < extra_draws; ++k) r.Int63();
  std::vector<size_t> by_name(nodes.size());
  std::iota(by_name.begin(), by_name.end(), size_t{0});
  std::sort(by_name.begin(), by_name.end(),
            [&](size_t a, size_t b) { return nodes[a].name < nodes[b].name; });
  const std::vector<int> perm = r.Perm(static_cast<int>(nodes.size()));
  d.rank.assign(nodes.size(), 0);
  for (size_t k = 0; k < by_name.size(); ++k) d.rank[by_name[k]] = perm[k];
  d.after = r;
  return d;
}

}  // namespace frugal::pack
