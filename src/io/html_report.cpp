#include "io/html_report.h"

#include <fmt/format.h>
#include <cctype>
#include <fstream>
#include <set>

#include "io/html_escape.h"
#include "io/html_pack.h"
#include "io/html_sections.h"

namespace frugal {
namespace {

constexpr const char* kCss = R"(
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:1200px;padding:0 16px 48px}
h1{font-size:1.6em;margin:20px 0 4px}h2{font-size:1.25em;margin:28px 0 8px;border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:12px 0 4px}h4{font-size:1em;margin:12px 0 4px}
.cards{display:flex;flex-wrap:wrap;gap:12px}.card{border:1px solid #bbb;border-radius:6px;padding:8px 14px;min-width:230px}
.card dl{margin:0}.card div{display:flex;justify-content:space-between;gap:12px}.card dt{color:#404040}.card dd{margin:0;font-weight:600}
.delta{font-weight:400;color:#404040;font-size:.9em}figure{margin:8px 0 20px}.chart{max-width:800px;display:block}
.grid{stroke:#ddd;stroke-width:1}.tick{font-size:11px;fill:#333}
.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px}.legend li{display:flex;align-items:center;gap:6px}
.swatch{display:inline-block;width:12px;height:12px}
table{border-collapse:collapse;font-size:13px}th,td{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left;white-space:nowrap}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:#1a1a1a}
caption{text-align:left;}.pager button{font:inherit;padding:2px 10px}.table-wrap{overflow-x:auto;max-width:100%}caption{color:#404040;padding:4px 0}a{color:#1f5fa8}.note{color:#404040}
.group{border-top:3px solid #1f5fa8;margin-top:32px}.group>h2{border:0}.groups{display:flex;flex-wrap:wrap;gap:4px 18px;padding:0;list-style:none}
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
function load(){if(all)return;var d=JSON.parse(document.getElementById('frugal-data').textContent),runs=[];
if(Array.isArray(d.groups))d.groups.forEach(function(g){(g.runs||[]).forEach(function(r){runs.push({g:String(g.name),r:r});});});
else(Array.isArray(d.runs)?d.runs:[d]).forEach(function(r){runs.push({g:null,r:r});});
all=[];runs.forEach(function(x){var r=x.r;(r.jobs||[]).forEach(function(j){
var raw=cols.map(function(k){return k==='group'?x.g:k==='policy'?r.policy:j[k];});
var c=raw.map(function(v,i){return cols[i]==='policy'?String(v||''):fmt(v);});
all.push({g:x.g,p:String(r.policy||''),id:fmt(j.id),c:c,raw:raw,s:c.join(' ').toLowerCase()});});});rows=all;}
function show(){var n=rows.length;at=Math.max(0,Math.min(at,Math.max(0,n-1)-((Math.max(0,n-1))%N)));
b.textContent='';for(var i=at;i<Math.min(n,at+N);i++){var tr=document.createElement('tr');if(rows[i].g!==null)tr.dataset.group=rows[i].g;tr.dataset.policy=rows[i].p;tr.dataset.job=rows[i].id;
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

// The runs of `doc` by group: one unnamed group for {"runs": [...]} or a single run.
Result<std::vector<RunGroup>> groups_of(const nlohmann::json& doc) {
  std::vector<RunGroup> out;
  if (doc.is_object() && doc.contains("groups")) {
    if (!doc["groups"].is_array()) return Error{"HTML report: \"groups\" is not an array"};
    std::set<std::string> names;
    for (size_t i = 0; i < doc["groups"].size(); ++i) {
      const nlohmann::json& g = doc["groups"][i];
      const nlohmann::json name = g.is_object() ? g.value("name", nlohmann::json()) : nullptr;
      if (!name.is_string() || name.get<std::string>().empty())
        return Error{fmt::format("HTML report: group {} has no \"name\"", i + 1)};
      if (!names.insert(name.get<std::string>()).second)
        return Error{
            fmt::format("HTML report: group \"{}\" appears twice", name.get<std::string>())};
      if (!g.contains("runs") || !g["runs"].is_array() || g["runs"].empty())
        return Error{
            fmt::format("HTML report: group \"{}\" holds no run", name.get<std::string>())};
      out.push_back({name.get<std::string>(), g["runs"]});
    }
  } else if (doc.is_object() && doc.contains("runs") && doc["runs"].is_array()) {
    out.push_back({"", doc["runs"]});
  } else if (doc.is_object() && doc.contains("policy")) {
    out.push_back({"", nlohmann::json::array({doc})});
  }
  if (out.empty() || out.front().runs.empty()) return Error{"HTML report: the JSON holds no run"};
  return out;
}

// The index of the run of policy `baseline` in `g` (the first when "").
Result<size_t> baseline_of(const RunGroup& g, const std::string& baseline) {
  if (baseline.empty()) return size_t{0};
  for (size_t i = 0; i < g.runs.size(); ++i)
    if (g.runs[i].value("policy", std::string()) == baseline) return i;
  if (g.name.empty()) return Error{fmt::format("--baseline {}: no run of that policy", baseline)};
  return Error{
      fmt::format("--baseline {}: no run of that policy in group \"{}\"", baseline, g.name)};
}

// An element id for group `name` ("group-" and its letters, digits, '-' and '_'), unique
// among `taken`. The ids inside the group's section add "." and a word: no '.' here, so they
// never equal another group's.
std::string group_id(const std::string& name, std::set<std::string>& taken) {
  std::string id = "group-";
  for (char c : name)
    id += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '-';
  const std::string stem = id;
  for (int n = 2; !taken.insert(id).second; ++n) id = fmt::format("{}-{}", stem, n);
  return id;
}

// The grouped page's body up to the job table: a note, the list of groups, and per group a
// section with its cards and charts (html_report.h, "grouped").
std::string grouped_body(const std::vector<RunGroup>& gs, const std::vector<size_t>& base,
                         const std::string& baseline) {
  size_t runs = 0;
  for (const RunGroup& g : gs) runs += g.runs.size();
  std::string out = fmt::format(
      "<p class=\"note\">{} group(s), {} run(s); in each group, differences are relative to {}. "
      "Times in hours from the group's first arrival; charts are time-weighted means per "
      "interval.</p>\n",
      gs.size(), runs,
      baseline.empty() ? std::string("its first run")
                       : fmt::format("<strong>{}</strong>", html_escape(baseline)));
  std::set<std::string> taken;
  std::vector<std::string> ids;
  for (const RunGroup& g : gs) ids.push_back(group_id(g.name, taken));
  out += "<nav aria-label=\"Groups\">\n<ul class=\"groups\">\n";
  for (size_t i = 0; i < gs.size(); ++i)
    out += fmt::format("<li><a href=\"#{}\">{}</a></li>\n", ids[i], html_escape(gs[i].name));
  out += "</ul>\n</nav>\n";
  for (size_t i = 0; i < gs.size(); ++i) {
    const SectionPlace at{ids[i] + ".", 3};
    out += fmt::format(
        "<section class=\"group\" data-group=\"{0}\" id=\"{1}\" aria-labelledby=\"{1}.h\">\n"
        "<h2 id=\"{1}.h\">{0}</h2>\n",
        html_escape(gs[i].name), ids[i]);
    out += html_cards(gs[i].runs, base[i], at);
    out += html_time_charts(gs[i].runs, at);
    out += html_cost_charts(gs[i].runs, at);
    out += "</section>\n";
  }
  return out;
}

std::string page_head(const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n<h1>{}</h1>\n",
      html_escape(title), kCss, html_escape(title));
}

// The page of a pack run (io/html_pack.h): no job table, no script but the data.
Result<std::string> pack_page(const nlohmann::json& doc, const nlohmann::json& pack,
                              const HtmlReportOptions& o) {
  auto section = html_pack_section(pack);
  if (!section.ok()) return section.error();
  std::string page = page_head(o.title) + section.value();
  page += "</main>\n<script type=\"application/json\" id=\"frugal-data\">";
  page += script_safe_json(doc.dump());
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace

const nlohmann::json* pack_document(const nlohmann::json& doc) {
  if (!doc.is_object()) return nullptr;
  if (doc.contains("pack")) return &doc["pack"];
  if (doc.contains("curves") && doc.contains("summary")) return &doc;
  return nullptr;
}

Result<std::string> render_html_report(const nlohmann::json& doc, const HtmlReportOptions& o) {
  if (const nlohmann::json* pack = pack_document(doc)) return pack_page(doc, *pack, o);
  auto groups = groups_of(doc);
  if (!groups.ok()) return groups.error();
  const std::vector<RunGroup>& gs = groups.value();
  const bool grouped = doc.is_object() && doc.contains("groups");
  std::vector<size_t> base;
  for (const RunGroup& g : gs) {
    auto b = baseline_of(g, o.baseline);
    if (!b.ok()) return b.error();
    base.push_back(b.value());
  }
  std::string page = page_head(o.title);
  if (grouped) {
    page += grouped_body(gs, base, o.baseline);
  } else {
    const nlohmann::json& runs = gs.front().runs;
    page += fmt::format(
        "<p class=\"note\">{} run(s); differences are relative to <strong>{}</strong>. Times in "
        "hours from the first arrival; charts are time-weighted means per interval.</p>\n",
        runs.size(), html_escape(runs[base.front()].value("policy", std::string("run"))));
    page += html_cards(runs, base.front());
    page += html_time_charts(runs);
    page += html_cost_charts(runs);
  }
  page += html_jobs_table(gs, grouped, o.jobs_csv);
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
