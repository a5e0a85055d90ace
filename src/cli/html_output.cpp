#include "cli/html_output.h"

#include <fmt/format.h>

#include "io/html_report.h"
#include "io/run_json.h"

namespace frugal {

Status write_html_outputs(const std::string& path, const std::string& baseline,
                          const std::string& title, const std::vector<Summary>& summaries,
                          const std::vector<SimResult>& results, const Inputs& in) {
  const RunInputs ri{in.trace.jobs, in.catalog, in.cluster};
  const std::string csv = path + ".jobs.csv";
  if (Status st = write_jobs_csv(csv, results, ri); !st.ok())
    return Error{fmt::format("--html: {}", st.error().message)};
  HtmlReportOptions o;
  o.title = title;
  o.baseline = baseline;
  const auto slash = csv.find_last_of('/');
  o.jobs_csv = slash == std::string::npos ? csv : csv.substr(slash + 1);
  return write_html_report(path, report_document(summaries, results, ri), o);
}

}  // namespace frugal
