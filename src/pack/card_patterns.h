#pragma once
// Card patterns for the packing bound (pack/bound.h): which sharing pods one card can hold
// together, and the most valuable such set.
//
// A card pattern is a multiset of sharing sizes (milli per pod, each below 1000) whose sum is
// at most 1000: what the sharing pods on one card can be. best_card_pattern is the pricing
// step of the bound's column generation: given a value per size (an LP dual price), it returns
// a pattern of the largest total value by an exact unbounded-knapsack recursion over the
// card's 1000 milli (sizes are whole milli, so the recursion has 1001 states). Sizes of value
// ≤ 0 never enter a pattern. Deterministic: among patterns of equal value, the recursion keeps
// the first size in `sizes` order that reaches a state.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace frugal::pack {

struct CardPattern {
  std::vector<int> count;  // pods of each size (index into the sizes given)
  double value = 0;        // Σ count · value
};

// Preconditions: sizes.size() == value.size(); every size in 1..999.
CardPattern best_card_pattern(const std::vector<int32_t>& sizes, const std::vector<double>& value);

// The pattern holding only size i, as many times as one card takes (⌊1000 / size⌋).
CardPattern single_size_pattern(const std::vector<int32_t>& sizes, std::size_t i);

}  // namespace frugal::pack
