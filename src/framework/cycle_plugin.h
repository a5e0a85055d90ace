#pragma once
// Cycle plugins: features that act on running jobs and capacity rather than on one queued
// job (elastic sizing, relays, pack-down, soon-free, prompt release). The engine calls every plugin
// of the profile at each named point, in the profile's order, in this fixed sequence:
//
//   queue walk ── Size            the placement a job that fits (or not) starts on
//   Consolidate point (plugins.h)
//   Resize                        resize running jobs (kResize), start queued ones
//   Relay                         move running jobs between regions (kMigrate)
//   Compact                       empty nodes by migration (kMigrate)
//   Lend                          guests on measured idle: recall, then place (kStart)
//   Prefetch                      stage deferred jobs' datasets ahead of their start
//   Autoscale ── Demand           what queued jobs count for; what to subtract; what to add
//                                 with nothing queued; the order nodes are provisioned in
//   Release                       whether idle on-demand nodes go back at once
//   Guard                         (once, at engine start) nodes a job may not use at all
//   Health                        (when a node's telemetry arrives) which tiers it takes
//   Hold                          (as a job enters the queue, and for every waiting job when
//                                 the conditions change) whether it waits out of the queue
//   Wakeup                        when the plugin needs the next cycle
//
// A plugin overrides the points it uses; the defaults do nothing. It may keep state between
// cycles (the engine owns one instance per profile) and changes the cycle only through
// CycleOps. Adding one: a class here in src/policy/, its registration in policy/features.cpp.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/cycle_ops.h"

namespace frugal {

class CyclePlugin {
 public:
  virtual ~CyclePlugin() = default;
  virtual std::string name() const = 0;
  // Words it adds to Profile::describe() ("elastic", "tou", ...).
  virtual std::vector<std::string> describe_words() const { return {name()}; }

  // Size (in the queue walk): the placement queued job r starts on, given what the Filter
  // and Place found for it (`p`, nullopt: it did not fit) on candidates `c`. nullopt leaves
  // it queued.
  virtual std::optional<Placement> size(const CycleOps& ops, const JobRuntime& r,
                                        std::optional<Placement> p, const Candidates& c) const {
    (void)ops;
    (void)r;
    (void)c;
    return p;
  }
  // Resize (after the walk and the Consolidate point).
  virtual void resize(CycleOps& ops) { (void)ops; }
  // Relay (after Resize): move running jobs where they cost less (policy/relay_step.h).
  virtual void relay(CycleOps& ops) { (void)ops; }
  // Compact (after Relay).
  virtual void compact(CycleOps& ops) { (void)ops; }
  // Lend (after Compact): recall guests whose host needs its GPU back and start queued
  // opportunistic jobs as guests (CycleOps::guests/start_guest/recall_guest).
  virtual void lend(CycleOps& ops) { (void)ops; }
  // Prefetch (after Lend): ask for deferred jobs' datasets to be staged where they will run
  // (CycleOps::deferred, CycleOps::prefetch; policy/dataset_prefetch.h).
  virtual void prefetch(CycleOps& ops) { (void)ops; }

  // Demand (the autoscale step). queued_gpus, adjust_demand and idle_demand run only on an
  // autoscaled cluster; queue_empty at every cycle that ends with nothing queued.
  // The GPUs of model m that queued job r asks the autoscaler for (`gpus`: what earlier
  // plugins made of its request).
  virtual double queued_gpus(const CycleOps& ops, const JobRuntime& r, GpuModelId m,
                             double gpus) const {
    (void)ops;
    (void)r;
    (void)m;
    return gpus;
  }
  // The queue's unmet demand per model (after free capacity): lower it where waiting costs
  // nothing. Called only while jobs are queued.
  virtual void adjust_demand(const CycleOps& ops, std::vector<double>& demand) {
    (void)ops;
    (void)demand;
  }
  // The cycle ends with nothing queued (called before idle_demand).
  virtual void queue_empty(const CycleOps& ops) { (void)ops; }
  // With nothing queued: GPUs per model to provision anyway (empty: none).
  virtual std::vector<double> idle_demand(const CycleOps& ops) const {
    (void)ops;
    return {};
  }
  // Provision order: when some plugin ranks (the first that does on this cluster), the
  // autoscaler provisions a model's on-demand nodes lowest rank first (ties: node id), else
  // in node order.
  virtual bool ranks_provisioning(const CycleOps& ops) const {
    (void)ops;
    return false;
  }
  virtual double provision_rank(const CycleOps& ops, NodeId n) const {
    (void)ops;
    (void)n;
    return 0;
  }
  // Guard (once, when the engine starts): the nodes jobs may use at all on cluster `spec`
  // priced by `catalog` (cluster/node_guard.h); nullptr: no restriction. The first plugin
  // that gives one sets the engine's.
  virtual std::shared_ptr<const NodeGuard> node_guard(const ClusterSpec& spec,
                                                      const GpuCatalog& catalog) const {
    (void)spec;
    (void)catalog;
    return nullptr;
  }
  // Health (at each Engine::observe_node, between cycles): the limit node n's reading `r`
  // (r.known() false: its telemetry stopped) puts on new work there. The engine applies the
  // most restrictive answer of the profile's plugins (the first one's on a tie) from the
  // next cycle on; running jobs stay. A plugin that needs a condition to last (a window)
  // keeps earlier readings in its plugin state.
  virtual NodeLimit node_limit(const CycleView& v, NodeId n, const NodeReading& r) const {
    (void)v;
    (void)n;
    (void)r;
    return {};
  }
  // Hold (as a job enters the queue — arrival, a deferral's end, a requeue — and for every
  // waiting job when the driver's conditions change, Engine::set_conditions): why queued job
  // r waits out of the queue, "" to let it in. A held job is not walked, planned for
  // (preemption, consolidation, shrinking, lending) or counted as demand; it re-enters the
  // queue, as an arrival, at the first change of conditions after which no plugin holds it.
  // The engine keeps the first plugin's reason; the answer should depend only on the job
  // and v.conditions().
  virtual std::string hold(const CycleView& v, const JobRuntime& r) const {
    (void)v;
    (void)r;
    return {};
  }
  // Release: hand an idle on-demand node back at once rather than after its pool's idle
  // timeout (NodePool::set_prompt_release).
  virtual bool prompt_release() const { return false; }
  // Wakeup: the next instant after ops.now() this plugin needs a cycle (kNever: none).
  virtual Seconds next_wakeup(const CycleOps& ops) const {
    (void)ops;
    return kNever;
  }
};

}  // namespace frugal
