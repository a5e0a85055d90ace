#include "agent/agent.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

// An agent driven on a fake time with scripted samples and a scripted server.
struct Rig {
  AgentOptions o;
  double util = 0.3;
  std::vector<nlohmann::json> posts;         // bodies the server saw
  std::vector<Result<ApiResponse>> answers;  // next answers (default: 202)
  std::vector<std::string> logs;
  std::unique_ptr<Agent> agent;

  explicit Rig(size_t outbox = 720) {
    o.node = "gpu1";
    o.sample_interval_s = 1;
    o.report_interval_s = 10;
    o.max_backoff_s = 60;
    o.outbox_reports = outbox;
    agent = std::make_unique<Agent>(
        o,
        [this] {
          GpuTelemetry g;
          g.node = "gpu1";
          g.gpu = 0;
          g.utilization = util;
          g.memory_used_mib = 100;
          g.memory_total_mib = 1000;
          return std::make_pair(std::vector<GpuTelemetry>{g}, HostLoad{});
        },
        [this](const nlohmann::json& body) -> Result<ApiResponse> {
          posts.push_back(body);
          if (answers.empty()) return ApiResponse{202, {{"accepted", 1}}};
          Result<ApiResponse> a = answers.front();
          answers.erase(answers.begin());
          return a;
        },
        [this](const std::string& line) { logs.push_back(line); });
  }
  // Steps from t0 to t1 as the agent asks (next due times).
  Status run(double t0, double t1) {
    double t = t0;
    while (t <= t1) {
      Result<double> next = agent->step(t);
      if (!next.ok()) return next.error();
      t = std::max(t + 1e-6, next.value());
    }
    return Status::Ok();
  }
};

TEST(Agent, ReportsAWindowOfMeansEveryInterval) {
  Rig r;
  r.util = 0.2;
  ASSERT_TRUE(r.run(1000, 1004.5).ok());
  r.util = 0.8;
  ASSERT_TRUE(r.run(1005, 1010).ok());
  ASSERT_EQ(r.posts.size(), 1u);
  const auto& rep = r.posts[0]["reports"][0];
  EXPECT_EQ(rep["node"], "gpu1");
  EXPECT_EQ(rep["samples"], 10);
  EXPECT_DOUBLE_EQ(rep["time"].get<double>(), 1010);
  EXPECT_NEAR(rep["gpus"][0]["utilization"].get<double>(), 0.5, 1e-9);  // 5 × 0.2, 5 × 0.8
  EXPECT_DOUBLE_EQ(r.posts[0]["sent_at"].get<double>(), 1010);
  EXPECT_EQ(r.agent->delivered(), 1u);
  EXPECT_EQ(r.agent->queued(), 0u);
}

TEST(Agent, KeepsReportsBoundedAndBacksOffWhileTheServerIsAway) {
  Rig r(/*outbox=*/5);
  for (int i = 0; i < 100; ++i) r.answers.push_back(Error{"cannot connect"});
  ASSERT_TRUE(r.run(0, 600).ok());
  // 60 windows closed; 5 kept, the rest dropped oldest first.
  EXPECT_EQ(r.agent->queued(), 5u);
  EXPECT_EQ(r.agent->dropped(), 55u);
  // Posts back off 10, 20, 40, 60, 60 ... s: far fewer than one per window.
  EXPECT_LE(r.posts.size(), 14u);
  EXPECT_GE(r.posts.size(), 9u);
  size_t said = 0;
  for (const std::string& l : r.logs) said += l.find("cannot connect") != std::string::npos;
  EXPECT_EQ(said, 1u);  // said once, not at every retry
  // The server is back; the next retry (at 620 s) sends the backlog: the windows of 610 and
  // 620 s still pushed out the oldest two, then nothing more is dropped.
  r.answers.clear();
  ASSERT_TRUE(r.run(601, 700).ok());
  EXPECT_EQ(r.agent->queued(), 0u);
  EXPECT_EQ(r.agent->dropped(), 57u);
  EXPECT_EQ(r.agent->delivered(), 5u + 8u);  // the backlog, then each window from 630 s
}

TEST(Agent, DropsABatchTheServerRefusesAsBad) {
  Rig r;
  r.answers.push_back(
      ApiResponse{400, {{"error", "unknown node 'gpu1'"}, {"field", "reports[0].node"}}});
  ASSERT_TRUE(r.run(0, 10).ok());
  EXPECT_EQ(r.agent->refused(), 1u);
  EXPECT_EQ(r.agent->queued(), 0u);
  ASSERT_FALSE(r.logs.empty());
  EXPECT_NE(r.logs.back().find("reports[0].node"), std::string::npos) << r.logs.back();
}

TEST(Agent, StopsWhenTheTokenIsRefused) {
  Rig r;
  r.answers.push_back(
      ApiResponse{403, {{"error", "this node token may not report for node 'gpu1'"}}});
  const Status s = r.run(0, 30);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("refused the node token"), std::string::npos);
}

TEST(Agent, RetriesAfterTooManyRequests) {
  Rig r;
  r.answers.push_back(ApiResponse{429, {{"error", "too soon"}}});
  ASSERT_TRUE(r.run(0, 25).ok());
  EXPECT_EQ(r.agent->delivered(), 2u);  // the refused report went with the next one
  EXPECT_EQ(r.posts.size(), 2u);
  EXPECT_EQ(r.posts[1]["reports"].size(), 2u);
}

}  // namespace
}  // namespace frugal
