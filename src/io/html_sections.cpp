#include "io/html_sections.h"

#include <fmt/format.h>
#include <array>
#include <cmath>

#include "io/html_escape.h"
#include "io/report.h"
#include "io/svg_chart.h"

namespace frugal {
namespace {

using nlohmann::json;

double num(const json& j, const json::json_pointer& p) {
  return j.contains(p) && j.at(p).is_number() ? j.at(p).get<double>() : 0.0;
}

double waste_total(const json& run) {
  double w = 0;
  if (run.contains("waste") && run["waste"].is_object())
    for (const auto& [k, v] : run["waste"].items())
      if (v.is_number()) w += v.get<double>();
  return w;
}

struct Metric {
  const char* key;
  const char* label;
  double (*value)(const json&);
  std::string (*human)(double);
};

std::string pct(double v) {
  return fmt::format("{:.1f}%", 100 * v);
}
std::string kg(double v) {
  return v >= 1000 ? fmt::format("{:.1f} t", v / 1000) : fmt::format("{:.0f} kg", v);
}
std::string count(double v) {
  return fmt::format("{:.0f}", v);
}

const std::array<Metric, 8> kMetrics = {{
    {"total_usd", "Cost", [](const json& r) { return num(r, "/cost/total_usd"_json_pointer); },
     usd},
    {"waste_share", "Waste share",
     [](const json& r) {
       const double t = num(r, "/cost/total_usd"_json_pointer);
       return t > 0 ? waste_total(r) / t : 0.0;
     },
     pct},
    {"jct_mean_s", "Mean JCT", [](const json& r) { return num(r, "/jct_s/mean"_json_pointer); },
     human_seconds},
    {"jct_p99_s", "p99 JCT", [](const json& r) { return num(r, "/jct_s/p99"_json_pointer); },
     human_seconds},
    {"wait_mean_s", "Mean wait", [](const json& r) { return num(r, "/wait_s/mean"_json_pointer); },
     human_seconds},
    {"gpu_utilization", "GPU utilisation",
     [](const json& r) { return num(r, "/gpu_utilization"_json_pointer); }, pct},
    {"co2_kg", "CO2", [](const json& r) { return num(r, "/cost/co2_kg"_json_pointer); }, kg},
    {"deadline_misses", "Deadline misses",
     [](const json& r) { return num(r, "/deadline_misses"_json_pointer); }, count},
}};

std::string policy_of(const json& run) {
  return run.value("policy", std::string("run"));
}

std::vector<std::string> policies_of(const json& runs) {
  std::vector<std::string> out;
  for (const json& r : runs) out.push_back(policy_of(r));
  return out;
}

std::string card(const json& run, const json& base, bool is_base, int level) {
  std::string out =
      fmt::format("<section class=\"card\" data-policy=\"{}\">\n<h{}>{}{}</h{}>\n<dl>\n",
                  html_escape(policy_of(run)), level, html_escape(policy_of(run)),
                  is_base ? " <small>(baseline)</small>" : "", level);
  for (const Metric& m : kMetrics) {
    const double v = m.value(run), b = m.value(base);
    out += fmt::format("<div><dt>{}</dt><dd><span data-metric=\"{}\" data-value=\"{}\">{}</span>",
                       m.label, m.key, number_text(v), html_escape(m.human(v)));
    if (!is_base && b != 0) {
      const double d = (v - b) / std::fabs(b);
      out +=
          fmt::format(" <span class=\"delta\" data-delta=\"{}\" data-value=\"{}\">{:+.1f}%</span>",
                      m.key, number_text(d), 100 * d);
    }
    out += "</dd></div>\n";
  }
  return out + "</dl>\n</section>\n";
}

struct TimeMetric {
  const char* key;
  const char* label;
};

// One line chart of the given timeline metrics, a series per run and metric.
std::string time_chart(const json& runs, const ChartFrame& f, std::vector<TimeMetric> metrics,
                       bool skip_all_zero, int level) {
  std::vector<LineSeries> series;
  double x0 = INFINITY;
  bool nonzero = false;
  for (size_t r = 0; r < runs.size(); ++r) {
    const json& tl = runs[r].value("timeline", json::object());
    if (!tl.contains("t")) continue;
    for (size_t k = 0; k < metrics.size(); ++k) {
      if (!tl.contains(metrics[k].key)) continue;
      LineSeries s;
      s.id = policy_of(runs[r]) + ":" + metrics[k].key;
      s.label =
          metrics.size() > 1 ? policy_of(runs[r]) + " " + metrics[k].label : policy_of(runs[r]);
      s.x = tl["t"].get<std::vector<double>>();
      s.y = tl[metrics[k].key].get<std::vector<double>>();
      for (double v : s.y) nonzero = nonzero || v != 0;
      for (double t : s.x) x0 = std::min(x0, t);
      s.colour = static_cast<int>(r);
      s.dash = static_cast<int>(k);
      if (!s.x.empty()) series.push_back(std::move(s));
    }
  }
  if (series.empty() || (skip_all_zero && !nonzero)) return {};
  const std::string chart = line_chart(f, series, x0);
  if (chart.empty()) return {};
  return fmt::format("<figure>\n<h{}>{}</h{}>\n{}</figure>\n", level, html_escape(f.title), level,
                     chart);
}

// Bars of run[key][K].total_usd (or run[key][K] when it is a number) per run.
std::vector<Bar> account_bars(const json& runs, const char* key) {
  std::vector<Bar> bars;
  for (const json& r : runs) {
    if (!r.contains(key) || !r[key].is_object()) continue;
    for (const auto& [k, v] : r[key].items()) {
      const double usd_v = v.is_number() ? v.get<double>() : v.value("total_usd", 0.0);
      bars.push_back({policy_of(r), k, usd_v});
    }
  }
  return bars;
}

std::string bar_figure(const std::string& chart, const std::string& title, int level) {
  if (chart.empty()) return {};
  return fmt::format("<figure>\n<h{}>{}</h{}>\n{}</figure>\n", level, html_escape(title), level,
                     chart);
}

// The opening of a part of the page: <section> and its heading.
std::string part_head(const SectionPlace& at, const char* id, const char* title) {
  return fmt::format("<section aria-labelledby=\"{0}{1}\">\n<h{2} id=\"{0}{1}\">{3}</h{2}>\n",
                     html_escape(at.id_prefix), id, at.level, title);
}

std::string cell(const json& row, const char* key) {
  const json& v = row.contains(key) ? row[key] : json();
  if (v.is_string()) return html_escape(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) {  // two decimals at most, for people (the JSON keeps every digit)
    std::string t = fmt::format("{:.2f}", v.get<double>());
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
    return t == "-0" ? "0" : t;
  }
  return "";
}

// The job table's columns after the group (html_jobs_table), as keys of a "jobs" row; the
// first, policy, is the run's.
constexpr std::array<const char*, 13> kJobCols = {
    "policy",   "id",     "team",  "class",    "gpus",      "model", "pool",
    "submit_s", "wait_s", "run_s", "cost_usd", "waste_usd", "done"};

// Appends the rows of group `g` to `out` while fewer than kJobPageRows are written (`rows`
// so far); returns the new count.
size_t job_rows(const RunGroup& g, bool grouped, size_t rows, std::string& out) {
  const std::string group = html_escape(g.name);
  for (const json& r : g.runs) {
    if (!r.contains("jobs") || !r["jobs"].is_array()) continue;
    const std::string p = html_escape(policy_of(r));
    for (const json& row : r["jobs"]) {
      if (rows >= kJobPageRows) return rows;
      ++rows;
      const std::string id = cell(row, "id");
      if (grouped)
        out +=
            fmt::format("<tr data-group=\"{0}\" data-policy=\"{1}\" data-job=\"{2}\"><td>{0}</td>",
                        group, p, id);
      else
        out += fmt::format("<tr data-policy=\"{}\" data-job=\"{}\">", p, id);
      out += "<td>" + p + "</td>";
      for (size_t c = 1; c < kJobCols.size(); ++c) out += "<td>" + cell(row, kJobCols[c]) + "</td>";
      out += "</tr>\n";
    }
  }
  return rows;
}

}  // namespace

std::string html_cards(const json& runs, size_t baseline, const SectionPlace& at) {
  std::string out = part_head(at, "summary", "Summary") + "<div class=\"cards\">\n";
  for (size_t i = 0; i < runs.size(); ++i)
    out += card(runs[i], runs[baseline], i == baseline, at.level + 1);
  return out + "</div>\n</section>\n";
}

std::string html_time_charts(const json& runs, const SectionPlace& at) {
  const int h = at.level + 1;
  std::string out = part_head(at, "time", "Over time");
  out += time_chart(
      runs, {"gpus", "GPUs provisioned, allocated and busy", "GPUs"},
      {{"provisioned_gpus", "provisioned"}, {"allocated_gpus", "allocated"}, {"busy_gpus", "busy"}},
      false, h);
  out += time_chart(runs, {"queue", "Jobs waiting", "jobs"}, {{"queue_jobs", "queue"}}, false, h);
  out += time_chart(runs, {"cost-per-hour", "Cost per hour", "USD/h"}, {{"cost_usd_per_h", "cost"}},
                    true, h);
  out += time_chart(runs, {"price", "Electricity price", "USD/MWh"},
                    {{"price_usd_per_mwh", "price"}}, true, h);
  return out + "</section>\n";
}

std::string html_cost_charts(const json& runs, const SectionPlace& at) {
  const auto policies = policies_of(runs);
  std::vector<Bar> waste;
  for (const json& r : runs)
    if (r.contains("waste") && r["waste"].is_object())
      for (const auto& [k, v] : r["waste"].items())
        if (v.is_number() && v.get<double>() != 0)
          waste.push_back({policy_of(r), k, v.get<double>()});
  const int h = at.level + 1;
  std::string out = part_head(at, "cost", "Cost and waste");
  out += bar_figure(stacked_bar_chart({"waste", "Waste by category", "USD"}, waste, policies),
                    "Waste by category", h);
  const std::array<std::array<const char*, 3>, 4> kBy = {
      {{"cost-by-team", "by_team", "Cost by team"},
       {"cost-by-class", "by_class", "Cost by job class"},
       {"cost-by-region", "by_region", "Cost by region"},
       {"cost-by-pool", "cost_by_pool", "Cost by pool"}}};
  for (const auto& [name, key, title] : kBy)
    out += bar_figure(bar_chart({name, title, "USD"}, account_bars(runs, key), policies), title, h);
  return out + "</section>\n";
}

std::string html_jobs_table(const std::vector<RunGroup>& groups, bool grouped,
                            const std::string& jobs_csv) {
  std::string out = "<section aria-labelledby=\"h-jobs\">\n<h2 id=\"h-jobs\">Jobs</h2>\n<p>";
  size_t shown = 0, total = 0;
  for (const RunGroup& g : groups)
    for (const json& r : g.runs) {
      shown += r.contains("jobs") && r["jobs"].is_array() ? r["jobs"].size() : 0;
      total += r.value("jobs_total", size_t{0});
    }
  out += fmt::format("{} of {} job runs shown (per run the costliest and the longest-waiting).",
                     shown, std::max(total, shown));
  if (!jobs_csv.empty())
    out += fmt::format(" <a href=\"{}\">All jobs (CSV)</a>.", html_escape(jobs_csv));
  out +=
      "</p>\n<p><label for=\"job-filter\">Filter jobs</label> <input id=\"job-filter\" "
      "type=\"search\"></p>\n"
      "<p class=\"pager\"><button type=\"button\" id=\"job-prev\">Previous rows</button> "
      "<span id=\"job-range\" aria-live=\"polite\">" +
      fmt::format("Rows 1–{} of {}", std::min(shown, kJobPageRows), shown) +
      "</span> <button type=\"button\" id=\"job-next\">Next rows</button></p>\n"
      "<noscript><p>Without JavaScript only the first rows show: the CSV has every job.</p>"
      "</noscript>\n"
      "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" "
      "aria-labelledby=\"h-jobs\">\n<table id=\"jobs\">\n<caption>";
  out += grouped ? "Jobs per group and run" : "Jobs per run";
  out += "; select a column header to sort</caption>\n<thead><tr>";
  if (grouped) out += "<th scope=\"col\"><button type=\"button\">group</button></th>";
  for (const char* c : kJobCols)
    out += fmt::format("<th scope=\"col\"><button type=\"button\">{}</button></th>", c);
  out += "</tr></thead>\n<tbody>\n";
  // The first page only: the page's script renders the others (and sorts and filters) from
  // the embedded JSON, so a report of 10,000 rows per run opens as fast as a small one.
  size_t rows = 0;
  for (const RunGroup& g : groups) rows = job_rows(g, grouped, rows, out);
  return out + "</tbody>\n</table>\n</div>\n</section>\n";
}

}  // namespace frugal
