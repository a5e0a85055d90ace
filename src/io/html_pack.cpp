#include "io/html_pack.h"

#include <fmt/format.h>
#include <map>
#include <set>
#include <vector>

#include "io/html_escape.h"
#include "io/svg_chart.h"

namespace frugal {
namespace {

// x = index (arrived %), y = f(value) for the numbers of `values` (nulls skipped).
template <typename F>
LineSeries curve(const nlohmann::json& values, F f) {
  LineSeries s;
  for (size_t x = 0; x < values.size(); ++x) {
    if (!values[x].is_number()) continue;
    s.x.push_back(static_cast<double>(x));
    s.y.push_back(f(values[x].get<double>()));
  }
  return s;
}

double unallocated(double alloc) {
  return 100 - alloc;
}
// The zoomed chart's first arrived level.
constexpr double kZoomFrom = 90;

// `series` cut to the points at x >= from.
std::vector<LineSeries> from_level(std::vector<LineSeries> series, double from) {
  for (LineSeries& s : series) {
    size_t i = 0;
    while (i < s.x.size() && s.x[i] < from) ++i;
    s.x.erase(s.x.begin(), s.x.begin() + static_cast<std::ptrdiff_t>(i));
    s.y.erase(s.y.begin(), s.y.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return series;
}

double same(double v) {
  return v;
}

Result<std::vector<LineSeries>> pack_series(const nlohmann::json& pack, const char* key,
                                            bool with_bound) {
  std::vector<LineSeries> out;
  int colour = 0;
  for (const auto& [policy, c] : pack["curves"].items()) {
    if (!c.is_object() || !c.contains(key) || !c[key].is_array())
      return Error{fmt::format("pack report: curves.{} has no \"{}\" array", policy, key)};
    const bool alloc = std::string(key) == "alloc_pct";
    LineSeries s = alloc ? curve(c[key], unallocated) : curve(c[key], same);
    s.id = policy + (alloc ? ":unallocated_pct" : ":" + std::string(key));
    s.label = policy;
    s.colour = colour++;
    out.push_back(std::move(s));
  }
  if (with_bound && pack.contains("bound") && pack["bound"].contains("alloc_pct") &&
      pack["bound"]["alloc_pct"].is_array()) {
    LineSeries b = curve(pack["bound"]["alloc_pct"], unallocated);
    b.id = "bound:unallocated_pct";
    b.label = "bound (no packer leaves less)";
    b.colour = 7;
    b.dash = 1;
    out.push_back(std::move(b));
  }
  return out;
}

// A chart with its heading; nothing for an empty chart.
std::string figure(const std::string& id, const std::string& title, const std::string& svg) {
  if (svg.empty()) return {};
  return fmt::format("<figure aria-labelledby=\"{0}\">\n<h3 id=\"{0}\">{1}</h3>\n{2}</figure>\n",
                     id, html_escape(title), svg);
}

// The summary rows as a table: arrived level × policy (+ bound).
std::string levels_table(const nlohmann::json& summary) {
  std::vector<std::string> policies;
  std::map<double, std::map<std::string, const nlohmann::json*>> rows;
  bool bound = false;
  for (const nlohmann::json& r : summary) {
    if (!r.is_object() || !r.contains("arrived_pct") || !r.contains("policy")) continue;
    const std::string p = r["policy"].is_string() ? r["policy"].get<std::string>() : "";
    if (std::find(policies.begin(), policies.end(), p) == policies.end()) policies.push_back(p);
    rows[r["arrived_pct"].get<double>()][p] = &r;
    bound = bound || r.contains("bound_unallocated_pct");
  }
  if (rows.empty()) return {};
  std::string out =
      "<div class=\"table-wrap\"><table id=\"pack-levels\">\n<caption>Unallocated GPU, % of "
      "capacity (median of the runs), at each arrived level</caption>\n<thead><tr><th "
      "scope=\"col\">arrived %</th>";
  for (const std::string& p : policies)
    out += fmt::format("<th scope=\"col\">{}</th>", html_escape(p));
  if (bound) out += "<th scope=\"col\">bound</th>";
  out += "</tr></thead>\n<tbody>\n";
  auto cell = [](const std::string& policy, const nlohmann::json* r, const char* key) {
    if (r == nullptr || !(*r).contains(key) || !(*r)[key].is_number())
      return std::string("<td>–</td>");
    const double v = (*r)[key].get<double>();
    return fmt::format("<td data-policy=\"{}\" data-value=\"{}\">{:.2f}</td>", html_escape(policy),
                       nlohmann::json(v).dump(), v);
  };
  for (const auto& [level, by] : rows) {
    out += fmt::format("<tr data-arrived=\"{0:g}\"><th scope=\"row\">{0:g}</th>", level);
    for (const std::string& p : policies) {
      const auto it = by.find(p);
      out += cell(p, it == by.end() ? nullptr : it->second, "unallocated_gpu_pct");
    }
    if (bound) out += cell("bound", by.begin()->second, "bound_unallocated_pct");
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table></div>\n";
}

}  // namespace

Result<std::string> html_pack_section(const nlohmann::json& pack) {
  if (!pack.is_object() || !pack.contains("curves") || !pack["curves"].is_object() ||
      pack["curves"].empty())
    return Error{"pack report: the JSON has no \"curves\" (frugal pack --format json)"};
  auto unalloc = pack_series(pack, "alloc_pct", true);
  if (!unalloc.ok()) return unalloc.error();
  auto frag = pack_series(pack, "fragmentation_pct", false);
  if (!frag.ok()) return frag.error();
  const nlohmann::json meta = pack.value("meta", nlohmann::json::object());
  std::string out = fmt::format(
      "<p class=\"note\">The openb static fill (FGD, ATC'23): pods arrive until {}% of the "
      "cluster's GPU capacity was requested; {} run(s) per policy, medians; pods {}, nodes {}; "
      "migrations per 100 arrivals: {}. The bound is an LP over pod and node classes: no "
      "packer, in any order, leaves less unallocated.</p>\n",
      pack["curves"].begin().value().value("alloc_pct", nlohmann::json::array()).size() - 1,
      html_escape(meta.value("runs", nlohmann::json()).dump()),
      html_escape(meta.value("pods", std::string("?"))),
      html_escape(meta.value("nodes", std::string("?"))),
      html_escape(meta.value("migrations_per_100", nlohmann::json(0)).dump()));
  ChartFrame fu{"pack-unallocated", "Unallocated GPU (% of capacity) against arrived load",
                "% of GPU capacity"};
  fu.x_scale = 1;
  fu.x_suffix = "%";
  ChartFrame ff{"pack-fragmentation", "Fragmented GPU (% of capacity) against arrived load",
                "% of GPU capacity"};
  ff.x_scale = 1;
  ff.x_suffix = "%";
  out += "<section aria-labelledby=\"h-pack\">\n<h2 id=\"h-pack\">Packing</h2>\n";
  out += figure("h-pack-unallocated",
                "Unallocated GPU against arrived load (x: arrived % of capacity)",
                line_chart(fu, unalloc.value(), 0));
  ChartFrame fz = fu;
  fz.name = "pack-unallocated-high";
  fz.title = "Unallocated GPU (% of capacity) from 90 % arrived on";
  out +=
      figure("h-pack-unallocated-high", "The same from 90 % arrived on (where the policies part)",
             line_chart(fz, from_level(unalloc.value(), kZoomFrom), kZoomFrom));
  out += figure("h-pack-fragmentation",
                "Fragmentation against arrived load (x: arrived % of capacity)",
                line_chart(ff, frag.value(), 0));
  out += levels_table(pack.value("summary", nlohmann::json::array()));
  return out + "</section>\n";
}

}  // namespace frugal
