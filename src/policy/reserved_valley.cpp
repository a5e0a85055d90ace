#include "policy/reserved_valley.h"

#include <algorithm>
#include <utility>

namespace frugal {

void ReservedValleys::claim(NodeId n, Seconds from, Seconds to, int gpus) {
  claims_.push_back({n, from, to, gpus});
}

int ReservedValleys::claimed(NodeId n, Seconds from, Seconds to) const {
  int g = 0;
  for (const Claim& c : claims_)
    if (c.node == n && c.from < to && c.to > from) g += c.gpus;
  return g;
}

std::optional<Seconds> ReservedValleys::node_free_at(const CycleView& v, NodeId n, int gpus,
                                                     Seconds runtime, Seconds latest) {
  const Seconds now = v.now();
  // Claims whose run is over can never matter again.
  std::erase_if(claims_, [&](const Claim& c) { return c.to <= now; });
  // (expected end, GPUs it frees on n) of the jobs running on n, earliest first.
  std::vector<std::pair<Seconds, int>> ends;
  for (JobIdx j : v.jobs_on(n)) {
    const JobRuntime& r = v.job(j);
    int64_t milli = 0;
    for (const Slot& s : r.placement.slots)
      if (s.node == n) milli += s.milli;
    ends.emplace_back(r.expected_end(now), static_cast<int>(milli / kMilliPerGpu));
  }
  std::sort(ends.begin(), ends.end());
  int free = v.cluster().free_whole(n);
  Seconds t = now;
  size_t i = 0;
  while (t <= latest) {
    while (i < ends.size() && ends[i].first <= t) free += ends[i++].second;
    if (free - claimed(n, t, t + runtime) >= gpus) return t;
    if (i == ends.size()) break;
    t = std::max(t, ends[i].first);
  }
  // Past the last expected end, only claims hold GPUs: try the claims' ends, earliest first.
  std::vector<Seconds> after;
  for (const Claim& c : claims_)
    if (c.node == n && c.to >= t && c.to <= latest) after.push_back(c.to);
  std::sort(after.begin(), after.end());
  for (Seconds e : after)
    if (free - claimed(n, e, e + runtime) >= gpus) return e;
  return std::nullopt;
}

}  // namespace frugal
