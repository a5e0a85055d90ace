#pragma once
// Simulated node agents for the serve load test (bench/serve_telemetry.sh): `agents` nodes
// (named node_prefix + 0, 1, ...), each posting one report of `gpus` GPUs every `interval_s`
// to POST /v1/telemetry with a node token, in the wire format of src/agent/telemetry_wire.h
// (built with its batch_json, so it cannot drift). The nodes' posts are spread evenly over
// the interval and sent from `threads` keep-alive connections (a real cluster has one
// connection per agent; the server's work per report is the same). Each GPU carries
// `processes` GPU processes whose `job` is a job id the load client submitted (they
// exercise the service's process-to-job mapping; they are not where the job was placed).
//
// Posting starts at construction and stops at stop() (or destruction); a post that falls
// behind its schedule is sent at once. Thread-safe counters.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace frugal::bench {

struct SimAgentOptions {
  std::string url;  // http://host:port of `frugal serve`
  std::string token;
  std::string node_prefix = "n-";
  int agents = 0;
  int gpus = 8;
  int processes = 1;  // per GPU
  int threads = 4;
  double interval_s = 10;
};

class SimAgents {
 public:
  explicit SimAgents(SimAgentOptions o);
  ~SimAgents();
  SimAgents(const SimAgents&) = delete;
  SimAgents& operator=(const SimAgents&) = delete;

  void stop();

  struct Counts {
    uint64_t posts = 0;         // answered 202
    uint64_t gpu_samples = 0;   // GPU readings in the reports the service accepted
    uint64_t refused = 0;       // answered anything else
    uint64_t unanswered = 0;    // no HTTP answer
    std::string first_refusal;  // status and body of the first, for the log
  };
  Counts counts() const;

 private:
  void run(int thread);

  const SimAgentOptions o_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> posts_{0}, samples_{0}, refused_{0}, unanswered_{0};
  mutable std::mutex mu_;
  std::string first_refusal_;  // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace frugal::bench
