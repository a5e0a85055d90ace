#include "pack/discretise.h"

#include <cmath>
#include <vector>

namespace frugal::pack {

double round2(double x) {
  return std::nearbyint(x * 100) / 100;
}

LevelSeries discretise(const FillEvents& ev) {
  const double total = static_cast<double>(ev.total_gpus);
  constexpr int kBuckets = kLevels + 2;  // room for x + 1 at the top
  std::vector<double> cnt(kBuckets, 0), alloc(kBuckets, 0), frag(kBuckets, 0), ratio(kBuckets, 0);
  for (size_t i = 0; i < ev.arrived_milli.size(); ++i) {
    const double a = std::nearbyint(static_cast<double>(ev.arrived_milli[i]) / total / 10);
    if (a < 0 || a >= kBuckets) continue;
    const auto b = static_cast<size_t>(a);
    cnt[b] += 1;
    alloc[b] += round2(static_cast<double>(ev.used_milli[i]) / total / 10);
    frag[b] += ev.frag_milli[i];
    ratio[b] +=
        ev.idle_milli[i] > 0 ? 100 * ev.frag_milli[i] / static_cast<double>(ev.idle_milli[i]) : 0;
  }
  LevelSeries out;
  for (int x = 0; x < kLevels; ++x) {
    const auto b = static_cast<size_t>(x);
    double c = cnt[b], sa = alloc[b], sf = frag[b], sr = ratio[b];
    if (c == 0) {
      for (int d = -1; d <= 1; d += 2) {
        const int y = x + d;
        if (y < 0 || y >= kBuckets) continue;
        const auto yb = static_cast<size_t>(y);
        c += cnt[yb];
        sa += alloc[yb];
        sf += frag[yb];
        sr += ratio[yb];
      }
    }
    if (c == 0) continue;
    out.has[b] = true;
    out.alloc[b] = round2(sa / c);
    out.frag[b] = round2(100 * (sf / c) / 1000 / total);
    out.ratio[b] = round2(sr / c);
  }
  return out;
}

}  // namespace frugal::pack
