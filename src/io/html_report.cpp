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
caption{text-align:left;}.pager button{font:inherit;padding:2px 10px}.table-wrap{overflow-x:auto;max-width:100%}caption{color:#404040;padding:4px 0}a{color:#1f5fa8}.note{color:#404040}
)";

// The job table from the embedded JSON (html_sections.h): pages of 100 rows, sorting (click
// a header) and filtering (the search box) over every row; nothing else. Numbers as the
// server-rendered first page shows them: two decimals at most.
constexpr const char* kJs = R"(
(function(){var t=document.getElementById('jobs');if(!t)return;var b=t.tBodies[0],all=null,rows=null,at=0,N=100;
var cols=Array.from(t.tHead.querySelectorAll('button')).map(function(x){return x.textContent;});
var f=document.getElementById('job-filter'),prev=document.getElementById('job-prev'),next=document.getElementById('job-next'),range=document.getElementById('job-range');
function fmt(v){if(typeof v==='number'){var s=v.toFixed(2).replace(/0+$/,'').replace(/\.$/,'');return s==='-0'?'0':s;}
if(typeof v==='boolean')return v?'yes':'no';return v==null?'':String(v);}
function load(){if(all)return;var d=JSON.parse(document.getElementById('frugal-data').textContent);
var runs=Array.isArray(d.runs)?d.runs:[d];all=[];runs.forEach(function(r){(r.jobs||[]).forEach(function(j){
var c=cols.map(function(k,i){return i===0?String(r.policy||''):fmt(j[k]);});
all.push({p:String(r.policy||''),id:fmt(j.id),c:c,raw:cols.map(function(k,i){return i===0?r.policy:j[k];}),
s:c.join(' ').toLowerCase()});});});rows=all;}
function show(){var n=rows.length;at=Math.max(0,Math.min(at,Math.max(0,n-1)-((Math.max(0,n-1))%N)));
b.textContent='';for(var i=at;i<Math.min(n,at+N);i++){var tr=document.createElement('tr');tr.dataset.policy=rows[i].p;tr.dataset.job=rows[i].id;
rows[i].c.forEach(function(v){var td=document.createElement('td');td.textContent=v;tr.appendChild(td);});b.appendChild(tr);}
range.textContent=n?('Rows '+(at+1)+'\u2013'+Math.min(n,at+N)+' of '+n):'No row matches';prev.disabled=at===0;next.disabled=at+N>=n;}
prev.disabled=true;next.disabled=b.rows.length<N;
prev.addEventListener('click',function(){load();at-=N;show();});next.addEventListener('click',function(){load();at+=N;show();});
f.addEventListener('input',function(){load();var q=f.value.toLowerCase();rows=q===''?all:all.filter(function(r){return r.s.indexOf(q)>=0;});at=0;show();});
t.tHead.querySelectorAll('button').forEach(function(btn,i){btn.addEventListener('click',function(){load();
var asc=btn.dataset.dir!=='asc';btn.dataset.dir=asc?'asc':'desc';
t.tHead.querySelectorAll('th').forEach(function(th){th.removeAttribute('aria-sort');});
btn.parentNode.setAttribute('aria-sort',asc?'ascending':'descending');
var cmp=function(x,y){var a=x.raw[i],c=y.raw[i];var d=(typeof a==='number'&&typeof c==='number')?a-c:String(a==null?'':a).localeCompare(String(c==null?'':c));return asc?d:-d;};
all.sort(cmp);if(rows!==all)rows.sort(cmp);at=0;show();});});})();
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
