#include "agent/telemetry_wire.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

using json = nlohmann::json;

NodeReport report() {
  NodeReport r;
  r.node = "gpu1";
  r.time = 1.7e9;
  r.window_s = 10;
  r.samples = 10;
  r.host.cpu_busy = 0.25;
  r.host.cpu_count = 16;
  r.host.memory_used_mib = 1000;
  r.host.memory_total_mib = 64000;
  GpuTelemetry g;
  g.node = "gpu1";
  g.gpu = 1;
  g.utilization = 0.3;
  g.memory_used_mib = 2048;
  g.memory_total_mib = 23034;
  g.power_w = 45;
  g.temperature_c = 52;
  g.processes.push_back(GpuProcess{4711, 2048, "17", "99", 0.25});
  r.gpus.push_back(g);
  return r;
}

FieldError refused(const json& body) {
  auto r = parse_telemetry_batch(body, TelemetryLimits{});
  EXPECT_TRUE(std::holds_alternative<FieldError>(r)) << body.dump();
  return std::holds_alternative<FieldError>(r) ? std::get<FieldError>(r) : FieldError{};
}

TEST(TelemetryWire, RoundTrips) {
  const json body = batch_json({report()}, 1.7e9 + 1);
  auto parsed = parse_telemetry_batch(body, TelemetryLimits{});
  ASSERT_TRUE(std::holds_alternative<TelemetryBatch>(parsed))
      << std::get<FieldError>(parsed).message;
  const TelemetryBatch& b = std::get<TelemetryBatch>(parsed);
  EXPECT_DOUBLE_EQ(b.sent_at, 1.7e9 + 1);
  ASSERT_EQ(b.reports.size(), 1u);
  const NodeReport& r = b.reports[0];
  EXPECT_EQ(r.node, "gpu1");
  EXPECT_EQ(r.samples, 10);
  EXPECT_DOUBLE_EQ(r.host.cpu_busy, 0.25);
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].node, "gpu1");
  EXPECT_EQ(r.gpus[0].gpu, 1);
  EXPECT_DOUBLE_EQ(r.gpus[0].utilization, 0.3);
  EXPECT_DOUBLE_EQ(r.gpus[0].temperature_c, 52);
  ASSERT_EQ(r.gpus[0].processes.size(), 1u);
  EXPECT_EQ(r.gpus[0].processes[0].pid, 4711);
  EXPECT_EQ(r.gpus[0].processes[0].job, "17");
  EXPECT_EQ(r.gpus[0].processes[0].slurm_job, "99");
  EXPECT_DOUBLE_EQ(r.gpus[0].processes[0].utilization, 0.25);
}

TEST(TelemetryWire, UnknownReadingsAreLeftOut) {
  NodeReport r = report();
  r.gpus[0].power_w = -1;
  r.gpus[0].temperature_c = -1;
  const json j = to_json(r);
  EXPECT_FALSE(j["gpus"][0].contains("power_w"));
  EXPECT_FALSE(j["gpus"][0].contains("temperature_c"));
  auto parsed = parse_telemetry_batch(batch_json({r}, -1), TelemetryLimits{});
  ASSERT_TRUE(std::holds_alternative<TelemetryBatch>(parsed));
  EXPECT_LT(std::get<TelemetryBatch>(parsed).reports[0].gpus[0].power_w, 0);
}

TEST(TelemetryWire, RefusesOutOfRangeValuesNamingTheField) {
  json body = batch_json({report()}, 1.7e9);
  body["reports"][0]["gpus"][0]["utilization"] = 1.5;
  FieldError e = refused(body);
  EXPECT_EQ(e.field, "reports[0].gpus[0].utilization");
  EXPECT_NE(e.message.find("outside [0, 1]"), std::string::npos) << e.message;

  body = batch_json({report()}, 1.7e9);
  body["reports"][0]["gpus"][0]["memory_used_mib"] = 30000;
  EXPECT_EQ(refused(body).field, "reports[0].gpus[0].memory_used_mib");

  body = batch_json({report()}, 1.7e9);
  body["reports"][0]["gpus"][0]["temperature_c"] = 400;
  EXPECT_EQ(refused(body).field, "reports[0].gpus[0].temperature_c");

  body = batch_json({report()}, 1.7e9);
  body["reports"][0]["gpus"][0]["power_w"] = -3;
  EXPECT_EQ(refused(body).field, "reports[0].gpus[0].power_w");

  body = batch_json({report()}, 1.7e9);
  body["reports"][0]["host"]["cpu_busy"] = "high";
  EXPECT_EQ(refused(body).field, "reports[0].host.cpu_busy");

  body = batch_json({report()}, 1.7e9);
  body["reports"][0]["gpus"][0]["processes"][0]["job"] = "17; rm -rf /";
  EXPECT_EQ(refused(body).field, "reports[0].gpus[0].processes[0].job");

  body = batch_json({report()}, 1.7e9);
  body["reports"][0]["gpus"][0]["processes"][0]["utilization"] = 2;
  EXPECT_EQ(refused(body).field, "reports[0].gpus[0].processes[0].utilization");
}

TEST(TelemetryWire, RefusesMalformedBatches) {
  EXPECT_EQ(refused(json::array()).field, "");
  EXPECT_EQ(refused(json{{"reports", json::array()}}).field, "reports");
  EXPECT_EQ(refused(json{{"reports", 3}}).field, "reports");
  json body = batch_json({report()}, 1.7e9);
  body["extra"] = 1;
  EXPECT_EQ(refused(body).field, "extra");
  body = batch_json({report()}, 1.7e9);
  body["reports"][0].erase("node");
  EXPECT_EQ(refused(body).field, "reports[0].node");
  body = batch_json({report()}, 1.7e9);
  body["reports"][0]["gpus"].push_back(body["reports"][0]["gpus"][0]);
  FieldError e = refused(body);
  EXPECT_EQ(e.field, "reports[0].gpus[1].index");
  EXPECT_NE(e.message.find("twice"), std::string::npos);
  body = batch_json({report()}, 1.7e9);
  body["reports"][0]["node"] = "bad node";
  EXPECT_EQ(refused(body).field, "reports[0].node");
}

TEST(TelemetryWire, RefusesFloodsBeyondTheLimits) {
  TelemetryLimits small;
  small.max_reports = 2;
  small.max_gpus = 2;
  small.max_processes = 1;
  std::vector<NodeReport> three(3, report());
  auto r = parse_telemetry_batch(batch_json(three, 1.7e9), small);
  ASSERT_TRUE(std::holds_alternative<FieldError>(r));
  EXPECT_EQ(std::get<FieldError>(r).field, "reports");
  NodeReport many = report();
  many.gpus[0].processes.push_back(GpuProcess{4712, 1, "", ""});
  r = parse_telemetry_batch(batch_json({many}, 1.7e9), small);
  ASSERT_TRUE(std::holds_alternative<FieldError>(r));
  EXPECT_EQ(std::get<FieldError>(r).field, "reports[0].gpus[0].processes");
  NodeReport idx = report();
  idx.gpus[0].gpu = 5;  // index beyond max_gpus - 1
  r = parse_telemetry_batch(batch_json({idx}, 1.7e9), small);
  ASSERT_TRUE(std::holds_alternative<FieldError>(r));
  EXPECT_EQ(std::get<FieldError>(r).field, "reports[0].gpus[0].index");
}

}  // namespace
}  // namespace frugal
