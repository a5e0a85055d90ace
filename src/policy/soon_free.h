#pragma once
// The soon-free cycle plugin (profile suffix +soonfree), at the Demand point: the autoscaler
// does not provision for queued demand that running jobs of the model are expected to free
// within its on-demand pools' provisioning delay (the job would wait as long for a new node).
// Running jobs ending later than SoonFreeOptions::horizon_s are not walked. The engine
// wakes at the earliest end it counted on, so an overrun is noticed when it happens.

#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

struct SoonFreeOptions {
  Seconds horizon_s = 3600;  // running jobs expected to end later are not walked
};

std::unique_ptr<CyclePlugin> make_soon_free(SoonFreeOptions o = {});

}  // namespace frugal
