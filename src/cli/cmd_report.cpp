// `frugal report`: the HTML report (io/html_report.h) of documents written by `simulate`,
// `compare` or `whatif --report-json`, or grouped by `bench/evaluate --html`. The same renderer
// as their --html: the same document gives the same page.
#include <fmt/format.h>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "io/html_report.h"
#include "io/report_input.h"

namespace frugal {
namespace {

struct ReportOptions {
  std::vector<std::string> json;  // --json FILE, one or more
  std::string html;               // --html OUT
  std::string baseline;           // --baseline POLICY ("": each group's first run)
  std::string title = "frugal report";
  std::string jobs_csv_link;  // --jobs-csv-link HREF ("": no link)
};

Status run(const ReportOptions& o) {
  std::vector<nlohmann::json> docs;
  for (const std::string& path : o.json) {
    auto doc = read_report_document(path);
    if (!doc.ok()) return Error{"--json " + doc.error().message};
    docs.push_back(std::move(doc).value());
  }
  auto doc = join_report_documents(std::move(docs), o.json);
  if (!doc.ok()) return Error{"--json: " + doc.error().message};
  HtmlReportOptions h;
  h.title = o.title;
  h.baseline = o.baseline;
  h.jobs_csv = o.jobs_csv_link;
  return write_html_report(o.html, doc.value(), h);
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand(
      "report",
      "Render the HTML report of documents written with --report-json (simulate, compare, "
      "whatif) or by bench/evaluate --html (docs/REPORT.md)");
  cmd->add_option("--json", o->json,
                  "A report document (repeat the option for several: their runs, or their "
                  "groups, are joined in order)")
      ->required();
  cmd->add_option("--html", o->html, "The page to write")->required();
  cmd->add_option("--baseline", o->baseline,
                  "The policy the differences are relative to, in every group (default: the "
                  "first run)");
  cmd->add_option("--title", o->title, "The page's title")->capture_default_str();
  cmd->add_option("--jobs-csv-link", o->jobs_csv_link,
                  "Link the page to the full job table at HREF (relative to the page)");
  cmd->callback([o, &exit_code] {
    if (Status st = run(*o); !st.ok()) {
      fmt::print(stderr, "frugal report: {}\n", st.error().message);
      exit_code = 1;
    }
  });
}

}  // namespace frugal
