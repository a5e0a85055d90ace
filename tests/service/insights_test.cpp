// Right-sizing from measured utilisation (service/insights.h).
#include "service/insights.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

SizedJob use(const std::string& key, double gpus, double util, double run_s, int64_t mem = -1,
             int64_t card = 0) {
  return SizedJob{"alpha", key, gpus, util, run_s, mem, card};
}

TEST(TelemetryInsights, SuggestsTheGpusAJobUses) {
  // Three runs of an 8-GPU job at 39 % busy on average (GPU-hour weighted): 3.1 GPUs.
  const auto r = right_sizing({use("llama-ft", 8, 0.30, 3600), use("llama-ft", 8, 0.48, 3600),
                               use("llama-ft", 8, 0.39, 3600), use("other", 8, -1, 3600)});
  ASSERT_EQ(r.size(), 1u);  // the unmeasured key has no entry
  EXPECT_EQ(r[0].jobs, 3u);
  EXPECT_NEAR(r[0].mean_utilization, 0.39, 1e-9);
  EXPECT_NEAR(r[0].gpus_used, 3.12, 1e-9);
  EXPECT_EQ(r[0].suggested_gpus, 4);
  EXPECT_EQ(r[0].suggestion, "asks 8 GPUs, uses 3.1 on average: run as 4");
  EXPECT_NEAR(r[0].gpu_hours, 24, 1e-9);
}

TEST(TelemetryInsights, NeverBelowWhatTheMemoryNeedsNorForBusyOrFractionalJobs) {
  // 25 % busy on 8 cards, but its processes hold 300 GiB: 4 × 80 GiB cards at least.
  auto r = right_sizing({use("big", 8, 0.25, 3600, 300 * 1024, 80 * 1024)});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].suggested_gpus, 4);
  r = right_sizing({use("busy", 4, 0.97, 3600)});
  EXPECT_EQ(r[0].suggested_gpus, 0);
  EXPECT_NE(r[0].suggestion.find("no smaller size fits"), std::string::npos);
  r = right_sizing({use("frac", 0.5, 0.1, 3600)});
  EXPECT_EQ(r[0].suggested_gpus, 0);
  // Within 5 % of a whole GPU rounds down: 4 × 0.76 = 3.04 → 3.
  r = right_sizing({use("edge", 4, 0.76, 3600)});
  EXPECT_EQ(r[0].suggested_gpus, 3);
}

TEST(TelemetryInsights, OrderedByUnusedGpuHoursAndSeparatedByTeam) {
  std::vector<SizedJob> jobs = {use("small", 2, 0.5, 3600), use("large", 8, 0.5, 3600)};
  jobs.push_back(SizedJob{"beta", "large", 8, 0.9, 3600, -1, 0});
  const auto r = right_sizing(jobs);
  ASSERT_EQ(r.size(), 3u);
  // Unused GPU-hours: alpha's large 4, alpha's small 1, beta's large 0.8.
  EXPECT_EQ(r[0].key, "large");
  EXPECT_EQ(r[0].team, "alpha");
  EXPECT_EQ(r[1].key, "small");
  EXPECT_EQ(r[2].team, "beta");
  const nlohmann::json j = to_json(r[1]);
  EXPECT_EQ(j["suggested_gpus"], 1);
  EXPECT_TRUE(j["gpu_memory_used_mib"].is_null());
}

}  // namespace
}  // namespace frugal
