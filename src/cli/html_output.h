#pragma once
// --html FILE of `simulate`, `compare` and `whatif`: the report (io/html_report.h) at FILE
// and every job of every run as CSV at FILE.jobs.csv (linked from the page).

#include <string>
#include <vector>

#include "cli/inputs.h"
#include "model/result.h"
#include "sim/simulator.h"
#include "sim/summary.h"

namespace frugal {

// Writes FILE.jobs.csv, then FILE, from runs recorded with SimOptions::timeline
// (`summaries[i]` summarises `results[i]`). `baseline`: the policy deltas compare with ("":
// the first run). Errors name the file that could not be written.
Status write_html_outputs(const std::string& path, const std::string& baseline,
                          const std::string& title, const std::vector<Summary>& summaries,
                          const std::vector<SimResult>& results, const Inputs& in);

}  // namespace frugal
