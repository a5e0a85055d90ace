#pragma once
// Preempt plugins.
//  priority-order — used with a dynamic QueueSort such as LAS: walks running and pending
//    jobs together in queue order, giving each its GPUs while the cluster's up capacity
//    lasts; running jobs left without a share are the victims. The engine stops victims
//    only as far as needed: a victim whose GPUs no selected job took is left running.

#include <memory>

#include "framework/plugins.h"

namespace frugal {

std::unique_ptr<Preempt> make_priority_order_preempt();

}  // namespace frugal
