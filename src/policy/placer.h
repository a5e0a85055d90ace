#pragma once
// The built-in placers (the Place extension point: framework/placer.h).

#include <memory>
#include <string>
#include <vector>

#include "framework/placer.h"

namespace frugal {

// firstfit: the lowest-numbered node that fits. bestfit: the node that fits with the fewest
// free GPUs left (ties to the lowest number), which keeps whole nodes free for gangs.
std::unique_ptr<Placer> make_first_fit_placer();
std::unique_ptr<Placer> make_best_fit_placer();
// Builds a placer by name ("firstfit", "bestfit"); nullptr when unknown.
std::unique_ptr<Placer> make_placer(const std::string& name);
std::vector<std::string> placer_names();

}  // namespace frugal
