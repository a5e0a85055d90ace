#pragma once
// Whether a job pays on spot capacity (Capacity::kSpot): the expected-saving-versus-expected-
// rework test of frugal's spot placement (src/policy/spot_placement.h), and the node guard
// that applies it.
//
// A job is a spot *candidate* when it is not core tier (unless the pool says
// spot_allow_core) and is checkpointable (JobSpec::checkpoint_interval > 0), deferrable, or
// general tier. A candidate goes on a spot pool's nodes when, per GPU-hour of its run,
//
//   expected saving = r_od − r_spot
//   expected rework = λ × k × (L + h) × r_spot
//
// has saving > rework, where r_od is the model's on-demand rate in that pool (its rental
// override, else the catalog's), r_spot = price_factor × r_od, λ the pool's mean reclaim
// rate per node-hour, k the nodes the job spans (⌈GPUs / node GPUs⌉; 1 for fractional and
// CPU-only jobs), so λk reclaims hit each hour of its run, and each reclaim costs
//   h = the GPU time held without progress: its checkpoint write (JobSpec::checkpoint_grace)
//       when that fits in the notice (an unknown one, < 0, is taken to fit and to take the
//       whole notice), else the notice itself; and
//   L = the work lost: 0 when the checkpoint fits in the notice (the job stops saved at the
//       notice: Engine::reclaim_notice); otherwise half the checkpoint interval (a
//       reclaim falls uniformly between periodic checkpoints), capped at half the run, or
//       half the run when the job has no periodic checkpoint,
// with the run T = JobSpec::runtime_estimate() on the reference model. Both sides scale with
// the job's GPU-hours, so the test is per GPU-hour; the lost work is paid again at the spot
// rate. The wait for capacity after a reclaim (JCT, not dollars) is not priced.
//
// The test is static per (job, pool), so it is a node guard (cluster/node_guard.h): no path
// (placement, consolidation, pack-down, elastic resizing, relays) puts a job on a spot node
// it does not pay on.

#include <memory>
#include <vector>

#include "cluster/node_guard.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"

namespace frugal {

struct SpotCost {
  bool candidate = false;       // tier and checkpoint/deferral rules
  double saving_usd_gpu_h = 0;  // r_od − r_spot
  double rework_usd_gpu_h = 0;  // λ k (L + h) r_spot
  bool pays() const { return candidate && saving_usd_gpu_h > rework_usd_gpu_h; }
};

// The estimate above for `job` on a spot pool with terms `t`, on-demand rate `on_demand_usd_h`
// per GPU-hour and `node_gpus` GPUs per node.
SpotCost spot_cost(const JobSpec& job, const SpotTerms& t, double on_demand_usd_h, int node_gpus);

// Admits a job to a spot node only where spot_cost(...).pays(); every other node admits
// everything. Immutable; `spec` and `catalog` are read at construction only.
class SpotGuard final : public NodeGuard {
 public:
  SpotGuard(const ClusterSpec& spec, const GpuCatalog& catalog);
  bool admits(NodeId n, const JobSpec& job) const override;
  // Whether some spot pool holds model m, and whether `job` pays on one of them.
  bool has_spot(GpuModelId m) const;
  bool pays_on(GpuModelId m, const JobSpec& job) const;

 private:
  struct Offer {  // one (spot pool, model) pair
    uint32_t pool;
    GpuModelId model;
    double on_demand_usd_h;
    int node_gpus;
  };
  std::vector<int> offer_of_;  // per node: index into offers_, -1 when not spot
  std::vector<Offer> offers_;
  std::vector<SpotTerms> terms_;  // per pool (copies: the guard may outlive the spec)
};

// nullptr when `spec` has no spot pool.
std::shared_ptr<const SpotGuard> make_spot_guard(const ClusterSpec& spec,
                                                 const GpuCatalog& catalog);

}  // namespace frugal
