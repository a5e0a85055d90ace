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
    kStart,    // run `job` on `placement`
    kPreempt,  // stop `job` (checkpoint first); the engine has requeued it
    kReject,   // `job` can never run on this cluster; `reason` says why
    kDefer,    // `job` waits until `until` by policy (not for lack of capacity)
  };
  Kind kind = Kind::kStart;
  JobIdx job = 0;
  Placement placement;
  Seconds until = kNever;
  std::string reason;
};

inline const char* to_string(Decision::Kind k) {
  switch (k) {
    case Decision::Kind::kStart:
      return "start";
    case Decision::Kind::kPreempt:
      return "preempt";
    case Decision::Kind::kReject:
      return "reject";
    case Decision::Kind::kDefer:
      return "defer";
  }
  return "?";
}

}  // namespace frugal
