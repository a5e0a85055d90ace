#pragma once
// SVG charts for the HTML report (src/io/html_report.h), drawn by frugal itself: no
// charting library, no script, no network. The same input gives the same bytes, so a test
// can check what a chart shows without a browser.
//
// DOM contract (the browser tests rely on it): every chart is
// <svg data-chart="NAME" role="img" aria-label="...">; each line series is
// <path data-series="SERIES" d="..."> (d never empty); each bar is
// <rect data-label="LABEL" data-policy="POLICY" data-value="NUMBER">, NUMBER the value as the
// input JSON holds it. All text is escaped.

#include <string>
#include <vector>

namespace frugal {

struct LineSeries {
  std::string id;     // data-series, e.g. "frugal:allocated_gpus"
  std::string label;  // legend text
  std::vector<double> x, y;
  int colour = 0;  // palette index (one per policy)
  int dash = 0;    // 0 solid, 1 dashed, 2 dotted (one per metric)
};

struct Bar {
  std::string policy;
  std::string label;
  double value = 0;
};

struct ChartFrame {
  std::string name;   // data-chart
  std::string title;  // aria-label
  std::string unit;   // the y axis' unit, for the axis label
  // The x axis' ticks: (x − x0) / x_scale, followed by x_suffix (default: seconds shown as
  // hours).
  double x_scale = 3600;
  std::string x_suffix = "h";
};

// A line chart; x from `x0`, ticks as ChartFrame says (seconds as hours by default). Empty
// string when no series has a point.
std::string line_chart(const ChartFrame& f, const std::vector<LineSeries>& series, double x0);

// Horizontal bars grouped by label, one bar per policy in `policies` order (colour by
// policy). Empty string when there are no bars.
std::string bar_chart(const ChartFrame& f, const std::vector<Bar>& bars,
                      const std::vector<std::string>& policies);

// One horizontal stacked bar per policy, a segment per label (colour by label). Empty string
// when there are no bars.
std::string stacked_bar_chart(const ChartFrame& f, const std::vector<Bar>& bars,
                              const std::vector<std::string>& policies);

// Hex colour of palette index i (dark enough for 4.5:1 on white as text).
std::string palette(int i);

}  // namespace frugal
