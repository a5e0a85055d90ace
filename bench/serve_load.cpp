// Load client for `frugal serve` (bench/serve_load.sh): several threads, each on its own
// keep-alive connection, POST /v1/jobs as fast as the service answers. Prints one JSON line:
// accepted submissions per second, the client-observed latency of a submission, and the
// service's decision latency quantiles read back from /metrics.
//
// The full-cluster phase (--fill N): first N whole-node jobs (8 GPUs) fill the cluster, then
// the measured phase submits --jobs more while a completer cancels --complete-rate of the
// filling jobs a second (each frees a node) and --scrapers threads read /metrics in a loop;
// the decision latency is then also given over the measured phase alone (from the histogram's
// buckets), with the queue length and the longest wait before a job was first examined.
//
// Telemetry (--agents N, bench/serve_telemetry.sh): N simulated node agents post a report of
// --agent-gpus GPUs every --agent-interval-s to POST /v1/telemetry with the node token
// --agent-token (bench/sim_agents.h), from --agent-warmup-s before the first submission (so
// that the service is in its steady state) until the measurement ends.
//
//   frugal_serve_load --url http://127.0.0.1:PORT --token T [--threads 8] [--jobs 20000]
//                     [--fill 0] [--complete-rate 100] [--scrapers 0] [--scrape-interval-ms 0]
//                     [--agents 0 --agent-token T2 [--agent-gpus 8] [--agent-interval-s 10]
//                      [--agent-threads 4] [--agent-processes 1] [--agent-warmup-s 12]]
#include <httplib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim_agents.h"

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

// The cumulative bucket counts of a histogram in Prometheus text: le -> count.
std::vector<std::pair<double, double>> buckets(const std::string& text, const std::string& name) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(text);
  std::string line;
  const std::string prefix = name + "_bucket{le=\"";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t q = line.find('"', prefix.size());
    const std::string le = line.substr(prefix.size(), q - prefix.size());
    const double bound = le == "+Inf" ? 1e300 : std::stod(le);
    out.emplace_back(bound, std::stod(line.substr(line.rfind(' ') + 1)));
  }
  return out;
}

// The q-quantile of the samples between two readings of the same histogram, interpolated
// linearly within its bucket; and the share of them at or under `bound` (a bucket edge).
std::pair<double, double> between(const std::vector<std::pair<double, double>>& before,
                                  const std::vector<std::pair<double, double>>& after, double q,
                                  double bound) {
  if (before.size() != after.size() || after.empty()) return {-1, -1};
  const double total = after.back().second - before.back().second;
  if (total <= 0) return {0, 1};
  double share = 0, value = -1, lo = 0, prev = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    const double c = after[i].second - before[i].second;
    if (after[i].first <= bound * (1 + 1e-9)) share = c / total;
    if (value < 0 && c >= q * total) {
      const double hi = after[i].first > 1e299 ? lo * 2 : after[i].first;
      const double in_bucket = c - prev;
      value = in_bucket > 0 ? lo + (hi - lo) * (q * total - prev) / in_bucket : hi;
    }
    lo = after[i].first;
    prev = c;
  }
  return {value, share};
}

