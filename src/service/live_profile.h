#pragma once
// A policy string as the live service runs it: the profile of policy/profile.h, with the
// service's settings where a profile takes them (`tiers` and `frugal`: the checkpoint grace
// of the service's stop plan, and max_jobs_per_cycle as the preemption candidates looked
// at). The telemetry-driven plugins (node health, sharing, the general-tier pause) are the
// scheduler's to add: a shadow (sim/shadow.h) runs without them.

#include <string>

#include "framework/engine_options.h"
#include "framework/profile.h"
#include "model/gpu_catalog.h"
#include "model/result.h"
#include "service/config.h"

namespace frugal {

// Error: "policy: ..." naming the part that does not parse, or `recorded` (a replay of a
// trace's recorded starts, policy/recorded.h: nothing live records them).
Result<Profile> live_profile(const std::string& policy, const ServiceConfig& config);

// The engine options of the service: walk_limit max_jobs_per_cycle, speeds relative to
// A100-80GB (as `simulate` defaults), on-demand pools autoscaled only where the backend
// powers nodes (`powers_nodes`), static elsewhere.
EngineOptions service_engine_options(const GpuCatalog& catalog, size_t max_jobs_per_cycle,
                                     bool powers_nodes);

}  // namespace frugal
