#pragma once
// Small helpers for building decisions, shared by the engine and the cycle plugins.

#include <string>
#include <utility>

#include "cluster/placement.h"
#include "framework/decision.h"

namespace frugal::decision_util {

// A decision about job j (kStart, kPreempt, kMigrate, kResize, kDefer, ...).
inline Decision job_decision(Decision::Kind kind, JobIdx j, Placement p, Seconds until,
                             std::string reason) {
  Decision d;
  d.kind = kind;
  d.job = j;
  d.placement = std::move(p);
  d.until = until;
  d.reason = std::move(reason);
  return d;
}

// Whole-GPU slots of a placement (an elastic job's size).
inline int whole_slots(const Placement& p) {
  int n = 0;
  for (const Slot& s : p.slots) n += s.gpu >= 0 ? 1 : 0;
  return n;
}

}  // namespace frugal::decision_util