std::string get_metrics(const std::string& url) {
  httplib::Client c(url);
  c.set_read_timeout(60);
  const auto m = c.Get("/metrics");
  return m && m->status == 200 ? m->body : "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"frugal serve load client"};
  std::string url, token;
  int threads = 8;
  int jobs = 20000;
  int fill = 0;
  int complete_rate = 100;
  int scrapers = 0;
  int scrape_interval_ms = 0;
  app.add_option("--url", url)->required();
  app.add_option("--token", token)->required();
  app.add_option("--threads", threads)->check(CLI::Range(1, 256));
  app.add_option("--jobs", jobs)->check(CLI::Range(1, 10000000));
  app.add_option("--fill", fill, "whole-node jobs submitted first")->check(CLI::Range(0, 10000000));
  app.add_option("--complete-rate", complete_rate, "filling jobs cancelled a second")
      ->check(CLI::Range(0, 100000));
  app.add_option("--scrapers", scrapers, "threads reading /metrics in a loop")
      ->check(CLI::Range(0, 64));
  app.add_option("--scrape-interval-ms", scrape_interval_ms,
                 "pause between one scraper's reads (0: back to back)")
      ->check(CLI::Range(0, 60000));
  frugal::bench::SimAgentOptions agent_opts;
  double agent_warmup_s = 12;
  app.add_option("--agents", agent_opts.agents, "simulated node agents posting telemetry")
      ->check(CLI::Range(0, 100000));
  app.add_option("--agent-token", agent_opts.token, "their node token");
  app.add_option("--agent-gpus", agent_opts.gpus, "GPUs per report")->check(CLI::Range(1, 64));
  app.add_option("--agent-interval-s", agent_opts.interval_s, "seconds between a node's reports")
      ->check(CLI::Range(0.2, 3600.0));
  app.add_option("--agent-threads", agent_opts.threads, "connections the agents post on")
      ->check(CLI::Range(1, 256));
  app.add_option("--agent-processes", agent_opts.processes, "GPU processes per GPU")
      ->check(CLI::Range(0, 256));
  app.add_option("--agent-warmup-s", agent_warmup_s, "seconds of posting before submissions")
      ->check(CLI::Range(0.0, 3600.0));
  CLI11_PARSE(app, argc, argv);
  if (agent_opts.agents > 0 && agent_opts.token.empty()) {
    std::fprintf(stderr, "--agents needs --agent-token\n");
    return 2;
  }
  agent_opts.url = url;
  std::unique_ptr<frugal::bench::SimAgents> agents;
  const auto agents_from = std::chrono::steady_clock::now();
  if (agent_opts.agents > 0) {
    agents = std::make_unique<frugal::bench::SimAgents>(agent_opts);
    std::this_thread::sleep_for(std::chrono::duration<double>(agent_warmup_s));
  }

  // Full-cluster phase: fill first (not measured), keeping the ids for the completer.
  std::vector<int64_t> filled;
  if (fill > 0) {
    std::atomic<int> n{0};
    std::mutex fm;
    std::vector<std::thread> fillers;
    for (int t = 0; t < threads; ++t)
      fillers.emplace_back([&] {
        httplib::Client c(url);
        c.set_bearer_token_auth(token);
        c.set_keep_alive(true);
        c.set_read_timeout(60);
        while (n.fetch_add(1) < fill) {
          const auto r = c.Post("/v1/jobs", R"({"command":"true","gpus":8})", "application/json");
          if (r && r->status == 201) {
            const auto j = nlohmann::json::parse(r->body, nullptr, false);
            std::lock_guard<std::mutex> lock(fm);
            if (!j.is_discarded()) filled.push_back(j.value("id", int64_t{0}));
          }
        }
      });
    for (std::thread& th : fillers) th.join();
    std::sort(filled.begin(), filled.end());
    std::this_thread::sleep_for(std::chrono::seconds(6));  // a fresh /metrics snapshot
  }
  const std::string metrics_before = fill > 0 ? get_metrics(url) : "";
  std::atomic<bool> done{false};
  std::atomic<int> completed{0}, scrapes{0};
  std::vector<std::thread> helpers;
  if (fill > 0 && complete_rate > 0)
    helpers.emplace_back([&] {  // the completer: cancels filling jobs at complete_rate/s
      httplib::Client c(url);
      c.set_bearer_token_auth(token);
      c.set_keep_alive(true);
      const auto start = std::chrono::steady_clock::now();
      size_t i = 0;
      while (!done && i < filled.size()) {
        const double due =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() *
            complete_rate;
        if (static_cast<double>(i) >= due) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          continue;
        }
        const auto r =
            c.Post("/v1/jobs/" + std::to_string(filled[i++]) + "/cancel", "", "application/json");
        if (r && r->status == 200) ++completed;
      }
    });
  for (int k = 0; k < scrapers; ++k)
    helpers.emplace_back([&] {  // a /metrics scrape loop
      httplib::Client c(url);
      c.set_keep_alive(true);
      while (!done) {
        const auto r = c.Get("/metrics");
        if (r && r->status == 200) ++scrapes;
        if (scrape_interval_ms > 0)
          std::this_thread::sleep_for(std::chrono::milliseconds(scrape_interval_ms));
      }
    });

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
  done = true;
  for (std::thread& th : helpers) th.join();
  if (agents) agents->stop();
  const double agents_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - agents_from).count();
  // The queue as the phase ends (from a snapshot at most read_snapshot_s old): after it no
  // cycle runs, and jobs still unexamined would count the idle seconds below as waiting.
  const std::string at_end = get_metrics(url);

  // Let the loop finish the last cycles and the /metrics snapshot age out, then read the
  // service's own measurements.
  std::this_thread::sleep_for(std::chrono::milliseconds(fill > 0 || scrapers > 0 ? 6000 : 500));
  const std::string text = get_metrics(url);
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
      {"queue_length", metric(at_end, "frugal_queue_length ")},
      {"max_wait_unexamined_s", metric(at_end, "frugal_queue_max_wait_unexamined_seconds ")},
  };
  if (fill > 0) {
    const auto [p99, share] = between(buckets(metrics_before, "frugal_decision_latency_seconds"),
                                      buckets(text, "frugal_decision_latency_seconds"), 0.99, 0.01);
    out["fill"] = fill;
    out["filled"] = filled.size();
    out["completed"] = completed.load();
    out["phase_decision_latency_p99_ms"] = p99 * 1e3;
    out["phase_cycles_within_10ms"] = share;
    out["phase_cycles"] = metric(text, "frugal_decision_cycles_total ") -
                          metric(metrics_before, "frugal_decision_cycles_total ");
  }
  if (scrapers > 0) {
    out["scrapers"] = scrapers;
    out["scrapes"] = scrapes.load();
    out["scrape_interval_ms"] = scrape_interval_ms;
  }
  if (agents) {
    const frugal::bench::SimAgents::Counts c = agents->counts();
    out["agents"] = agent_opts.agents;
    out["agent_gpus"] = agent_opts.gpus;
    out["agent_interval_s"] = agent_opts.interval_s;
    out["agent_posts"] = c.posts;
    out["agent_gpu_samples_per_s"] = static_cast<double>(c.gpu_samples) / agents_s;
    out["agent_refused"] = c.refused;
    out["agent_unanswered"] = c.unanswered;
    if (!c.first_refusal.empty())
      std::fprintf(stderr, "first refused telemetry post: %s\n", c.first_refusal.c_str());
  }
  std::printf("%s\n", out.dump().c_str());
  return refused.load() == 0 ? 0 : 1;
}
