// The Prometheus text of /metrics: label values escaped, latency quantiles served as a summary
// (promtool refuses a `quantile` label elsewhere), GPU and job gauges with their labels and
// without the readings the backend could not take.

#include <gtest/gtest.h>

#include <string>

#include "service/gpu_metrics.h"
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

TEST(TelemetryMetrics, GpuGaugesCarryNodeGpuModelPoolAndSkipUnknownReadings) {
  GpuSample a;
  a.reading = {"node\"1", 0, 0.3, 1024, 23034, 40, 55};
  a.model = "L4";
  a.pool = "owned";
  a.allocated = 0.5;
  GpuSample b;  // nothing read: only the allocation
  b.reading.node = "n2";
  b.reading.gpu = 3;
  b.allocated = 0;
  std::string out;
  render_gpu_metrics({a, b}, out);
  const std::string la = R"({node="node\"1",gpu="0",model="L4",pool="owned"})";
  EXPECT_TRUE(has_line(out, "frugal_gpu_utilization_ratio" + la + " 0.3")) << out;
  EXPECT_TRUE(has_line(out, "frugal_gpu_memory_used_bytes" + la + " 1073741824")) << out;
  EXPECT_TRUE(has_line(out, "frugal_gpu_memory_total_bytes" + la + " 24152899584")) << out;
  EXPECT_TRUE(has_line(out, "frugal_gpu_power_watts" + la + " 40")) << out;
  EXPECT_TRUE(has_line(out, "frugal_gpu_temperature_celsius" + la + " 55")) << out;
  EXPECT_TRUE(has_line(out, "frugal_gpu_allocated_ratio" + la + " 0.5")) << out;
  EXPECT_TRUE(has_line(out, R"(frugal_gpu_allocated_ratio{node="n2",gpu="3"} 0)")) << out;
  EXPECT_EQ(out.find(R"(frugal_gpu_utilization_ratio{node="n2")"), std::string::npos) << out;
  EXPECT_EQ(out.find(R"(frugal_gpu_temperature_celsius{node="n2")"), std::string::npos) << out;
  EXPECT_TRUE(has_line(out, "# TYPE frugal_gpu_power_watts gauge")) << out;
}

TEST(TelemetryMetrics, JobGaugesAndTeamShares) {
  JobUse j1{7, "alpha", "general", "L4", 2, 0.6, 2048};
  JobUse j2{8, "alpha", "core", "", 0.5, -1, -1};
  JobUse j3{9, "b\\eta", "important", "H100", 1, 1.4, -1};
  std::string out;
  render_job_metrics({j1, j2, j3}, out);
  const std::string l1 = R"({job_id="7",team="alpha",tier="general",model="L4"})";
  EXPECT_TRUE(has_line(out, "frugal_job_gpus_allocated" + l1 + " 2")) << out;
  EXPECT_TRUE(has_line(out, "frugal_job_gpu_utilization_ratio" + l1 + " 0.6")) << out;
  EXPECT_TRUE(has_line(out, "frugal_job_gpu_memory_used_bytes" + l1 + " 2147483648")) << out;
  EXPECT_TRUE(
      has_line(out, R"(frugal_job_gpus_allocated{job_id="8",team="alpha",tier="core"} 0.5)"))
      << out;
  EXPECT_EQ(out.find(R"(frugal_job_gpu_utilization_ratio{job_id="8")"), std::string::npos);
  EXPECT_TRUE(has_line(
      out,
      R"(frugal_job_gpu_utilization_ratio{job_id="9",team="b\\eta",tier="important",model="H100"} 1)"))
      << out;
  EXPECT_TRUE(has_line(out, R"(frugal_team_gpus_allocated{team="alpha"} 2.5)")) << out;
  EXPECT_TRUE(has_line(out, R"(frugal_team_gpus_allocated{team="b\\eta"} 1)")) << out;
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

TEST(TelemetryMetrics, HostGaugesFromNodeAgents) {
  HostLoad h;
  h.cpu_busy = 0.25;
  h.cpu_count = 64;
  h.memory_used_mib = 1024;
  h.memory_total_mib = 4096;
  HostLoad unknown;  // an agent that could not read /proc
  std::string out;
  render_host_metrics({{"gpu1", h}, {"gpu\"2", unknown}}, out);
  const auto line = [&](const std::string& l) {
    return out.find("\n" + l + "\n") != std::string::npos;
  };
  EXPECT_TRUE(line("frugal_node_cpu_busy_ratio{node=\"gpu1\"} 0.25")) << out;
  EXPECT_TRUE(line("frugal_node_cpus{node=\"gpu1\"} 64")) << out;
  EXPECT_TRUE(line("frugal_node_memory_used_bytes{node=\"gpu1\"} 1073741824")) << out;
  EXPECT_TRUE(line("frugal_node_memory_total_bytes{node=\"gpu1\"} 4294967296")) << out;
  EXPECT_EQ(out.find("gpu\\\"2"), std::string::npos) << out;  // unknown values left out
  EXPECT_NE(out.find("# TYPE frugal_node_cpus gauge"), std::string::npos);
}

}  // namespace
}  // namespace frugal
