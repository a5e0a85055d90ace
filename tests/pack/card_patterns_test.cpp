// Card patterns (pack/card_patterns.h): the pricing recursion against exhaustive search. What
// the patterns add to the bound: PackBound.CardPatternsCountSliversNoPodCanUse.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "pack/card_patterns.h"

namespace frugal::pack {
namespace {

// The most value of any multiset of sizes summing to at most 1000 (exhaustive).
double brute_best(const std::vector<int32_t>& sizes, const std::vector<double>& value) {
  double best = 0;
  std::function<void(size_t, int32_t, double)> go = [&](size_t i, int32_t room, double v) {
    best = std::max(best, v);
    if (i == sizes.size()) return;
    for (int k = 0; k * sizes[i] <= room; ++k) go(i + 1, room - k * sizes[i], v + k * value[i]);
  };
  go(0, 1000, 0);
  return best;
}

TEST(CardPatterns, BestPatternIsTheExhaustiveOptimumAndFitsOneCard) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 500; ++trial) {
    const int n = std::uniform_int_distribution<int>(1, 5)(rng);
    std::vector<int32_t> sizes;
    std::vector<double> value;
    for (int i = 0; i < n; ++i) {
      sizes.push_back(std::uniform_int_distribution<int32_t>(50, 999)(rng));
      value.push_back(std::uniform_real_distribution<double>(-100, 1000)(rng));
    }
    const CardPattern p = best_card_pattern(sizes, value);
    ASSERT_EQ(p.count.size(), sizes.size());
    int32_t used = 0;
    double v = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      ASSERT_GE(p.count[i], 0);
      if (value[i] <= 0) {
        ASSERT_EQ(p.count[i], 0) << "trial " << trial;
      }
      used += p.count[i] * sizes[i];
      v += p.count[i] * value[i];
    }
    ASSERT_LE(used, 1000) << "trial " << trial;
    ASSERT_NEAR(v, p.value, 1e-6) << "trial " << trial;
    ASSERT_NEAR(p.value, brute_best(sizes, value), 1e-6) << "trial " << trial;
  }
  EXPECT_EQ(single_size_pattern({470, 320}, 0).count, (std::vector<int>{2, 0}));
  EXPECT_EQ(single_size_pattern({470, 320}, 1).count, (std::vector<int>{0, 3}));
}

}  // namespace
}  // namespace frugal::pack
