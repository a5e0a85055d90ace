#pragma once
// What a cycle plugin (framework/cycle_plugin.h) may see and do during a scheduling cycle.
// CycleOps extends the read-only CycleView with the running queue, capacity, the engine's
// options and this cycle's state, and with the few changes a plugin may make: every change
// goes through the engine, which keeps its indexes consistent and records the decision.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "framework/capacity_view.h"
#include "framework/decision.h"
#include "framework/engine_options.h"
#include "framework/plugins.h"
#include "model/result.h"

namespace frugal {

// State of the cycle in progress, rebuilt by the engine at each schedule() call.
struct CycleState {
  // Per job index: 1 when the job was stopped tentatively by the Preempt point this cycle
  // and has not resumed (empty when nothing was stopped).
  std::vector<char> stopped;
  bool stopped_now(JobIdx j) const { return j < stopped.size() && stopped[j] != 0; }
};

class CycleOps : public CycleView {
 public:
  // Running jobs in QueueSort order (highest priority first).
  virtual const std::set<QueueKey>& running() const = 0;
  // Running jobs with elastic bounds (JobRuntime::elastic) / with JobSpec::movable.
  virtual size_t running_elastic() const = 0;
  virtual size_t running_movable() const = 0;
  virtual const CapacityView& capacity() const = 0;
  virtual const OnDemandShape& on_demand_shape() const = 0;
  virtual const EngineOptions& options() const = 0;
  virtual const CycleState& cycle() const = 0;
  // Jobs Admit deferred (waiting out of the queue until a time), by (until, job).
  virtual const std::set<std::pair<Seconds, JobIdx>>& deferred() const = 0;
  // The speed job r would run at on p (the model's relative speed; for an elastic job on n
  // whole GPUs, times (n/gpus)^elastic_alpha).
  virtual double speed_on(const JobRuntime& r, const Placement& p) const = 0;
  // Where the profile's Filter and Place would put r at n whole GPUs on cluster() (on
  // `model` only, when one is given); nullopt when it does not fit.
  virtual std::optional<Placement> place_sized(const JobRuntime& r, int n,
                                               GpuModelId model = kNoGpuModel) const = 0;

  // The cluster state itself, for tentative what-ifs (release and allocate, then try_place):
  // the plugin must restore every change before it makes any other call below or returns.
  virtual ClusterState& scratch() = 0;
  // Moves running job j to `to` now: kMigrate (counted in JobRuntime::migrations) or kResize
  // (counted in resizes), its new run segment starting with `cost` seconds without progress;
  // the decision carries `reason`. On error nothing changes and nothing is decided.
  virtual Status move(JobIdx j, Placement to, Decision::Kind kind, Seconds cost,
                      std::string reason) = 0;
  // Starts pending job j on p now (kStart). On error (p not free) nothing changes.
  virtual Status start_job(JobIdx j, Placement p) = 0;
  // Guests (policy/lend_idle.h): running guests → their hosts.
  virtual const std::map<JobIdx, JobIdx>& guests() const = 0;
  // Starts pending job j (JobSpec::opportunistic, one card) as a guest on `slot`, a GPU
  // running job `host` (JobSpec::lend_idle, or lending by the plugin's policy) holds with no
  // guest yet: a kStart with Decision::guest; slot.milli is its share (the MPS limit). It
  // holds no cluster capacity and is stopped before the host stops or moves. On error
  // nothing changes.
  virtual Status start_guest(JobIdx j, JobIdx host, Slot slot, std::string reason) = 0;
  // Stops guest j now (kPreempt, `reason`) and requeues it; false when j is not a guest.
  virtual bool recall_guest(JobIdx j, std::string reason) = 0;
  // Asks the driver to stage deferred job j's datasets onto the nodes of `p` by `by` (a
  // kPrefetch decision with `reason`); nothing is allocated. The engine counts the job's
  // datasets of known size as on those nodes from now on. Error (nothing decided) when j is
  // not deferred or p has no slot.
  virtual Status prefetch(JobIdx j, const Placement& p, Seconds by, std::string reason) = 0;
  // An internal failure about job j (a plan the cluster state refused): reported as a kDefer
  // decision with the next cycle's decisions, `message` as its reason.
  virtual void report_internal(JobIdx j, std::string message) = 0;
};

}  // namespace frugal
