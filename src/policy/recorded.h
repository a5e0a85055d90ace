#pragma once
// What actually happened, as a profile (`recorded`): each job starts at the first start the
// trace records for it (JobSpec::recorded_start; `frugal history export`, `frugal import
// slurm`), so that the real schedule is priced by the same ledger and summarised by the same
// code as the policies `frugal whatif` compares it with.
//
//   sort      recorded first start (the submission when none is recorded), then arrival
//   admit     capacity; a job whose recorded first start is later than now waits until then
//   filter    model-constraint   place bestfit   postfilter skip   preempt none
//
// A job that does not fit at its recorded start (the replay's cluster, placement or earlier
// run times differ from the real ones) starts as soon after as it fits, without holding up
// the jobs behind it. A job with no recorded start is scheduled from its submission. Each
// job runs once for its trace duration: the gaps between a restarted job's runs are not
// replayed (docs/WHATIF.md).

#include <memory>

#include "framework/plugins.h"

namespace frugal {

std::unique_ptr<QueueSort> make_recorded_sort();
std::unique_ptr<Admit> make_recorded_admit();

}  // namespace frugal
