#pragma once
// The elastic cycle plugin (profile suffix +elastic; +tou adds time-of-use sizing): resizes
// running jobs with elastic bounds (JobSpec::max_gpus > gpus, whole GPUs) while they run.
//
//  - Size: a job that does not fit at its request starts at the largest size down to its
//    minimum that fits; with `tou`, outside off-peak hours a long job on on-demand nodes
//    starts at the size tou_shrink would leave it (tou_sizing.h).
//  - Resize: with jobs queued, shrinks elastic jobs (lowest queue priority first, in place,
//    down to their minimum) when that lets the first blocked whole-GPU job start — unless
//    `autoscale_first` and the autoscaler can still add a node for it; with nothing queued,
//    grows them into idle GPUs (in place, else elsewhere with a restart) when the time saved
//    pays the resize cost. With `tou`, first gives back on-demand nodes when off-peak hours
//    end (tou_shrink).
//  - Demand (with `tou`): a queued elastic job asks the autoscaler for its start size; with
//    nothing queued, the growth that pays in off-peak hours is provisioned.
//
// The model — work W = duration × gpus^alpha, speed-up n^alpha, the resize restart — is in
// EngineOptions (elastic_alpha, resize_cost_s) and docs/ARCHITECTURE.md.

#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

struct ElasticOptions {
  bool tou = false;              // time-of-use sizing (tou_sizing.h)
  bool autoscale_first = false;  // wait for a node the autoscaler can add instead of shrinking
};

std::unique_ptr<CyclePlugin> make_elastic_sizing(const ElasticOptions& o);

}  // namespace frugal
