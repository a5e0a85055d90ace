#include "pack/discretise.h"

#include <cmath>
#include <vector>

namespace frugal::pack {

double round2(double x) {
  return std::nearbyint(x * 100) / 100;
}

double arrived_level(int64_t arrived_milli, int64_t total_gpus) {
  return std::nearbyint(static_cast<double>(arrived_milli) / static_cast<double>(total_gpus) / 10);
}

LevelSeries discretise(const FillEvents& ev) {
  const double total = static_cast<double>(ev.total_gpus);
  constexpr int kBuckets = kLevels + 2;  // room for x + 1 at the top
  std::vector<double> cnt(kBuckets, 0), alloc(kBuckets, 0), frag(kBuckets, 0), ratio(kBuckets, 0),
      moved(kBuckets, 0);
  for (size_t i = 0; i < ev.arrived_milli.size(); ++i) {
    const double a = arrived_level(ev.arrived_milli[i], ev.total_gpus);
    if (a < 0 || a >= kBuckets) continue;
    const auto b = static_cast<size_t>(a);
    cnt[b] += 1;
    alloc[b] += round2(static_cast<double>(ev.used_milli[i]) / total / 10);
    frag[b] += ev.frag_milli[i];
    ratio[b] +=
        ev.idle_milli[i] > 0 ? 100 * ev.frag_milli[i] / static_cast<double>(ev.idle_milli[i]) : 0;
    if (i < ev.migrated.size()) moved[b] = static_cast<double>(ev.migrated[i]);
  }
  LevelSeries out;
  for (int x = 0; x < kLevels; ++x) {
    const auto b = static_cast<size_t>(x);
    double c = cnt[b], sa = alloc[b], sf = frag[b], sr = ratio[b], sm = moved[b];
    if (c == 0) {
      for (int d = -1; d <= 1; d += 2) {
        const int y = x + d;
        if (y < 0 || y >= kBuckets) continue;
        const auto yb = static_cast<size_t>(y);
        c += cnt[yb];
        sa += alloc[yb];
        sf += frag[yb];
        sr += ratio[yb];
        if (cnt[yb] > 0) sm = moved[yb];
      }
    }
    if (c == 0) continue;
    out.has[b] = true;
    out.alloc[b] = round2(sa / c);
    out.frag[b] = round2(100 * (sf / c) / 1000 / total);
    out.ratio[b] = round2(sr / c);
    out.migrations[b] = sm;
  }
  return out;
}

}  // namespace frugal::pack
