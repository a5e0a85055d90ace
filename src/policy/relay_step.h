#pragma once
// The cycle plugin that runs a profile's Relay (framework/plugins.h; follow-the-sun,
// policy/follow_sun.h) at the Relay point: at the relay's price ticks and only when no job is
// queued (a relay must not take GPUs a waiting job could use), it offers each running job
// that declares JobSpec::movable, in running-queue order, to the Relay and carries out its
// answers one by one (kMigrate, with the engine's migration restart). It also ranks
// on-demand nodes for the autoscaler by the Relay's provision_rank.

#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

// `relay` must outlive the plugin (both live in one Profile).
std::unique_ptr<CyclePlugin> make_relay_step(const Relay& relay);

}  // namespace frugal
