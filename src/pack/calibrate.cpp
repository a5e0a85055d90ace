#include "pack/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "pack/discretise.h"
#include "pack/experiment.h"
#include "pack/fill_engine.h"
#include "pack/policy.h"
#include "pack/workload.h"

namespace frugal::pack {

bool keep_own_rules(const RuleChoice& m) {
  if (m.streams <= 0) return true;
  const double se = 1.0 / std::sqrt(static_cast<double>(m.streams));
  for (size_t l = 0; l < kCalibrationLevels.size(); ++l)
    if (m.gain[l] - kCalibrationZ * m.stdev[l] * se < 0) return false;
  return true;
}

RuleChoice choose_rules(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& pods,
                        double tune, FragMemo& fgd_memo, FragMemo& own_memo, int streams) {
  RuleChoice out;
  int64_t capacity = 0, asked = 0;
  for (const NodeSpec& n : nodes) capacity += static_cast<int64_t>(n.num_gpu) * kMilli;
  for (const Pod& p : pods) asked += p.total_milli();
  if (streams <= 0 || capacity == 0 || asked == 0) return out;
  const auto t0 = std::chrono::steady_clock::now();
  constexpr size_t kL = kCalibrationLevels.size();
  std::array<double, kL> sum{}, sum2{};
  std::vector<LevelSeries> fgd_runs, own_runs;  // for the medians (level_stats)
  for (int k = 0; k < streams; ++k) {
    const uint64_t seed = kCalibrationSeed + static_cast<uint64_t>(k);
    const std::vector<Pod> seq = tune_workload(pods, capacity, tune, seed);
    const std::vector<int> rank = random_node_ranks(nodes.size(), seed);
    const LevelSeries fgd =
        discretise(run_fill(nodes, rank, seq, Policy::kFgd, fgd_memo, PolicyRng(seed)));
    const LevelSeries own = discretise(
        run_fill(nodes, rank, seq, Policy::kFrugal, fgd_memo, PolicyRng(seed), &own_memo));
    for (size_t l = 0; l < kL; ++l) {
      const auto b = static_cast<size_t>(kCalibrationLevels[l]);
      const double d = fgd.has[b] && own.has[b] ? own.alloc[b] - fgd.alloc[b] : 0.0;
      sum[l] += d;
      sum2[l] += d * d;
    }
    fgd_runs.push_back(fgd);
    own_runs.push_back(own);
  }
  out.streams = streams;
  const auto n = static_cast<double>(streams);
  for (size_t l = 0; l < kL; ++l) {
    out.gain[l] = sum[l] / n;
    out.stdev[l] =
        streams > 1 ? std::sqrt(std::max(0.0, (sum2[l] - n * out.gain[l] * out.gain[l]) / (n - 1)))
                    : 0.0;
    out.median_gain[l] = level_stats(own_runs, Metric::kAlloc, kCalibrationLevels[l]).median -
                         level_stats(fgd_runs, Metric::kAlloc, kCalibrationLevels[l]).median;
  }
  out.own_rules = keep_own_rules(out);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace frugal::pack
