#pragma once
// The report outputs of `simulate`, `compare` and `whatif`: --html FILE (the report,
// io/html_report.h, and every job of every run as CSV at FILE.jobs.csv, linked from the page),
// --report-json FILE (the renderer's input document, io/run_json.h: exactly what --html
// embeds, for `frugal report`), --jobs-csv FILE (every job as CSV, without --html) and
// --report-jobs N (job rows per run in the document).

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "cli/inputs.h"
#include "model/result.h"
#include "sim/simulator.h"
#include "sim/summary.h"

namespace frugal {

struct ReportOutputs {
  std::string html;         // --html FILE ("": none)
  std::string json;         // --report-json FILE ("": none)
  std::string jobs_csv;     // --jobs-csv FILE ("": none; --html writes FILE.jobs.csv anyway)
  size_t max_jobs = 10000;  // --report-jobs N: job rows per run in the document (0: none)
  std::string baseline;     // the policy the page's deltas compare with ("": the first run)
  std::string title;        // the page's title

  // Registers --html, --report-json, --jobs-csv and --report-jobs on `cmd`.
  void add_to(CLI::App& cmd);
  // Whether the runs' results must be kept; whether they need SimOptions::timeline.
  bool wanted() const { return timeline() || !jobs_csv.empty(); }
  bool timeline() const { return !html.empty() || !json.empty(); }
};

// Writes what `o` asks for from runs kept as wanted() says (`summaries[i]` summarises
// `results[i]`; recorded with SimOptions::timeline when o.timeline()): --jobs-csv, then
// FILE.jobs.csv and FILE of --html, then --report-json. Errors name the option and the file.
Status write_report_outputs(const ReportOutputs& o, const std::vector<Summary>& summaries,
                            const std::vector<SimResult>& results, const Inputs& in);

}  // namespace frugal
