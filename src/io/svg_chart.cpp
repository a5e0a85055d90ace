#include "io/svg_chart.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "io/html_escape.h"
#include "io/report.h"

namespace frugal {
namespace {

constexpr double kW = 760, kH = 260;  // line chart
constexpr double kLeft = 70, kRight = 20, kTop = 26, kBottom = 34;
constexpr std::array<const char*, 8> kPalette = {"#1f5fa8", "#b03a0c", "#23702f", "#7a3aa0",
                                                 "#8a6200", "#0a6f78", "#a3245e", "#4d4d4d"};
constexpr std::array<const char*, 3> kDash = {"", "6 4", "2 3"};

std::string open_svg(const ChartFrame& f, double w, double h) {
  return fmt::format(
      "<svg data-chart=\"{}\" role=\"img\" aria-label=\"{}\" viewBox=\"0 0 {} {}\" "
      "width=\"100%\" preserveAspectRatio=\"xMinYMin meet\" class=\"chart\">\n",
      html_escape(f.name), html_escape(f.title), w, h);
}

// A round axis maximum at or above v (1, 2, 2.5 or 5 × 10^k).
double nice_max(double v) {
  if (!(v > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

std::string axis_number(double v) {
  const double a = std::fabs(v);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

std::string path_d(const LineSeries& s, double x0, double xspan, double ymax) {
  std::string d;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
    const double x = kLeft + pw * (s.x[i] - x0) / xspan;
    const double y = kTop + ph * (1 - std::clamp(s.y[i] / ymax, 0.0, 1.0));
    d += fmt::format("{}{:.1f} {:.1f}", d.empty() ? "M" : " L", x, y);
  }
  if (s.x.size() == 1) d += fmt::format(" l{:.1f} 0", pw / 100);  // one bucket: a short stroke
  return d;
}

std::string legend(const std::vector<LineSeries>& series) {
  std::string out = "<ul class=\"legend\">";
  for (const LineSeries& s : series)
    out += fmt::format(
        "<li><svg width=\"28\" height=\"10\" aria-hidden=\"true\"><line x1=\"0\" y1=\"5\" "
        "x2=\"28\" y2=\"5\" stroke=\"{}\" stroke-width=\"3\" stroke-dasharray=\"{}\"/></svg>"
        "{}</li>",
        palette(s.colour), kDash[static_cast<size_t>(s.dash) % kDash.size()], html_escape(s.label));
  return out + "</ul>\n";
}

}  // namespace

std::string palette(int i) {
  return kPalette[static_cast<size_t>(std::max(0, i)) % kPalette.size()];
}

std::string line_chart(const ChartFrame& f, const std::vector<LineSeries>& series, double x0) {
  double xmax = x0, ymax = 0;
  bool any = false;
  for (const LineSeries& s : series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      any = true;
      xmax = std::max(xmax, s.x[i]);
      if (std::isfinite(s.y[i])) ymax = std::max(ymax, s.y[i]);
    }
  if (!any) return {};
  const double xspan = xmax > x0 ? xmax - x0 : 1;
  ymax = nice_max(ymax);
  std::string out = open_svg(f, kW, kH);
  const double pb = kH - kBottom;
  for (int k = 0; k <= 4; ++k) {
    const double y = kTop + (pb - kTop) * k / 4;
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n",
        kLeft, y, kW - kRight, y, kLeft - 6, y + 4, axis_number(ymax * (4 - k) / 4));
  }
  for (int k = 0; k <= 4; ++k) {
    const double x = kLeft + (kW - kLeft - kRight) * k / 4;
    out +=
        fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}{}</text>",
                    x, pb + 16, axis_number(xspan / f.x_scale * k / 4), html_escape(f.x_suffix));
  }
  out += fmt::format("<text x=\"4\" y=\"{}\" class=\"tick\">{}</text>\n", kTop - 14,
                     html_escape(f.unit));
  for (const LineSeries& s : series) {
    std::string d = path_d(s, x0, xspan, ymax);
    if (d.empty()) continue;
    out += fmt::format(
        "<path data-series=\"{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "stroke-dasharray=\"{}\"><title>{}</title></path>\n",
        html_escape(s.id), d, palette(s.colour), kDash[static_cast<size_t>(s.dash) % kDash.size()],
        html_escape(s.label));
  }
  return out + "</svg>\n" + legend(series);
}

std::string bar_chart(const ChartFrame& f, const std::vector<Bar>& bars,
                      const std::vector<std::string>& policies) {
  if (bars.empty()) return {};
  std::map<std::string, std::vector<const Bar*>> by_label;
  double vmax = 0;
  for (const Bar& b : bars) {
    by_label[b.label].push_back(&b);
    vmax = std::max(vmax, b.value);
  }
  vmax = nice_max(vmax);
  const double bar_h = 14, label_w = 170, w = 760, plot_w = w - label_w - 90;
  const double group_h = bar_h * static_cast<double>(policies.size()) + 10;
  const double h = group_h * static_cast<double>(by_label.size()) + 10;
  std::string out = open_svg(f, w, h);
  double y = 5;
  for (const auto& [label, group] : by_label) {
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n",
                       label_w - 6, y + group_h / 2, html_escape(label));
    for (const Bar* b : group) {
      const auto p = std::find(policies.begin(), policies.end(), b->policy) - policies.begin();
      const double by = y + bar_h * static_cast<double>(p);
      const double bw = std::max(0.0, plot_w * b->value / vmax);
      out += fmt::format(
          "<rect data-label=\"{}\" data-policy=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{:.1f}\" "
          "width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{} {}: {}</title></rect>"
          "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>\n",
          html_escape(b->label), html_escape(b->policy), number_text(b->value), label_w, by, bw,
          bar_h - 2, palette(static_cast<int>(p)), html_escape(b->policy), html_escape(b->label),
          usd(b->value), label_w + bw + 4, by + bar_h - 4, usd(b->value));
    }
    y += group_h;
  }
  return out + "</svg>\n";
}

