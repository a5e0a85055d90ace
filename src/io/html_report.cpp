#include "io/html_report.h"

#include <fmt/format.h>
#include <fstream>

#include "io/html_escape.h"
#include "io/html_sections.h"

namespace frugal {
namespace {

constexpr const char* kCss = R"(
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:1200px;padding:0 16px 48px}
h1{font-size:1.6em;margin:20px 0 4px}h2{font-size:1.25em;margin:28px 0 8px;border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:12px 0 4px}
.cards{display:flex;flex-wrap:wrap;gap:12px}.card{border:1px solid #bbb;border-radius:6px;padding:8px 14px;min-width:230px}
.card dl{margin:0}.card div{display:flex;justify-content:space-between;gap:12px}.card dt{color:#404040}.card dd{margin:0;font-weight:600}
.delta{font-weight:400;color:#404040;font-size:.9em}figure{margin:8px 0 20px}.chart{max-width:800px;display:block}
.grid{stroke:#ddd;stroke-width:1}.tick{font-size:11px;fill:#333}
.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px}.legend li{display:flex;align-items:center;gap:6px}
.swatch{display:inline-block;width:12px;height:12px}
table{border-collapse:collapse;font-size:13px}th,td{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left;white-space:nowrap}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:#1a1a1a}
caption{text-align:left;}.table-wrap{overflow-x:auto;max-width:100%}caption{color:#404040;padding:4px 0}a{color:#1f5fa8}.note{color:#404040}
)";

// Sorting (click a header) and filtering (the search box) of the job table; nothing else.
constexpr const char* kJs = R"(
(function(){var t=document.getElementById('jobs');if(!t)return;var b=t.tBodies[0];
var f=document.getElementById('job-filter');f.addEventListener('input',function(){var q=f.value.toLowerCase();
for(var r of b.rows)r.hidden=q!==''&&r.textContent.toLowerCase().indexOf(q)<0;});
t.tHead.querySelectorAll('button').forEach(function(btn,i){btn.addEventListener('click',function(){
var asc=btn.dataset.dir!=='asc';btn.dataset.dir=asc?'asc':'desc';
t.tHead.querySelectorAll('th').forEach(function(th){th.removeAttribute('aria-sort');});
btn.parentNode.setAttribute('aria-sort',asc?'ascending':'descending');
var rows=Array.from(b.rows);rows.sort(function(x,y){var a=x.cells[i].textContent,c=y.cells[i].textContent;
var na=parseFloat(a),nc=parseFloat(c);var d=(!isNaN(na)&&!isNaN(nc))?na-nc:a.localeCompare(c);return asc?d:-d;});
rows.forEach(function(r){b.appendChild(r);});});});})();
)";

}  // namespace

Result<std::string> render_html_report(const nlohmann::json& doc, const HtmlReportOptions& o) {
  nlohmann::json runs = nlohmann::json::array();
  if (doc.is_object() && doc.contains("runs") && doc["runs"].is_array())
    runs = doc["runs"];
  else if (doc.is_object() && doc.contains("policy"))
    runs.push_back(doc);
  if (runs.empty()) return Error{"HTML report: the JSON holds no run"};
  size_t base = 0;
  if (!o.baseline.empty()) {
    for (base = 0; base < runs.size(); ++base)
      if (runs[base].value("policy", std::string()) == o.baseline) break;
    if (base == runs.size())
      return Error{fmt::format("--baseline {}: no run of that policy", o.baseline)};
  }
  std::string page = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n<h1>{}</h1>\n"
      "<p class=\"note\">{} run(s); differences are relative to <strong>{}</strong>. Times in "
      "hours from the first arrival; charts are time-weighted means per interval.</p>\n",
      html_escape(o.title), kCss, html_escape(o.title), runs.size(),
      html_escape(runs[base].value("policy", std::string("run"))));
  page += html_cards(runs, base);
  page += html_time_charts(runs);
  page += html_cost_charts(runs);
  page += html_jobs_table(runs, o.jobs_csv);
  page += "</main>\n<script type=\"application/json\" id=\"frugal-data\">";
  page += script_safe_json(doc.dump());
  page += "</script>\n<script>";
  page += kJs;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

Status write_html_report(const std::string& path, const nlohmann::json& doc,
                         const HtmlReportOptions& o) {
  auto page = render_html_report(doc, o);
  if (!page.ok()) return page.error();
  std::ofstream f(path, std::ios::binary);
  if (!f) return Error{fmt::format("--html {}: cannot write", path)};
  f << page.value();
  f.flush();
  if (!f) return Error{fmt::format("--html {}: cannot write", path)};
  return Status::Ok();
}

}  // namespace frugal
