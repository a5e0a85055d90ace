#pragma once
// Dataset prefetch: a job deferred to a planned start (Admit's kDefer, e.g. time-shifting)
// gets its datasets staged onto the hot tier of the node(s) it is expected to run on, so
// that staging ends before it starts (Decision::kPrefetch; framework/dataset_residency.h).
//
// Prefetch point (framework/cycle_plugin.h), each cycle, for every deferred job that declares
// datasets of known total size G GB (framework/dataset_residency.h: reported sizes, or the
// trace's dataset_gb) and was not prefetched for this deferral yet:
//
//   lead = G ÷ B + prefetch_margin_s, at most max_lead_s,
//
// where B is the lowest staging bandwidth known for any node (DatasetOptions'
// staging_gb_per_s included), so the lead covers whichever node is chosen. From
// `until − lead` on (at once when the deferral is shorter), the target is where the profile's
// Filter and Place would put the job on the cluster now (CycleView::try_place), moved to a
// node that already holds its data by policy/dataset_locality.h's rule; a kPrefetch names it
// with `until` = the deferral's end. The engine then counts the datasets as on those nodes,
// so the locality rule draws the job there when it starts if that node still has room; the
// staging is a hint and never holds GPUs. When the job fits nowhere now, the plugin tries
// again at each cycle, waking every `retry_s`, until the deferral ends. A job is prefetched
// once per deferral. It adds no word to Profile::describe() and does nothing for jobs
// without datasets.

#include <memory>

#include "framework/cycle_plugin.h"
#include "policy/staging_cost.h"

namespace frugal {

struct PrefetchOptions {
  double max_lead_s = 24 * 3600.0;  // deferred jobs starting later than this are not planned yet
  double retry_s = 300;             // no room for the target now: look again this much later
};

std::unique_ptr<CyclePlugin> make_dataset_prefetch(DatasetOptions o = {}, PrefetchOptions p = {});

}  // namespace frugal
