#pragma once
// Writes jobs in frugal's native CSV trace format (docs/TRACE_FORMATS.md), columns
// id,team,class,tier,submit,gpus,gpu_milli,duration. Returns an Error naming the path
// when it cannot be written.

#include <string>
#include <vector>

#include "model/gpu_catalog.h"
#include "model/job.h"
#include "model/result.h"

namespace frugal {

Status write_native_csv(const std::vector<JobSpec>& jobs, const std::string& path);

// The columns a history carries (`frugal history export`): id,team,name,class,tier,submit,
// gpus,gpu_milli,min_gpus,max_gpus,allowed_models,duration,estimate,deadline,deferrable,
// utilization,first_start,end,restarts. Unknown values (no estimate, no deadline, no
// recorded start or end) are empty cells; text is quoted where it holds a comma or quote,
// and a line break in it becomes a space (a record is one line). Numbers are written with
// full precision, so the file reads back to the same jobs.
Status write_history_csv(const std::vector<JobSpec>& jobs, const GpuCatalog& catalog,
                         const std::string& path);

}  // namespace frugal
