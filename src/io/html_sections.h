#pragma once
// The parts of the HTML report's page (io/html_report.h), each from the runs' JSON
// (an array of runs as io/run_json.h describes them). Internal to the renderer.

#include <nlohmann/json.hpp>
#include <string>

namespace frugal {

// Summary cards; deltas against runs[baseline].
std::string html_cards(const nlohmann::json& runs, size_t baseline);
// The line charts over time (a section with a heading per chart).
std::string html_time_charts(const nlohmann::json& runs);
// Waste and cost-by-X bar charts.
std::string html_cost_charts(const nlohmann::json& runs);
// Rows of the job table per page.
inline constexpr size_t kJobPageRows = 100;
// The job table of every run's "jobs": its first kJobPageRows rows as HTML; the page's script
// (html_report.cpp) renders the other pages, sorting and filtering from the embedded JSON.
std::string html_jobs_table(const nlohmann::json& runs, const std::string& jobs_csv);

}  // namespace frugal
