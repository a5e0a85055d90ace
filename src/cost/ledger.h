#pragma once
// The hidden-cost ledger: every GPU-second and stored byte priced (dollars, kWh, CO2) and
// attributed to a job and team — or, for provisioned capacity no job held, to the cluster
// as unattributed cost. Waste categories say which dollars were avoidable:
//
//   a cost line beside compute and storage: transfer (inter-region data moves of jobs that
//   change region, src/cost/transfer.h), charged to the job;
//   inside teams' cost (also shown per team):
//     idle_allocated   rental of allocated GPU time not spent computing: (1 − utilization)
//     rework           cost of work lost since the last checkpoint at a stop, redone later
//     spot_reclaim     the same for stops because the provider reclaimed a spot node (the
//                      reclaim's lost work: reported apart from rework, not inside it)
//     peak_premium     a deadline-flexible job's cost at its actual start minus its cost
//                      at the cheapest start its deadline allowed (24 h for deferrable jobs
//                      without one); contiguous run assumed for both
//     oversized        rental beyond what the same work costs on the cheapest-per-work model
//                      the job may use (finetune, eval and preprocess classes only)
//     storage_tier     hot-tier premium over the next tier for data kept while queued
//     duplicate_storage a dataset kept by several jobs at once, beyond one copy
//   unattributed (provisioned capacity nobody held), split exactly into:
//     stranded         free GPUs on nodes with fewer free than the smallest queued job
//                      blocked by fragmentation (while enough GPUs were free in total)
//     idle_unallocated the rest; of which
//       booting        GPUs of on-demand nodes still booting (the pool's provisioning
//                      delay: paid from the request, usable only when the node is up) —
//                      a part of idle_unallocated, not a category beside it
//
// Every dollar lands once: total = Σ teams + unattributed; idle_unallocated + stranded =
// unattributed; booting <= idle_unallocated. Fed only through RunAccounting
// (src/cost/run_accounting.h), which the simulator, `frugal attribute` and the service share;
// no clock, no I/O.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_state.h"
#include "cluster/placement.h"
#include "cost/pricing.h"
#include "model/job.h"
#include "storage/plan/checkpoint_storage.h"
#include "storage/plan/lifecycle_policies.h"

namespace frugal {

struct Waste {
  double idle_allocated_usd = 0, idle_unallocated_usd = 0, stranded_usd = 0, rework_usd = 0,
         peak_premium_usd = 0, oversized_usd = 0, storage_tier_usd = 0, duplicate_storage_usd = 0;
  double spot_reclaim_usd = 0;
  double booting_usd = 0;  // the part of idle_unallocated_usd on nodes still booting
  Waste& operator+=(const Waste& o);
  double total() const;  // the categories (booting_usd is inside idle_unallocated_usd)
};

// A slice of the ledger: a team, a job class, a region, or the whole cluster.
struct CostAccount {
  SpanCost compute;  // rental + energy of GPU time
  double storage_usd = 0;
  double transfer_usd = 0;  // inter-region data transfer (src/cost/transfer.h)
  double gpu_hours = 0;     // allocated GPU-hours (attributed) or idle GPU-hours (unattributed)
  // Of an unattributed account's gpu_hours, those on on-demand nodes still booting (0 in
  // attributed accounts): the GPU-time waste.booting_usd paid for.
  double booting_gpu_hours = 0;
  Waste waste;
  double total_usd() const { return compute.total_usd() + storage_usd + transfer_usd; }
  CostAccount& operator+=(const CostAccount& o);
};

// Compute cost of the deferrable jobs (JobSpec::deferrable), reported apart so time-shifting
// can be judged: cost_usd = rental + energy of their GPU time (storage excluded).
struct DeferrableTotals {
  size_t jobs = 0;
  double energy_usd = 0;
  double energy_kwh = 0;
  double cost_usd = 0;
};

// Capacity held per pool, whether or not a job used it: what a rented pool was paid for.
// Integrated from the provisioned counts each Ledger::capacity call is given (an autoscaled
// pool: from the power-up request to the release; owned and reserved: all the time).
struct PoolCapacity {
  double gpu_hours = 0;          // provisioned GPU-hours
  double node_hours = 0;         // provisioned node-hours (0 when node counts were not given)
  double booting_gpu_hours = 0;  // of gpu_hours, on nodes still booting
};

struct LedgerReport {
  CostAccount total;         // everything: teams + unattributed
  CostAccount unattributed;  // provisioned capacity no job held
  std::map<std::string, CostAccount> by_team, by_class, by_region;
  // Unattributed cost per pool (the capacity no job held, where it was: e.g. how much of a
  // reserved commitment sat idle); pools with none are absent.
  std::map<std::string, CostAccount> unattributed_by_pool;
  // Provisioned capacity per pool (pools that held none are absent).
  std::map<std::string, PoolCapacity> capacity_by_pool;
  bool series_wrapped = false;  // a price/carbon series was reused past its end
  bool spot = false;            // the cluster has a spot pool (reports show spot_reclaim)
  DeferrableTotals deferrable;
};

class Ledger {
 public:
  // All references must outlive the ledger. `jobs_hint`: the number of jobs expected (job
  // indices below it are accounted without reallocation; others still work).
  Ledger(const ClusterSpec& spec, const GpuCatalog& catalog, const ClusterState& state,
         GpuModelId reference_model, size_t jobs_hint = 0);

