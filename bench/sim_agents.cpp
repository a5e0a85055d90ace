#include "sim_agents.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>

#include "agent/telemetry_wire.h"

namespace frugal::bench {
namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One report of node `a` at `now`: steady readings that vary by node, GPU and window `k`.
NodeReport report(const SimAgentOptions& o, int a, int64_t k, double now) {
  NodeReport r;
  r.node = o.node_prefix + std::to_string(a);
  r.time = now;
  r.window_s = o.interval_s;
  r.samples = std::max(1, static_cast<int>(std::lround(o.interval_s)));
  r.host = HostLoad{0.3, 64, 200000, 515000};
  for (int g = 0; g < o.gpus; ++g) {
    GpuTelemetry t;
    t.node = r.node;
    t.gpu = g;
    t.utilization = static_cast<double>((a * 7 + g * 13 + k * 3) % 101) / 100.0;
    t.memory_used_mib = 1000 + 100 * g;
    t.memory_total_mib = 81559;
    t.power_w = 100 + 10 * g;
    t.temperature_c = 50 + g;
    for (int p = 0; p < o.processes; ++p) {
      const int64_t job = static_cast<int64_t>(a) * o.gpus * o.processes + g * o.processes + p + 1;
      t.processes.push_back(GpuProcess{10000 + job, 900, std::to_string(job), ""});
    }
    r.gpus.push_back(std::move(t));
  }
  return r;
}

}  // namespace

SimAgents::SimAgents(SimAgentOptions o) : o_(std::move(o)) {
  const int n = std::min(o_.threads, o_.agents);
  for (int t = 0; t < n; ++t) threads_.emplace_back([this, t] { run(t); });
}

SimAgents::~SimAgents() {
  stop();
}

void SimAgents::stop() {
  stop_ = true;
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

SimAgents::Counts SimAgents::counts() const {
  Counts c;
  c.posts = posts_;
  c.gpu_samples = samples_;
  c.refused = refused_;
  c.unanswered = unanswered_;
  std::lock_guard<std::mutex> lock(mu_);
  c.first_refusal = first_refusal_;
  return c;
}

// Thread t posts for nodes t, t + threads, ...: node a's k-th post is due at
// start + (k + a / agents) * interval, so the thread's posts come in node order each round.
void SimAgents::run(int thread) {
  httplib::Client c(o_.url);
  c.set_bearer_token_auth(o_.token);
  c.set_keep_alive(true);
  c.set_tcp_nodelay(true);
  c.set_read_timeout(60);
  const int step = std::min(o_.threads, o_.agents);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t k = 0; !stop_; ++k)
    for (int a = thread; a < o_.agents && !stop_; a += step) {
      const double due_s =
          (static_cast<double>(k) + static_cast<double>(a) / o_.agents) * o_.interval_s;
      const auto due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(due_s));
      while (!stop_ && std::chrono::steady_clock::now() < due)
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
            due - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
      if (stop_) break;
      const double now = unix_now();
      const std::string body = batch_json({report(o_, a, k, now)}, now).dump();
      const auto r = c.Post("/v1/telemetry", body, "application/json");
      if (!r) {
        ++unanswered_;
      } else if (r->status == 202) {
        ++posts_;
        const auto j = nlohmann::json::parse(r->body, nullptr, false);
        if (j.is_object())
          samples_ += j.value("accepted", uint64_t{0}) * static_cast<uint64_t>(o_.gpus);
      } else if (refused_++ == 0) {
        std::lock_guard<std::mutex> lock(mu_);
        first_refusal_ = std::to_string(r->status) + " " + r->body;
      }
    }
}

}  // namespace frugal::bench
