#pragma once
// Writes jobs in frugal's native CSV trace format (docs/TRACE_FORMATS.md), columns
// id,team,class,tier,submit,gpus,gpu_milli,duration. Returns an Error naming the path
// when it cannot be written.

#include <string>
#include <vector>

#include "model/job.h"
#include "model/result.h"

namespace frugal {

Status write_native_csv(const std::vector<JobSpec>& jobs, const std::string& path);

}  // namespace frugal
