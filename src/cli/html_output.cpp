#include "cli/html_output.h"

#include <fmt/format.h>
#include <fstream>

#include "io/html_report.h"
#include "io/run_json.h"

namespace frugal {

void ReportOutputs::add_to(CLI::App& cmd) {
  cmd.add_option("--html", html,
                 "Also write a self-contained HTML report to FILE and every job to "
                 "FILE.jobs.csv (docs/REPORT.md)");
  cmd.add_option("--report-json", json,
                 "Also write the HTML report's input document to FILE (what --html embeds; "
                 "`frugal report --json FILE` renders it)");
  cmd.add_option("--jobs-csv", jobs_csv,
                 "Also write every job of every run to FILE (CSV, the columns of the report's "
                 "job table)");
  cmd.add_option("--report-jobs", max_jobs,
                 "Job rows per run in the report (--html, --report-json): the costliest half "
                 "and the longest-waiting rest; 0 for none")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

Status write_report_outputs(const ReportOutputs& o, const std::vector<Summary>& summaries,
                            const std::vector<SimResult>& results, const Inputs& in) {
  const RunInputs ri{in.trace.jobs, in.catalog, in.cluster};
  if (!o.jobs_csv.empty())
    if (Status st = write_jobs_csv(o.jobs_csv, results, ri); !st.ok())
      return Error{fmt::format("--jobs-csv: {}", st.error().message)};
  if (!o.timeline()) return Status::Ok();
  const nlohmann::json doc = report_document(summaries, results, ri, o.max_jobs);
  if (!o.html.empty()) {
    const std::string csv = o.html + ".jobs.csv";
    if (Status st = write_jobs_csv(csv, results, ri); !st.ok())
      return Error{fmt::format("--html: {}", st.error().message)};
    HtmlReportOptions h;
    h.title = o.title;
    h.baseline = o.baseline;
    const auto slash = csv.find_last_of('/');
    h.jobs_csv = slash == std::string::npos ? csv : csv.substr(slash + 1);
    if (Status st = write_html_report(o.html, doc, h); !st.ok()) return st;
  }
  if (!o.json.empty()) {
    std::ofstream f(o.json, std::ios::binary);
    f << doc.dump() << '\n';
    f.flush();
    if (!f) return Error{fmt::format("--report-json {}: cannot write", o.json)};
  }
  return Status::Ok();
}

}  // namespace frugal
