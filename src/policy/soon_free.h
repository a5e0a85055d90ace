#pragma once
// The soon-free cycle plugin (profile suffix +soonfree), at the Demand point: the autoscaler
// does not provision for queued demand that running jobs of the model are expected to free
// within its on-demand pools' provisioning delay (the job would wait as long for a new node).
// Running jobs ending later than EngineOptions::soon_free_horizon_s are not walked. The engine
// wakes at the earliest end it counted on, so an overrun is noticed when it happens.

#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

std::unique_ptr<CyclePlugin> make_soon_free();

}  // namespace frugal
