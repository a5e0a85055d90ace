// The Prometheus text of /metrics: label values escaped, latency quantiles served as a summary
// (promtool refuses a `quantile` label elsewhere).

#include <gtest/gtest.h>

#include <string>

#include "service/metrics.h"
#include "service/prom_text.h"

namespace frugal {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(TelemetryMetrics, LabelValuesEscapeBackslashQuoteAndNewline) {
  EXPECT_EQ(escape_label_value("plain-team_1"), "plain-team_1");
  EXPECT_EQ(escape_label_value(R"(a\b)"), R"(a\\b)");
  EXPECT_EQ(escape_label_value(R"(say "hi")"), R"(say \"hi\")");
  EXPECT_EQ(escape_label_value("two\nlines"), R"(two\nlines)");
  EXPECT_EQ(escape_label_value("ünïcode"), "ünïcode");  // UTF-8 passes unchanged
}

TEST(TelemetryMetrics, SampleLineWithAndWithoutLabels) {
  std::string out;
  render_sample("m", {}, 1.5, out);
  render_sample("m", {{"team", "a\"b"}, {"node", "n\\1"}}, 0, out);
  EXPECT_EQ(out, "m 1.5\nm{team=\"a\\\"b\",node=\"n\\\\1\"} 0\n");
}

TEST(TelemetryMetrics, HelpTextEscapesBackslashAndNewline) {
  std::string out;
  render_header("m", "gauge", "a\\b\nc", out);
  EXPECT_EQ(out, "# HELP m a\\\\b\\nc\n# TYPE m gauge\n");
}

TEST(TelemetryMetrics, LatencyWindowIsASummaryNotAGauge) {
  LatencyHistogram h(4);
  for (const double s : {0.001, 0.002, 0.003, 0.004, 0.005}) h.record(s);
  std::string out;
  h.render("x_seconds", "latency", out);
  EXPECT_TRUE(has_line(out, "# TYPE x_seconds histogram")) << out;
  EXPECT_TRUE(has_line(out, "x_seconds_bucket{le=\"+Inf\"} 5")) << out;
  EXPECT_TRUE(has_line(out, "x_seconds_count 5")) << out;
  EXPECT_TRUE(has_line(out, "# TYPE x_seconds_window summary")) << out;
  EXPECT_EQ(out.find("x_seconds_window gauge"), std::string::npos) << out;
  // Quantiles over the latest 4 samples (0.002..0.005); _sum and _count cumulative.
  EXPECT_TRUE(has_line(out, "x_seconds_window{quantile=\"0.5\"} 0.004")) << out;
  EXPECT_TRUE(has_line(out, "x_seconds_window{quantile=\"0.99\"} 0.005")) << out;
  EXPECT_TRUE(has_line(out, "x_seconds_window_count 5")) << out;
  EXPECT_NE(out.find("x_seconds_window_sum 0.015"), std::string::npos) << out;
}

}  // namespace
}  // namespace frugal
