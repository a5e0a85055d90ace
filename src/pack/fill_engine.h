#pragma once
// One static-fill run: pods arrive in sequence, each is placed on the best-scoring feasible
// node (ties: lowest rank) or dropped; nothing ever leaves (with migrations placed pods may
// move, see run_fill). After every pod (placed or not) the engine records the artifact's
// per-event counters.
//
// Performance contract (fill_state.h): a node's score for a pod depends only on the node's state
// and the pod's class (cpu, num_gpu, milli, model mask), so scores are cached per (class, node) and
// recomputed only when the node has changed since; memory and pod count are checked live.
// (frugal's scores also depend on whether its GPU-pod rules are on, which changes once per
// run, at kFrugalGpuRulesFrom arrived load; the whole cache is dropped then.)
// F(node) is kept per node (under the metric's and, if different, the scoring measure) and
// refreshed only for the nodes that changed.

#include <cstdint>
#include <functional>
#include <vector>

#include "pack/fill_state.h"
#include "pack/frag.h"
#include "pack/pack_model.h"
#include "pack/policy.h"

namespace frugal::pack {

// Per-event counters, one entry per arriving pod.
struct FillEvents {
  std::vector<int64_t> arrived_milli;  // cumulative GPU milli of arrived pods (failed included)
  std::vector<int64_t> used_milli;     // GPU milli allocated on the cluster
  std::vector<int64_t> idle_milli;     // Σ free milli over nodes
  std::vector<double> frag_milli;      // Σ F(node)
  std::vector<int64_t> migrated;       // cumulative migrations (empty when none allowed)
  int64_t failed = 0;                  // pods no node could take
  std::vector<uint32_t> failed_pods;   // their indices in the sequence, ascending
  int64_t migrations = 0;              // migrations made
  int64_t total_gpus = 0;              // cards in the cluster (the % denominator / 1000)
};

// `rank[i]` is node i's tie-break rank (a permutation of 0..n-1). `rng` drives the random
// policy's draws (see PolicyRng; with Go's stream a pod with one feasible node draws nothing,
// as the artifact's scheduler skips scoring then, and the feasible nodes are listed in rank
// order). `metric` must have been built for the run's typical pods: it gives the recorded
// fragmentation and, unless `scoring` is given, the F the policy scores with. `scoring` (may be
// null) is a policy's own measure (frugal's per-domain typical pods, see experiment.h); the
// recorded fragmentation never depends on it.
// `migrations_per_100` (M): when no node takes an arriving GPU pod, up to the budget left,
// floor(M · arrivals so far / 100) minus the migrations already made, placed pods may be moved
// to make room for it (make_room, migration.h). M = 0: no pod ever moves, and the run is the
// plain fill. Migrations never lose a pod: a moved pod is placed again before its node takes
// the arrival, or nothing changes. `after_migration` (may be empty) sees the state after every
// arrival that migrations placed (for checks).
FillEvents run_fill(const std::vector<NodeSpec>& nodes, const std::vector<int>& rank,
                    const std::vector<Pod>& sequence, Policy policy, FragMemo& metric,
                    PolicyRng rng, FragMemo* scoring = nullptr, double migrations_per_100 = 0,
                    const std::function<void(const FillState&)>& after_migration = {});

}  // namespace frugal::pack