  // A run segment of job `j` ended: it held `p` over [t0, t1), and `kept_s` seconds of the
  // segment's work survived (the rest is rework — spot_reclaim waste instead when
  // `reclaimed`: the segment ended because a spot node was reclaimed). `utilization` >= 0
  // replaces the spec's (a measured one).
  void segment(JobIdx j, const JobSpec& job, const Placement& p, double t0, double t1,
               double kept_s, double utilization = -1, bool reclaimed = false);
  // What segment() would charge `job` for holding `p` over [t0, t1) at `utilization` (< 0:
  // the spec's), booking nothing: the cost so far of a segment still open.
  SpanCost quote(const JobSpec& job, const Placement& p, double t0, double t1,
                 double utilization = -1) const;
  // A guest's run segment (policy/lend_idle.h): guest `g` ran on `p` — one slot on a card
  // job `host` held, its milli the guest's share — over [t0, t1). The guest is charged its
  // share as segment() would (`utilization` its busy fraction of that share), and the host's
  // compute, GPU-hours and idle_allocated waste are lowered by the same amounts: the card is
  // paid once, and the idle the guest used is no longer the host's waste.
  void guest_segment(JobIdx g, const JobSpec& guest, JobIdx host, const JobSpec& host_job,
                     const Placement& p, double t0, double t1, double kept_s,
                     double utilization = -1);
  // Job `j`'s data moved between regions before a run segment there (src/cost/transfer.h):
  // `usd` (>= 0) is added to its transfer cost (not waste: the move was chosen to save more).
  void transfer(JobIdx j, const JobSpec& job, double usd);
  // Reads `state` from now on: another cluster state of the same spec (the service's new
  // engine after a policy change). Call after capacity() up to the change; the idle stretches
  // open then go on, recounted at the next capacity().
  void rebind(const ClusterState& state);
  // Capacity between two instants with the cluster as it is now (call before the state
  // changes at t1): provisioned GPUs per cost centre (NodePool::provisioned_gpus) not
  // allocated to a job are unattributed; `fragmentation_block` as reported by the engine
  // after its last cycle; `booting_gpus` per centre (NodePool::booting_gpus; empty = none)
  // the part of the provisioned GPUs on nodes still booting; `provisioned_nodes` per centre
  // (NodePool::provisioned_nodes; empty = not counted) for capacity_by_pool's node-hours.
  void capacity(double t0, double t1, int fragmentation_block,
                const std::vector<int64_t>& provisioned_gpus,
                const std::vector<int64_t>& booting_gpus = {},
                const std::vector<int64_t>& provisioned_nodes = {});
  // Job `j` ended or was rejected: storage and the per-job waste checks. `first_start` < 0
  // when it never ran; `run_time` is its total running time; `utilization` as in segment().
  void job_ended(JobIdx j, const JobSpec& job, double first_start, double finish, double run_time,
                 double utilization = -1);

