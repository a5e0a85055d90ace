#pragma once
// Admit and Filter plugins shared by every profile.
//  capacity (Admit)      — rejects a job that could never run on this cluster even if it
//                          were empty: no node of an allowed model, more GPUs than those
//                          models have, a card share or memory no card offers, host CPU or
//                          memory no node has. Everything else is admitted.
//  model-constraint (Filter) — the job's allowed models that exist in the cluster,
//                          the preferred model first, then catalog order.

#include <memory>

#include "framework/plugins.h"

namespace frugal {

std::unique_ptr<Admit> make_capacity_admit();
std::unique_ptr<Filter> make_model_filter();

}  // namespace frugal
