#pragma once
// The pack-down cycle plugin (profile suffix +packdown): at the Compact point, on an
// autoscaled cluster with nothing queued, migrates the jobs off lightly used on-demand nodes
// onto fuller (or reserved) nodes when the node time saved exceeds the moves' cost, so the
// autoscaler can release them. The rule in full: pack_down.cpp.

#include <cstddef>
#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

struct PackDownOptions {
  size_t nodes = 8;  // on-demand nodes examined as donors per cycle
  size_t scan = 64;  // destination nodes examined per moved job
};

std::unique_ptr<CyclePlugin> make_pack_down(PackDownOptions o = {});

}  // namespace frugal
