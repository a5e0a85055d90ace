#pragma once
// The parts of the HTML report's page (io/html_report.h), each from the runs' JSON
// (an array of runs as io/run_json.h describes them). Internal to the renderer.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace frugal {

// Where a part of the page sits: the level of its heading and the prefix of its element ids
// (a grouped page holds the parts once per group, and ids must not repeat). The default is
// the ungrouped page's: <h2 id="h-summary">, its cards' and charts' headings <h3>.
struct SectionPlace {
  std::string id_prefix = "h-";  // ids <prefix>summary, <prefix>time, <prefix>cost
  int level = 2;                 // the part's heading <h{level}>, its items' <h{level + 1}>
};

// Summary cards; deltas against runs[baseline].
std::string html_cards(const nlohmann::json& runs, size_t baseline, const SectionPlace& at = {});
// The line charts over time (a section with a heading per chart).
std::string html_time_charts(const nlohmann::json& runs, const SectionPlace& at = {});
// Waste and cost-by-X bar charts.
std::string html_cost_charts(const nlohmann::json& runs, const SectionPlace& at = {});

// The runs of one group of a grouped document (html_report.h); `name` "" for the runs of an
// ungrouped one.
struct RunGroup {
  std::string name;
  nlohmann::json runs;  // an array of runs
};

// Rows of the job table per page.
inline constexpr size_t kJobPageRows = 100;
// The job table of every run's "jobs", group after group: its first kJobPageRows rows as
// HTML; the page's script (html_report.cpp) renders the other pages, sorting and filtering
// from the embedded JSON. `grouped`: a first column "group" and data-group on every row.
std::string html_jobs_table(const std::vector<RunGroup>& groups, bool grouped,
                            const std::string& jobs_csv);

}  // namespace frugal
