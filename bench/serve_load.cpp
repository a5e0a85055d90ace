// Load client for `frugal serve` (bench/serve_load.sh): several threads, each on its own
// keep-alive connection, POST /v1/jobs as fast as the service answers. Prints one JSON line:
// accepted submissions per second, the client-observed latency of a submission, and the
// service's decision latency quantiles read back from /metrics.
//
//   frugal_serve_load --url http://127.0.0.1:PORT --token T [--threads 8] [--jobs 20000]
#include <httplib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

double metric(const std::string& text, const std::string& line_prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(line_prefix, 0) == 0) return std::stod(line.substr(line_prefix.size()));
  return -1;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"frugal serve load client"};
  std::string url, token;
  int threads = 8;
  int jobs = 20000;
  app.add_option("--url", url)->required();
  app.add_option("--token", token)->required();
  app.add_option("--threads", threads)->check(CLI::Range(1, 256));
  app.add_option("--jobs", jobs)->check(CLI::Range(1, 10000000));
  CLI11_PARSE(app, argc, argv);

  std::atomic<int> next{0}, accepted{0}, refused{0};
  std::mutex mu;
  std::vector<double> latencies;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      httplib::Client c(url);
      c.set_bearer_token_auth(token);
      c.set_keep_alive(true);
      c.set_tcp_nodelay(true);
      c.set_read_timeout(60);
      std::mt19937 rng(static_cast<unsigned>(t) + 1);
      std::vector<double> mine;
      while (next.fetch_add(1) < jobs) {
        nlohmann::json body = {{"command", "true"}};
        const int kind = static_cast<int>(rng() % 10);
        if (kind < 6)
          body["gpus"] = 1;
        else if (kind < 8)
          body["gpus"] = 1 + static_cast<int>(rng() % 8);
        else if (kind < 9)
          body["gpu_milli"] = 250 + 250 * static_cast<int>(rng() % 3);
        else
          body["gpus"] = 0;
        if (rng() % 5 == 0) body["tier"] = "core";
        const auto s = std::chrono::steady_clock::now();
        const auto r = c.Post("/v1/jobs", body.dump(), "application/json");
        mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
        if (r && r->status == 201) {
          ++accepted;
        } else if (refused++ == 0) {
          std::fprintf(stderr, "first refused submission: %s\n",
                       r ? (std::to_string(r->status) + " " + r->body).c_str()
                         : httplib::to_string(r.error()).c_str());
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  for (std::thread& th : pool) th.join();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Let the loop finish the last cycles, then read the service's own measurements.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  httplib::Client c(url);
  const auto m = c.Get("/metrics");
  const std::string text = m && m->status == 200 ? m->body : "";
  nlohmann::json out = {
      {"threads", threads},
      {"jobs", jobs},
      {"accepted", accepted.load()},
      {"refused", refused.load()},
      {"elapsed_s", elapsed},
      {"submissions_per_s", accepted.load() / elapsed},
      {"submit_latency_p50_ms", quantile(latencies, 0.5) * 1e3},
      {"submit_latency_p99_ms", quantile(latencies, 0.99) * 1e3},
      {"decision_latency_p50_ms",
       metric(text, "frugal_decision_latency_seconds_window{quantile=\"0.5\"} ") * 1e3},
      {"decision_latency_p99_ms",
       metric(text, "frugal_decision_latency_seconds_window{quantile=\"0.99\"} ") * 1e3},
      {"decision_cycles", metric(text, "frugal_decision_cycles_total ")},
      {"decisions", metric(text, "frugal_decisions_total ")},
      {"group_commits", metric(text, "frugal_group_commits_total ")},
      {"running_jobs", metric(text, "frugal_running_jobs ")},
  };
  std::printf("%s\n", out.dump().c_str());
  return refused.load() == 0 ? 0 : 1;
}
