#pragma once
// The HTML report of `frugal simulate`, `compare` and `whatif` (--html FILE), of `frugal
// report` (documents those wrote with --report-json) and of `bench/evaluate --html`: one
// self-contained page rendered from the runs' JSON (io/run_json.h: the runs as --format json
// writes them, plus "timeline", "cost_by_pool" and "jobs" per run). One renderer for all.
//
// Self-contained: inline CSS, charts as SVG drawn here in C++ (io/svg_chart.h), a few lines
// of vanilla script to sort and filter the job table, nothing fetched from the network. No
// charting library: the page opens offline and years later, the same JSON gives the same
// bytes (a test checks the charts without a browser), and the build needs nothing more.
//
// Contents: a summary card per run (cost, waste share, mean/p99 JCT, mean wait, utilisation,
// CO2, deadline misses) with the relative change to a baseline run; line charts over time
// (GPUs provisioned/allocated/busy, queue, cost per hour, electricity price); waste by
// category stacked per run; cost by team, class, region and pool; the job table; the input
// JSON itself, verbatim (<script type="application/json" id="frugal-data">).
//
// DOM contract for tests (see also io/svg_chart.h):
//  - card: <section class="card" data-policy="P"> holding, per KEY in total_usd, waste_share,
//    jct_mean_s, jct_p99_s, wait_mean_s, gpu_utilization, co2_kg, deadline_misses,
//    <span data-metric="KEY" data-value="N">; for runs other than the baseline, where the
//    baseline's value is not 0, <span data-delta="KEY" data-value="(v − base) / |base|">.
//    waste_share = Σ run.waste.* / run.cost.total_usd; co2_kg = run.cost.co2_kg.
//  - charts (data-chart): gpus (series P:provisioned_gpus, P:allocated_gpus, P:busy_gpus),
//    queue (P:queue_jobs), cost-per-hour (P:cost_usd_per_h), price (P:price_usd_per_mwh),
//    waste (rects data-policy=P data-label=CATEGORY_usd data-value=run.waste[CATEGORY_usd]),
//    cost-by-team/-class/-region (data-value = run.by_team[K].total_usd, ...), cost-by-pool
//    (run.cost_by_pool[K]). A chart without data is left out.
//  - jobs: <table id="jobs">, rows <tr data-policy="P" data-job="ID">.
//
// Grouped documents, {"groups": [{"name": "G", "runs": [...]}, ...]} (bench/evaluate: a group
// per trace): the page holds, after the title, <nav aria-label="Groups"> with a link per group
// to its section, then per group, in document order,
// <section class="group" data-group="G" id="group-…"> with a heading G and that group's cards,
// time charts, waste and cost bars exactly as above (the same data-* contract; the ids in
// the section are the section's id, a dot and a word). Each group's deltas compare with that
// group's run of the baseline policy (its first run when none is named). One job table over all
// groups follows: a first column "group", rows <tr data-group="G" data-policy="P" data-job="ID">,
// groups in document order. Names must be non-empty and distinct, and every group must hold a run.
// The job rows are those of the documents (io/run_json.h caps them per run): the page grows with
// the groups' rows and timelines, nothing else. An ungrouped document's page has no nav, no
// section.group and no group column.

#include <nlohmann/json.hpp>
#include <string>

#include "model/result.h"

namespace frugal {

struct HtmlReportOptions {
  std::string title = "frugal report";
  std::string baseline;  // the run the deltas compare with (a policy name); "": the first
  std::string jobs_csv;  // link to the full job table (CSV), relative to the page; "": none
};

// `frugal pack --format json`'s document in `doc` (doc itself, or doc["pack"]), or nullptr:
// render_html_report draws the pack page for it.
const nlohmann::json* pack_document(const nlohmann::json& doc);

// The page for `doc` ({"runs": [...]}, {"groups": [...]} or one run). Errors: no run, a group
// without a name or run or named twice, a baseline that is not a policy of every group.
Result<std::string> render_html_report(const nlohmann::json& doc, const HtmlReportOptions& o);

// Writes render_html_report's page to `path`; the error names the file.
Status write_html_report(const std::string& path, const nlohmann::json& doc,
                         const HtmlReportOptions& o);

}  // namespace frugal
