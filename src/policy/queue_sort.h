#pragma once
// QueueSort plugins.
//  arrival  — first come, first served (submit time, then arrival order).
//  shortest — shortest job first by the job's runtime estimate (JobSpec::runtime_estimate:
//             the trace's estimate, or the online prediction with --predict-runtimes; the
//             true duration when there is neither — then an oracle, as in the SJF baseline
//             of the literature), then submit time.
//  las      — Tiresias' discretised two-dimensional least-attained-service: jobs sit in
//             queues by attained GPU-seconds (thresholds), FIFO by queue-entry time within
//             a queue. Default thresholds 3,600 and 36,000 GPU-seconds.

#include <memory>
#include <vector>

#include "framework/plugins.h"

namespace frugal {

std::unique_ptr<QueueSort> make_arrival_sort();
std::unique_ptr<QueueSort> make_shortest_sort();
std::unique_ptr<QueueSort> make_las_sort(std::vector<double> thresholds = {3600, 36000});

}  // namespace frugal
