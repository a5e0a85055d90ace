#pragma once
// Time-of-use sizing rules for elastic jobs on on-demand capacity (the elastic cycle
// plugin's option `tou`, profile suffix +tou; the model and its derivation in
// tou_sizing.cpp). Pure functions of what a cycle plugin sees (CycleOps), except tou_shrink,
// which resizes. "Cheap" hours are a region's discounted off-peak hours
// (Region::time_of_use, Region::offpeak).

#include <cstdint>
#include <vector>

#include "framework/cycle_ops.h"

namespace frugal {

// Whether region `region`'s on-demand rental is discounted (an off-peak hour) at trace time t.
bool tou_cheap(const CycleOps& ops, uint32_t region, Seconds t);
// The first whole hour after t whose off-peak state in the region is `cheap` (kNever: none
// within 8 days).
Seconds tou_next_hour(const CycleOps& ops, uint32_t region, Seconds t, bool cheap);
// End of the off-peak run of hours containing t (t when t is not off-peak; kNever when it
// lasts beyond 8 days).
Seconds tou_cheap_until(const CycleOps& ops, uint32_t region, Seconds t);
// The first whole hour after t that is off-peak in the region (kNever: none within 8 days).
Seconds tou_next_start(const CycleOps& ops, uint32_t region, Seconds t);
// The next off-peak boundary (start or end) after `now` of any region with a discount and
// on-demand pools; kNever when none within 8 days.
Seconds tou_next_boundary(const CycleOps& ops, Seconds now);
// Whether growing running job r to n GPUs (same model, new on-demand GPUs of its region
// usable after `boot_s`) costs less than leaving it at its size.
bool tou_growth_pays(const CycleOps& ops, const JobRuntime& r, int n, Seconds now, Seconds boot_s);
// Reference-model seconds of work job r has left (from its runtime estimate).
double left_work(const JobRuntime& r, Seconds now);
// Outside off-peak hours, the most GPUs elastic job r keeps on on-demand nodes of its
// region: its minimum when at its request it would still run at the region's next off-peak
// start and that does not delay its end, else its request (tou_shrink gives back the rest;
// elastic growth does not take it again).
int tou_peak_size(const CycleOps& ops, const JobRuntime& r, Seconds now);
// The same for a job in region `home` expected to end at `end`.
int tou_peak_size(const CycleOps& ops, const JobRuntime& r, uint32_t home, Seconds end,
                  Seconds now);
// The size elastic job r starts at on on-demand nodes of model m in region `home`: its
// request, or outside off-peak hours the most GPUs on the whole nodes tou_peak_size needs (a
// job that would give nodes back at once does not take them).
int tou_start_size(const CycleOps& ops, const JobRuntime& r, GpuModelId m, uint32_t home,
                   Seconds now);
// GPUs per model that off-peak growth would take on on-demand nodes not yet up.
std::vector<double> tou_growth_demand(const CycleOps& ops, Seconds now);
// Outside off-peak hours: elastic jobs above their peak size give back whole on-demand nodes
// they alone occupy (kResize), down to no less than it. Nothing on a static cluster.
void tou_shrink(CycleOps& ops, Seconds now);

}  // namespace frugal