std::string stacked_bar_chart(const ChartFrame& f, const std::vector<Bar>& bars,
                              const std::vector<std::string>& policies) {
  if (bars.empty()) return {};
  std::map<std::string, double> totals;
  std::vector<std::string> labels;
  for (const Bar& b : bars) {
    totals[b.policy] += std::max(0.0, b.value);
    if (std::find(labels.begin(), labels.end(), b.label) == labels.end()) labels.push_back(b.label);
  }
  double vmax = 0;
  for (const auto& [p, t] : totals) vmax = std::max(vmax, t);
  vmax = nice_max(vmax);
  const double bar_h = 22, label_w = 170, w = 760, plot_w = w - label_w - 90;
  const double h = (bar_h + 8) * static_cast<double>(policies.size()) + 10;
  std::string out = open_svg(f, w, h);
  for (size_t p = 0; p < policies.size(); ++p) {
    const double y = 5 + (bar_h + 8) * static_cast<double>(p);
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n",
                       label_w - 6, y + bar_h / 2 + 4, html_escape(policies[p]));
    double x = label_w;
    for (const Bar& b : bars) {
      if (b.policy != policies[p]) continue;
      const double bw = std::max(0.0, plot_w * b.value / vmax);
      const auto c = std::find(labels.begin(), labels.end(), b.label) - labels.begin();
      out += fmt::format(
          "<rect data-label=\"{}\" data-policy=\"{}\" data-value=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" "
          "width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{} {}: {}</title></rect>\n",
          html_escape(b.label), html_escape(b.policy), number_text(b.value), x, y, bw, bar_h,
          palette(static_cast<int>(c)), html_escape(b.policy), html_escape(b.label), usd(b.value));
      x += bw;
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>\n", x + 4,
                       y + bar_h / 2 + 4, usd(totals[policies[p]]));
  }
  out += "</svg>\n<ul class=\"legend\">";
  for (size_t c = 0; c < labels.size(); ++c)
    out += fmt::format("<li><span class=\"swatch\" style=\"background:{}\"></span>{}</li>",
                       palette(static_cast<int>(c)), html_escape(labels[c]));
  return out + "</ul>\n";
}

}  // namespace frugal
