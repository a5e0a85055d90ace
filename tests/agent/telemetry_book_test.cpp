#include "service/telemetry_book.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

NodeReport report(const std::string& node, double time, int gpu = 0, double util = 0.3) {
  NodeReport r;
  r.node = node;
  r.time = time;
  r.window_s = 10;
  r.samples = 10;
  GpuTelemetry g;
  g.node = node;
  g.gpu = gpu;
  g.utilization = util;
  r.gpus.push_back(g);
  return r;
}

TelemetryBatch batch(std::vector<NodeReport> reports, double sent_at) {
  return TelemetryBatch{sent_at, std::move(reports)};
}

TelemetryBook book() {
  return TelemetryBook({{"gpu1", 2}, {"gpu2", 8}}, TelemetryRules{});
}

TelemetryBook::Refusal refusal(std::variant<TelemetryBook::Accepted, TelemetryBook::Refusal> v) {
  EXPECT_TRUE(std::holds_alternative<TelemetryBook::Refusal>(v));
  return std::holds_alternative<TelemetryBook::Refusal>(v) ? std::get<TelemetryBook::Refusal>(v)
                                                           : TelemetryBook::Refusal{};
}

TEST(TelemetryBook, KeepsEachNodesNewestAndEveryReportOnce) {
  TelemetryBook b = book();
  auto a = b.ingest({}, batch({report("gpu1", 990), report("gpu1", 1000, 1, 0.9)}, 1000), 1000);
  ASSERT_TRUE(std::holds_alternative<TelemetryBook::Accepted>(a));
  EXPECT_EQ(std::get<TelemetryBook::Accepted>(a).accepted, 2u);
  const auto latest = b.latest(1000);
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest[0].gpus[0].gpu, 1);
  EXPECT_EQ(b.take().size(), 2u);
  EXPECT_TRUE(b.take().empty());
  // The newest is used for stale_after_s (60 s), then no more.
  EXPECT_EQ(b.latest(1060).size(), 1u);
  EXPECT_TRUE(b.latest(1061).empty());
}

TEST(TelemetryBook, RefusesUnknownNodesAndGpus) {
  TelemetryBook b = book();
  TelemetryBook::Refusal r = refusal(b.ingest({}, batch({report("gpu9", 1000)}, 1000), 1000));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.error.field, "reports[0].node");
  EXPECT_NE(r.error.message.find("unknown node 'gpu9'"), std::string::npos);
  r = refusal(b.ingest({}, batch({report("gpu1", 1000), report("gpu1", 1001, 2)}, 1001), 1001));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.error.field, "reports[1].gpus[0].index");
  EXPECT_NE(r.error.message.find("has 2 GPU(s)"), std::string::npos);
  EXPECT_TRUE(b.take().empty());  // refused whole: the good report was not kept either
  EXPECT_EQ(b.counters().refused, 2u);
}

TEST(TelemetryBook, ATokenReportsOnlyForItsNodes) {
  TelemetryBook b = book();
  TelemetryBook::Refusal r = refusal(b.ingest({"gpu1"}, batch({report("gpu2", 1000)}, 1000), 1000));
  EXPECT_EQ(r.status, 403);
  EXPECT_TRUE(std::holds_alternative<TelemetryBook::Accepted>(
      b.ingest({"gpu1"}, batch({report("gpu1", 1000)}, 1000), 1000)));
}

TEST(TelemetryBook, RefusesClockSkewBothWays) {
  TelemetryBook b = book();
  TelemetryBook::Refusal ahead = refusal(b.ingest({}, batch({report("gpu1", 1500)}, 1500), 1000));
  EXPECT_EQ(ahead.error.field, "sent_at");
  EXPECT_NE(ahead.error.message.find("500 s ahead of"), std::string::npos) << ahead.error.message;
  TelemetryBook::Refusal behind = refusal(b.ingest({}, batch({report("gpu1", 800)}, 800), 1000));
  EXPECT_NE(behind.error.message.find("behind"), std::string::npos);
  // Within the skew bound, times move onto the service's clock.
  ASSERT_TRUE(std::holds_alternative<TelemetryBook::Accepted>(
      b.ingest({}, batch({report("gpu1", 1030)}, 1030), 1000)));
  EXPECT_DOUBLE_EQ(b.take()[0].time, 1000);
  // Without sent_at a report's own time is checked.
  TelemetryBook::Refusal own = refusal(b.ingest({}, batch({report("gpu2", 2000)}, -1), 1000));
  EXPECT_EQ(own.error.field, "reports[0].time");
}

TEST(TelemetryBook, SkipsOldAndOutOfOrderReports) {
  TelemetryBook b = book();
  auto a = b.ingest(
      {}, batch({report("gpu1", 1000 - 4000), report("gpu1", 995), report("gpu1", 990)}, 1000),
      1000);
  ASSERT_TRUE(std::holds_alternative<TelemetryBook::Accepted>(a));
  EXPECT_EQ(std::get<TelemetryBook::Accepted>(a).accepted, 1u);
  EXPECT_EQ(std::get<TelemetryBook::Accepted>(a).stale, 2u);
}

TEST(TelemetryBook, LimitsThePostRateAndPendingReports) {
  TelemetryBook b = book();
  ASSERT_TRUE(std::holds_alternative<TelemetryBook::Accepted>(
      b.ingest({}, batch({report("gpu1", 1000)}, 1000), 1000)));
  TelemetryBook::Refusal r = refusal(b.ingest({}, batch({report("gpu1", 1000.1)}, 1000.1), 1000.1));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(b.counters().rate_limited, 1u);
  // Never taken: at most kMaxPendingPerNode stay.
  double t = 1001;
  for (size_t i = 0; i < TelemetryBook::kMaxPendingPerNode + 10; ++i, t += 1)
    ASSERT_TRUE(std::holds_alternative<TelemetryBook::Accepted>(
        b.ingest({}, batch({report("gpu2", t)}, t), t)));
  EXPECT_EQ(b.take().size(), 1 + TelemetryBook::kMaxPendingPerNode);  // gpu1's and gpu2's
  EXPECT_EQ(b.counters().dropped, 10u);
}

}  // namespace
}  // namespace frugal
