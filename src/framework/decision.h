#pragma once
// What the engine tells its driver to do. The engine has already applied each decision to
// its own state when it returns it; the driver carries it out in the world (simulated
// progress, a process, a Slurm job) and reports back with events.

#include <string>

#include "cluster/placement.h"
#include "model/units.h"

namespace frugal {

struct Decision {
  enum class Kind {
    kStart,      // run `job` on `placement`
    kPreempt,    // stop `job` (checkpoint first); the engine has requeued it
    kSignal,     // tell `job` to write a checkpoint now; it keeps `placement` until `until`,
                 // then a kPreempt with `saved` follows (its progress at the signal kept)
    kReject,     // `job` can never run on this cluster; `reason` says why
    kDefer,      // `job` waits until `until` by policy (not for lack of capacity)
    kProvision,  // bring on-demand `node` up; report node_provisioned() when it is usable
    kRelease,    // hand on-demand `node` back; the engine no longer uses it
    kMigrate,    // move running `job` to `placement` (old resources already released, new
                 // ones held): its run segment ends (checkpoint, restart elsewhere) and a
                 // new one starts after a restart of `until` seconds without progress
    kResize,     // elastic `job` runs on on `placement` from now (a different GPU count):
                 // handled like kMigrate (segment ends, restart of `until` seconds), then
                 // it progresses at the new size's speed
    kPrefetch,   // a hint: stage `job`'s datasets (JobSpec::datasets and ::dataset) onto the
                 // hot tier of `placement`'s nodes so that they are there by `until`, the
                 // job's planned start (a deferral's end). Nothing is allocated or held; the
                 // job may still start elsewhere. The engine counts the datasets as on those
                 // nodes from now on (Engine::datasets). A driver without a storage tier
                 // ignores it.
  };
  Kind kind = Kind::kStart;
  JobIdx job = 0;
  NodeId node = 0;  // kProvision / kRelease
  Placement placement;
  Seconds until = kNever;  // kDefer: when the wait ends; kMigrate/kResize: the restart cost (s);
                           // kPrefetch: the planned start staging must finish by
  std::string reason;
  // kPreempt after kSignal: the job's progress up to the signal was checkpointed, so only
  // the grace time (checkpoint writing) is spent, nothing is redone. Otherwise the job
  // keeps the work up to its last periodic checkpoint.
  bool saved = false;
  // kStart of a guest (policy/lend_idle.h): `job` runs on `placement`, one slot on a GPU
  // that running job `host` holds; its milli is its share of the card (the MPS limit), not
  // capacity taken from the cluster. A kPreempt of a guest frees nothing.
  bool guest = false;
  JobIdx host = 0;
};

inline const char* to_string(Decision::Kind k) {
  switch (k) {
    case Decision::Kind::kStart:
      return "start";
    case Decision::Kind::kPreempt:
      return "preempt";
    case Decision::Kind::kSignal:
      return "signal";
    case Decision::Kind::kReject:
      return "reject";
    case Decision::Kind::kDefer:
      return "defer";
    case Decision::Kind::kProvision:
      return "provision";
    case Decision::Kind::kRelease:
      return "release";
    case Decision::Kind::kMigrate:
      return "migrate";
    case Decision::Kind::kResize:
      return "resize";
    case Decision::Kind::kPrefetch:
      return "prefetch";
  }
  return "?";
}

}  // namespace frugal
