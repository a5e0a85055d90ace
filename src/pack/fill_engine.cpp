#include "pack/fill_engine.h"

#include <algorithm>
#include <cmath>

#include "pack/migration.h"

namespace frugal::pack {
namespace {

// The random policy's node for pod i: the k-th feasible one in rank order, k drawn from
// `rng`; size() when none is feasible.
size_t choose_random(FillState& fs, size_t i, PolicyRng& rng) {
  const size_t n = fs.size();
  size_t feasible = 0;
  for (size_t r = 0; r < n; ++r) feasible += fs.score(r, i, true) != kInfeasible;
  if (feasible == 0) return n;
  auto k = static_cast<size_t>(
      feasible == 1 && rng.is_go() ? 0 : rng.below(static_cast<int64_t>(feasible)));
  for (size_t r = 0; r < n; ++r)
    if (fs.score(r, i, true) != kInfeasible && k-- == 0) return r;
  return n;
}

// Migrations allowed by arrival `arrivals` (1-based): floor(M · arrivals / 100).
int64_t budget(double per_100, size_t arrivals) {
  return static_cast<int64_t>(std::floor(per_100 * static_cast<double>(arrivals) / 100 + 1e-9));
}

}  // namespace

FillEvents run_fill(const std::vector<NodeSpec>& nodes, const std::vector<int>& rank,
                    const std::vector<Pod>& sequence, Policy policy, FragMemo& metric,
                    PolicyRng rng, FragMemo* scoring, double migrations_per_100,
                    const std::function<void(const FillState&)>& after_migration) {
  const bool migrate = migrations_per_100 > 0;
  FillState fs(nodes, rank, sequence, policy, metric, scoring, migrate);
  const size_t n = fs.size();
  FillEvents ev;
  ev.total_gpus = fs.total_gpus();
  ev.arrived_milli.reserve(sequence.size());
  ev.used_milli.reserve(sequence.size());
  ev.idle_milli.reserve(sequence.size());
  ev.frag_milli.reserve(sequence.size());
  int64_t arrived = 0, used = 0;
  // frugal's GPU-pod rules switch on once, when the arrived load passes the threshold; the
  // cached scores are then stale and dropped.
  const auto rules_from =
      static_cast<int64_t>(kFrugalGpuRulesFrom * static_cast<double>(ev.total_gpus * kMilli));
  bool gpu_rules = policy != Policy::kFrugal;
  std::vector<size_t> next_try(migrate ? fs.classes() : 0, 0);  // per class (kRetryAfter)
  PlanCache plans(fs);

  for (size_t i = 0; i < sequence.size(); ++i) {
    const Pod& p = sequence[i];
    arrived += p.total_milli();
    if (!gpu_rules && arrived > rules_from) {
      gpu_rules = true;
      fs.clear_cache();
    }
    const size_t chosen =
        policy == Policy::kRandom ? choose_random(fs, i, rng) : fs.best(i, gpu_rules, n);
    if (chosen != n) {
      fs.place(chosen, i, rng, gpu_rules);
      used += p.total_milli();
    } else {
      const int64_t left = migrate ? budget(migrations_per_100, i + 1) - ev.migrations : 0;
      int moved = 0;
      if (left > 0 && p.total_milli() > 0 && i >= next_try[fs.pod_class(i)]) {
        moved = make_room(fs, i, left, rng, gpu_rules, plans);
        if (moved == 0) next_try[fs.pod_class(i)] = i + kRetryAfter;
      }
      if (moved > 0) {
        ev.migrations += moved;
        used += p.total_milli();
        if (after_migration) after_migration(fs);
      } else {
        ++ev.failed;
        ev.failed_pods.push_back(static_cast<uint32_t>(i));
      }
    }
    ev.arrived_milli.push_back(arrived);
    ev.used_milli.push_back(used);
    ev.idle_milli.push_back(fs.idle());
    ev.frag_milli.push_back(fs.frag());
    if (migrate) ev.migrated.push_back(ev.migrations);
  }
  return ev;
}

}  // namespace frugal::pack
