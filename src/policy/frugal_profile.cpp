#include "policy/frugal_profile.h"

#include <fmt/format.h>

#include <algorithm>

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
  for (const std::string& item : split_option_items(text)) {
    const std::string key = item.substr(0, item.find('='));
    bool* flag = key == "sun"               ? &o.sun
                 : key == "release"         ? &o.prompt_release
                 : key == "autoscale_first" ? &o.autoscale_first
                 : key == "tou"             ? &o.tou_elastic
                                            : nullptr;
    if (key == "starvation_s") {
      auto x = parse_option_number(item, "frugal option");
      if (!x.ok()) return x.error();
      o.tiers.starvation_s = x.value();
    } else if (flag != nullptr) {
      const std::string value = item.substr(key.size() + (key.size() < item.size() ? 1 : 0));
      if (value != "0" && value != "1")
        return Error{fmt::format("frugal option '{}': must be 0 or 1", item)};
      *flag = value == "1";
    } else if (!is_time_shift_option(key)) {
      return Error{fmt::format(
          "frugal option '{}': known keys {}, starvation_s, sun, release, autoscale_first, tou",
          key, time_shift_option_keys())};
    } else if (Status st = set_time_shift_option(o.time_shift, item); !st.ok()) {
      return Error{"frugal: " + st.error().message};
    }
  }
  return o;
}

FeatureSet frugal_features(const FrugalOptions& o) {
  return {.elastic = o.elastic,
          .tou = o.elastic && o.tou_elastic,  // sizes elastic jobs: nothing without them
          .autoscale_first = o.autoscale_first,
          .pack_down = o.pack_down,
          .soon_free = o.soon_free,
          .prompt_release = o.prompt_release};
}

Profile make_frugal_profile(const FrugalOptions& o) {
  Profile p = make_frugal_profile_base(o);
  add_features(p, frugal_features(o));
  return p;
}

Profile make_frugal_profile_base(const FrugalOptions& o) {
  Profile p;
  p.name = "frugal";
  p.sort = make_tier_shortest_sort(o.tiers.starvation_s);
  p.admit = make_time_shift_admit(o.time_shift);
  p.filter = make_hetero_filter(AuxOrder::kFastest);
  p.placer = make_ordered_placer(make_best_fit_placer());
  p.post_filter = make_easy_backfill();
  p.preempt = make_tier_preempt(o.tiers);
  if (o.consolidate) p.consolidate = make_consolidate();
  if (o.sun) add_follow_sun(p);
  return p;
}

std::string default_profile_name() {
  return "frugal";
}

}  // namespace frugal
