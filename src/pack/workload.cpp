#include "pack/workload.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace frugal::pack {

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

}  // namespace frugal::pack