  // Opt-in checkpoint lifecycle (storage/plan/checkpoint_storage.h): from now on, a job with
  // checkpoint_gb > 0 and checkpoint_interval > 0 that ran is charged, instead of one copy of
  // checkpoint_gb on its declared tier from submission to its end, its checkpoint series —
  // one checkpoint_gb every checkpoint_interval of its run time, taken as one contiguous run
  // from its first start — carried through `policies` up to its end, priced per tier. Its
  // dataset stays on the declared tier. False, and nothing changes, when the cluster's tiers
  // lack hot, warm or cold.
  bool set_checkpoint_lifecycle(const storage::LifecyclePolicies& policies);

  // Per-job totals (USD), by job index; 0 for jobs not seen.
  double job_total_usd(JobIdx j) const;
  // Per-job waste (USD, all categories charged to the job so far); 0 for jobs not seen.
  double job_waste_usd(JobIdx j) const;
  // Per-job compute (rental + energy of GPU time); zero for jobs not seen.
  SpanCost job_compute(JobIdx j) const;
  // The cost centre job j ran in (its first slot's, at its last segment); -1 if it never ran.
  int64_t job_centre(JobIdx j) const;
  const Pricing& pricing() const { return pricing_; }
  // Folds everything into the report (duplicate storage is settled here).
  LedgerReport report() const;

 private:
  struct JobAccount {
    CostAccount account;
    uint32_t region = 0;
    uint32_t centre = 0;
    bool placed = false;
  };
  struct DatasetUse {
    double t0, t1, usd_per_s;
    JobIdx job;
  };
  JobAccount& job_account(JobIdx j);
  // job_ended's parts.
  void charge_storage(JobIdx j, JobAccount& ja, const JobSpec& job, double first_start,
                      double finish, double run_time);
  // The job's checkpoint series under the lifecycle (USD); < 0 when the lifecycle is off or
  // does not apply to the job.
  double lifecycle_checkpoint_usd(const JobSpec& job, double first_start, double finish,
                                  double run_time) const;
  void charge_peak_premium(JobAccount& ja, const JobSpec& job, double u, double first_start,
                           double run_time) const;
  void charge_oversized(JobAccount& ja, const JobSpec& job) const;
  std::vector<double> duplicate_storage() const;  // per job index (report())
  void note_time(double t0, double t1);
  double tier_price(const std::string& tier) const;  // USD per GB-month; < 0 if unknown

  const ClusterSpec& spec_;
  const GpuCatalog& catalog_;
  const ClusterState* state_;  // rebind() may change it
  GpuModelId reference_;
  Pricing pricing_;
  std::vector<JobAccount> jobs_;
  std::vector<const JobSpec*> specs_;
  CostAccount unattributed_;
  std::vector<CostAccount> unattributed_by_region_;
  std::vector<CostAccount> unattributed_by_pool_;
  std::map<std::string, std::vector<DatasetUse>> datasets_;
  std::vector<int64_t> centre_nodes_;
  std::vector<uint32_t> centre_region_;  // per centre, constant
  // capacity(): each region's integrals over the current span, computed once per call, and
  // its series' marks at the end of the last span (the next span usually starts there).
  // A stretch of constant idle capacity in one centre, priced when it closes.
  static constexpr uint64_t kStaleVersion = ~uint64_t{0};
  struct IdleStretch {
    bool open = false;
    double since = 0;
    double idle = 0;      // idle GPUs (nodes, for CPU-only centres)
    double stranded = 0;  // of which stranded
    double booting = 0;   // of which on nodes still booting
    // What the counts were derived from (to skip recomputing them when nothing moved).
    uint64_t version = 0;
    int block = 0;
    int64_t provisioned = 0;
    int64_t booting_gpus = 0;
  };
  void price_stretch(uint32_t c, const IdleStretch& o, double until, CostAccount& total,
                     std::vector<CostAccount>& by_region, std::vector<CostAccount>& by_pool) const;
  std::vector<IdleStretch> open_;
  std::vector<PoolCapacity> capacity_by_pool_;  // per pool index
  double capacity_end_ = 0;
  std::vector<StorageTier> default_tiers_ = default_storage_tiers();
  std::optional<storage::LifecyclePolicies> lifecycle_;  // set_checkpoint_lifecycle
  storage::TierPrices lifecycle_prices_;
  double first_t_ = 0, last_t_ = 0;
  bool any_time_ = false;
};

}  // namespace frugal
