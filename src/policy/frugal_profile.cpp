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
  // Urgent deadline jobs sort between core (0) and important (1): important ones at 0.5,
  // general ones at 0.75.
  static double urgent_level(Tier t) { return 0.25 * (static_cast<double>(t) + 1); }

 public:
  TierShortestSort(Seconds starvation_s, std::optional<DeadlineMargin> urgent)
      : starvation_s_(starvation_s), urgent_(urgent) {}
  std::string name() const override { return "tier-shortest"; }
  QueueKey key(const JobRuntime& j) const override {
    const double est = j.spec->runtime_estimate();
    if (urgent_ && j.starved && j.spec->deadline != kNever && j.spec->tier != Tier::kCore)
      return {urgent_level(j.spec->tier), est, j.seq, 0};
    return {static_cast<double>(effective_tier(j)), est, j.seq, 0};
  }
  Seconds starvation_after() const override { return starvation_s_ > 0 ? starvation_s_ : kNever; }
  Seconds starve_at(const JobRuntime& j, Seconds queued) const override {
    const Seconds at = QueueSort::starve_at(j, queued);
    if (!urgent_ || j.spec->deadline == kNever) return at;
    const Seconds run = j.spec->runtime_estimate();
    const Seconds slack_out =
        j.spec->deadline - run - std::max(urgent_->margin_s, urgent_->margin_frac * run);
    return std::min(at, slack_out);
  }

 private:
  Seconds starvation_s_;
  std::optional<DeadlineMargin> urgent_;
};

}  // namespace

std::unique_ptr<QueueSort> make_tier_shortest_sort(Seconds starvation_s,
                                                   std::optional<DeadlineMargin> urgent) {
  return std::make_unique<TierShortestSort>(starvation_s, urgent);
}

std::vector<OptionSpec> frugal_option_specs() {
  const FrugalOptions d;
  std::vector<OptionSpec> specs = time_shift_option_specs(d.time_shift);
  const auto flag = [](const char* key, bool on, const char* help) {
    return OptionSpec{key, OptionSpec::Type::kFlag, on ? 1.0 : 0.0, -1, "", help};
  };
  specs.push_back({"starvation_s", OptionSpec::Type::kNumber, d.tiers.starvation_s, -1, "s",
                   "a general-tier job queued this long counts as important"});
  specs.push_back(flag("urgent", d.urgent,
                       "a queued deadline job whose slack runs out (deadline - estimate - "
                       "margin) goes after core work, before other important work"));
  specs.push_back(flag("sun", d.sun, "follow-the-sun for movable jobs (as +sun)"));
  specs.push_back(flag("release", d.prompt_release, "hand idle on-demand nodes back at once"));
  specs.push_back(flag("autoscale_first", d.autoscale_first,
                       "a queued job the autoscaler can add a node for waits for it rather "
                       "than shrinking elastic jobs"));
  specs.push_back(flag("tou", d.tou_elastic, "time-of-use sizing of elastic jobs (as +tou)"));
  specs.push_back(flag("consolidate", d.consolidate,
                       "migrate small jobs to free whole GPUs for a gang blocked by "
                       "fragmentation (as +consolidate)"));
  return specs;
}

FrugalOptions frugal_options(const OptionValues& v) {
  FrugalOptions o;
  o.time_shift = time_shift_options(v);
  o.tiers.starvation_s = v.number("starvation_s");
  o.urgent = v.flag("urgent");
  o.sun = v.flag("sun");
  o.prompt_release = v.flag("release");
  o.autoscale_first = v.flag("autoscale_first");
  o.tou_elastic = v.flag("tou");
  o.consolidate = v.flag("consolidate");
  return o;
}

Result<FrugalOptions> parse_frugal_options(const std::string& text) {
  auto v = parse_options(frugal_option_specs(), text, "frugal");
  if (!v.ok()) return v.error();
  return frugal_options(v.value());
}

FeatureSet frugal_features(const FrugalOptions& o) {
  return {.elastic = o.elastic,
          .tou = o.elastic && o.tou_elastic,  // sizes elastic jobs: nothing without them
          .autoscale_first = o.autoscale_first,
          .pack_down = o.pack_down,
          .soon_free = o.soon_free,
          .prompt_release = o.prompt_release,
          .spot = true,
          .datasets = true};
}

Profile make_frugal_profile(const FrugalOptions& o) {
  Profile p = make_frugal_profile_base(o);
  add_features(p, frugal_features(o));
  return p;
}

Profile make_frugal_profile_base(const FrugalOptions& o) {
  Profile p;
  p.name = "frugal";
  std::optional<DeadlineMargin> urgent;
  if (o.urgent) urgent = DeadlineMargin{o.time_shift.margin_s, o.time_shift.margin_frac};
  p.sort = make_tier_shortest_sort(o.tiers.starvation_s, urgent);
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
