#include "policy/frugal_profile.h"

#include <fmt/format.h>
#include <cmath>
#include <cstdlib>

#include "policy/consolidate.h"
#include "policy/follow_sun.h"
#include "policy/hetero.h"
#include "policy/placer.h"
#include "policy/post_filter.h"

namespace frugal {
namespace {

class TierShortestSort final : public QueueSort {
 public:
  explicit TierShortestSort(Seconds starvation_s) : starvation_s_(starvation_s) {}
  std::string name() const override { return "tier-shortest"; }
  QueueKey key(const JobRuntime& j) const override {
    return {static_cast<double>(effective_tier(j)), j.spec->runtime_estimate(), j.seq, 0};
  }
  Seconds starvation_after() const override { return starvation_s_ > 0 ? starvation_s_ : kNever; }

 private:
  Seconds starvation_s_;
};

}  // namespace

std::unique_ptr<QueueSort> make_tier_shortest_sort(Seconds starvation_s) {
  return std::make_unique<TierShortestSort>(starvation_s);
}

Result<FrugalOptions> parse_frugal_options(const std::string& text) {
  FrugalOptions o;
  // The items parse_time_shift_options understands, over frugal's defaults (FrugalOptions).
  std::string time_shift = fmt::format("max_delay_s={}:min_saving={}:overflow={}:wait_usd_gpu_h={}",
                                       o.time_shift.max_delay_s, o.time_shift.min_saving,
                                       o.time_shift.overflow ? 1 : 0, o.time_shift.wait_usd_gpu_h);
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find(':', start), text.size());
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    if (item.rfind("starvation_s=", 0) == 0) {
      const std::string val = item.substr(13);
      char* endp = nullptr;
      const double x = std::strtod(val.c_str(), &endp);
      if (val.empty() || *endp != '\0' || !std::isfinite(x) || x < 0)
        return Error{fmt::format("frugal option '{}': not a non-negative number", item)};
      o.tiers.starvation_s = x;
      continue;
    }
    if (item == "sun=0" || item == "sun=1") {
      o.sun = item == "sun=1";
      continue;
    }
    time_shift += ":" + item;
  }
  auto ts = parse_time_shift_options(time_shift);
  if (!ts.ok()) return Error{"frugal: " + ts.error().message + ", starvation_s, sun"};
  o.time_shift = ts.value();
  return o;
}

Profile make_frugal_profile(const FrugalOptions& o) {
  Profile p;
  p.name = "frugal";
  p.sort = make_tier_shortest_sort(o.tiers.starvation_s);
  p.admit = make_time_shift_admit(o.time_shift);
  p.filter = make_hetero_filter(AuxOrder::kFastest);
  p.placer = make_ordered_placer(make_best_fit_placer());
  p.post_filter = make_easy_backfill();
  p.preempt = make_tier_preempt(o.tiers);
  if (o.consolidate) p.consolidate = make_consolidate();
  p.elastic = o.elastic;
  p.pack_down = o.pack_down;
  p.soon_free = o.soon_free;
  if (o.sun) add_follow_sun(p);
  return p;
}

std::string default_profile_name() {
  return "frugal";
}

}  // namespace frugal
