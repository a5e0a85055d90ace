#pragma once
// `frugal agent`: a node's telemetry pushed to `frugal serve` (docs/TELEMETRY.md). Every
// sample_interval_s it samples the GPUs (NVML) and the host (/proc), maps GPU processes to
// jobs (agent/process_jobs.h); every report_interval_s it closes a window (a NodeReport)
// and posts the reports not yet delivered to POST /v1/telemetry with its node token.
//
// While the server does not take them (no answer, 5xx, 429) reports wait in an outbox of at
// most outbox_reports (the oldest are dropped and counted) and posts back off, doubling from
// report_interval_s up to max_backoff_s; memory is bounded by the outbox. A batch refused
// as bad (another 4xx) is logged with the server's error and dropped (it would never pass).
// 401 or 403 (a wrong token, or a node the token may not report for) stops the agent.
//
// Agent::step is the whole behaviour on a given time, with sampling and posting passed in
// (tests drive it); run_agent is the process around it (NVML, /proc, HTTP, signals).

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/report_window.h"
#include "agent/telemetry_wire.h"
#include "model/result.h"
#include "service/api_client.h"

namespace frugal {

struct AgentOptions {
  std::string server;  // http://host:port of `frugal serve`
  std::string token;   // a node token (config `agents:`)
  std::string node;    // the node name the service knows (default: this host's name)
  double sample_interval_s = 1;
  double report_interval_s = 10;
  double max_backoff_s = 60;
  size_t outbox_reports = 720;  // reports kept while the server is away
  size_t batch_reports = 60;    // reports per POST at most
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string proc = "/proc";
  bool allow_no_gpu = false;  // without NVML: report host load only (else an error)
  bool print = false;         // print each report as JSON instead of posting (no --server)
  bool once = false;          // one report, then exit
};

class Agent {
 public:
  // One sample: the GPUs (processes mapped to jobs) and the host.
  using Sample = std::function<std::pair<std::vector<GpuTelemetry>, HostLoad>()>;
  // One POST of a batch body; an Error when no HTTP answer came.
  using Post = std::function<Result<ApiResponse>(const nlohmann::json& body)>;

  Agent(AgentOptions options, Sample sample, Post post,
        std::function<void(const std::string&)> log);

  // Does what is due at `now` (Unix s): a sample, a window closed, a post. Returns the time
  // of the next thing due; an Error when the server refused the token (401/403).
  Result<double> step(double now);
  // Closes the window now and tries one post (at exit). Error as step().
  Status flush(double now);

  size_t queued() const { return outbox_.size(); }
  uint64_t dropped() const { return dropped_; }
  uint64_t delivered() const { return delivered_; }
  uint64_t refused() const { return refused_; }

 private:
  Status post(double now);
  void enqueue(NodeReport r);

  AgentOptions o_;
  Sample sample_;
  Post post_;
  std::function<void(const std::string&)> log_;
  ReportWindow window_;
  std::deque<NodeReport> outbox_;
  double next_sample_ = 0, next_report_ = 0, next_post_ = 0;
  double backoff_s_ = 0;
  bool started_ = false;
  uint64_t dropped_ = 0, delivered_ = 0, refused_ = 0;
};

// The `frugal agent` process: until SIGINT/SIGTERM (or one report with `once`). Exit code:
// 0 stopped, 2 a setup error (no NVML without allow_no_gpu, bad options) or a refused token.
int run_agent(const AgentOptions& options);

}  // namespace frugal
