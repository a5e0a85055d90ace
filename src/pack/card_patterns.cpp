#include "pack/card_patterns.h"

#include "pack/pack_model.h"

namespace frugal::pack {

CardPattern best_card_pattern(const std::vector<int32_t>& sizes, const std::vector<double>& value) {
  // best[c]: the most value on c milli; last[c]: the size index that reached it (-1: none).
  std::vector<double> best(kMilli + 1, 0.0);
  std::vector<int> last(kMilli + 1, -1);
  for (int32_t c = 1; c <= kMilli; ++c) {
    best[static_cast<size_t>(c)] = best[static_cast<size_t>(c - 1)];
    last[static_cast<size_t>(c)] = -1;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (value[i] <= 0 || sizes[i] > c) continue;
      const double v = best[static_cast<size_t>(c - sizes[i])] + value[i];
      if (v > best[static_cast<size_t>(c)]) {
        best[static_cast<size_t>(c)] = v;
        last[static_cast<size_t>(c)] = static_cast<int>(i);
      }
    }
  }
  CardPattern p;
  p.count.assign(sizes.size(), 0);
  p.value = best[kMilli];
  for (int32_t c = kMilli; c > 0;) {
    const int i = last[static_cast<size_t>(c)];
    if (i < 0) {
      --c;  // the value at c is the value at c − 1
      continue;
    }
    p.count[static_cast<size_t>(i)] += 1;
    c -= sizes[static_cast<size_t>(i)];
  }
  return p;
}

CardPattern single_size_pattern(const std::vector<int32_t>& sizes, size_t i) {
  CardPattern p;
  p.count.assign(sizes.size(), 0);
  p.count[i] = kMilli / sizes[i];
  return p;
}

}  // namespace frugal::pack
