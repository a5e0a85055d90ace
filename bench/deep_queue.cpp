// The decision cycle with a deep queue, on the engine alone (no HTTP, no SQLite): the
// full-cluster phase of bench/serve_load.sh replayed in-process, so a cycle's cost can be
// measured and profiled without the service around it.
//
// A cluster of --nodes 8-GPU A100-80GB nodes is filled with --fill whole-node jobs; then
// --jobs more arrive, --batch per cycle (a group commit's worth: 16 client threads), in
// serve_load's mix (6/10 one GPU, 2/10 one to eight, 1/10 a quarter to three quarters of one,
// 1/10 no GPU; one in five of tier core), cycles 1/(--rate / --batch) seconds apart, while a
// completer ends --complete-rate filling jobs a second. Jobs signalled to checkpoint end at
// the next cycle, as under the dry-run backend. Each schedule() call is timed.
//
// Every configuration runs --runs times (each from scratch), alternating: the bounded one
// as `frugal serve` runs it (max_jobs_per_cycle = --limit: EngineOptions::walk_limit and
// TierOptions::max_candidates) and the baseline, the same policy unbounded (0, the
// simulator's default), in the same process. Prints per configuration the medians over runs of the
// cycle p50, p99 and max and of the total cycle time, and each one's ratio to the baseline's.
//
//   frugal_deep_queue [--policy frugal] [--nodes 10000] [--fill 10000] [--jobs 50000]
//                     [--limit 1000] [--runs 3]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "io/catalog_yaml.h"
#include "model/cluster_spec.h"
#include "policy/frugal_profile.h"
#include "policy/profile.h"

namespace {

using frugal::JobIdx;
using frugal::JobSpec;

struct Setup {
  std::string policy = "frugal";
  int64_t nodes = 10000;
  int64_t fill = 10000;
  int64_t jobs = 50000;
  int64_t batch = 16;
  double rate = 2000;  // submissions per second (sets the simulated time between cycles)
  double complete_rate = 100;
  size_t limit = 1000;
  int runs = 3;
};

struct RunResult {
  double p50_ms = 0, p99_ms = 0, max_ms = 0, total_s = 0;
  size_t cycles = 0, queued_at_end = 0, running_at_end = 0;
  double max_wait_unexamined_s = 0;
};

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

double median(std::vector<double> v) {
  return quantile(std::move(v), 0.5);
}

frugal::Result<frugal::Profile> profile_for(const std::string& policy, size_t limit) {
  // As `frugal serve` builds it (service/scheduler.cpp): frugal's and tiers' preemption
  // bounded by max_jobs_per_cycle.
  if (policy == "tiers") {
    frugal::TierOptions o;
    o.max_candidates = limit;
    return frugal::make_tiers_profile(o);
  }
  if (policy == "frugal" || policy.rfind("frugal:", 0) == 0) {
    auto o = frugal::parse_frugal_options(policy.size() > 7 ? policy.substr(7) : "");
    if (!o.ok()) return o.error();
    frugal::FrugalOptions fo = o.value();
    fo.tiers.max_candidates = limit;
    return frugal::make_frugal_profile(fo);
  }
  return frugal::make_profile(policy);
}

JobSpec phase_job(std::mt19937& rng, int64_t id) {
  JobSpec s;
  s.id = std::to_string(id);
  s.duration = 3600;
  const int kind = static_cast<int>(rng() % 10);
  if (kind < 6) {
    s.gpus = 1;
  } else if (kind < 8) {
    s.gpus = 1 + static_cast<int>(rng() % 8);
  } else if (kind < 9) {
    s.gpus = 1;
    s.gpu_milli = 250 + 250 * static_cast<frugal::Milli>(rng() % 3);
  } else {
    s.gpus = 0;
  }
  if (rng() % 5 == 0) s.tier = frugal::Tier::kCore;
  return s;
}

frugal::Result<RunResult> run_once(const Setup& su, const frugal::GpuCatalog& catalog,
                                   size_t limit) {
  auto prof = profile_for(su.policy, limit);
  if (!prof.ok()) return prof.error();
  const auto a100 = catalog.find("A100-80GB");
  if (!a100) return frugal::Error{"A100-80GB is not in the built-in catalog"};
  frugal::EngineOptions o;
  o.reference_model = *a100;
  o.walk_limit = limit;
  frugal::Engine e(frugal::make_homogeneous_cluster(su.nodes * 8, *a100, 8), catalog,
                   std::move(prof).value(), o);
  // Specs must outlive the engine and keep their addresses: a deque of unique_ptrs.
  std::vector<std::unique_ptr<JobSpec>> specs;
  specs.reserve(static_cast<size_t>(su.fill + su.jobs));
  double now = 0;
  for (int64_t i = 0; i < su.fill; ++i) {
    auto s = std::make_unique<JobSpec>();
    s->id = std::to_string(i);
    s->gpus = 8;
    s->duration = 1e7;  // they end only when the completer ends them
    e.submit(static_cast<JobIdx>(specs.size()), s.get(), now);
    specs.push_back(std::move(s));
  }
  (void)e.schedule(now);
  std::vector<JobIdx> filling;  // running filling jobs, in the order the completer ends them
  for (JobIdx j = 0; j < static_cast<JobIdx>(su.fill); ++j)
    if (e.job(j).state == frugal::JobState::kRunning) filling.push_back(j);
  size_t next_to_end = 0;
  std::mt19937 rng(1);
  const double step = static_cast<double>(su.batch) / su.rate;
  double owed_ends = 0;
  std::vector<JobIdx> signalled;
  std::vector<double> cycle_ms;
  RunResult out;
  for (int64_t submitted = 0; submitted < su.jobs;) {
    now += step;
    for (JobIdx j : signalled) (void)e.end_drain(j, now);
    signalled.clear();
    for (int64_t b = 0; b < su.batch && submitted < su.jobs; ++b, ++submitted) {
      specs.push_back(std::make_unique<JobSpec>(phase_job(rng, su.fill + submitted)));
      e.submit(static_cast<JobIdx>(specs.size() - 1), specs.back().get(), now);
    }
    for (owed_ends += su.complete_rate * step; owed_ends >= 1; owed_ends -= 1) {
      while (next_to_end < filling.size() &&
             e.job(filling[next_to_end]).state != frugal::JobState::kRunning)
        ++next_to_end;
      if (next_to_end < filling.size()) e.finish(filling[next_to_end++], now);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<frugal::Decision>& ds = e.schedule(now);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    cycle_ms.push_back(ms);
    out.total_s += ms / 1000;
    for (const frugal::Decision& d : ds)
      if (d.kind == frugal::Decision::Kind::kSignal) signalled.push_back(d.job);
    if (e.stalled()) return frugal::Error{"engine stalled: " + *e.stalled()};
  }
  out.cycles = cycle_ms.size();
  out.p50_ms = quantile(cycle_ms, 0.5);
  out.p99_ms = quantile(cycle_ms, 0.99);
  out.max_ms = *std::max_element(cycle_ms.begin(), cycle_ms.end());
  out.queued_at_end = e.pending_count();
  out.running_at_end = e.running_count();
  out.max_wait_unexamined_s = e.max_wait_unexamined(now);
  return out;
}

struct Summary {
  std::vector<double> p50, p99, max, total;
  void add(const RunResult& x) {
    p50.push_back(x.p50_ms);
    p99.push_back(x.p99_ms);
    max.push_back(x.max_ms);
    total.push_back(x.total_s);
  }
};

void print_run(size_t limit, int run, const RunResult& x) {
  std::printf(
      "  limit %5zu run %d: %zu cycles, p50 %.3f ms, p99 %.3f ms, max %.2f ms, total "
      "%.2f s, queued %zu, running %zu, longest wait unexamined %.2f s\n",
      limit, run, x.cycles, x.p50_ms, x.p99_ms, x.max_ms, x.total_s, x.queued_at_end,
      x.running_at_end, x.max_wait_unexamined_s);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Setup su;
  CLI::App app{"Decision-cycle cost with a deep queue, on the engine alone"};
  app.add_option("--policy", su.policy, "policy string, as `frugal serve` takes it");
  app.add_option("--nodes", su.nodes, "8-GPU nodes")->check(CLI::PositiveNumber);
  app.add_option("--fill", su.fill, "whole-node jobs that fill the cluster first")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--jobs", su.jobs, "jobs submitted in the measured phase")
      ->check(CLI::PositiveNumber);
  app.add_option("--batch", su.batch, "submissions per cycle")->check(CLI::PositiveNumber);
  app.add_option("--rate", su.rate, "submissions per simulated second")->check(CLI::PositiveNumber);
  app.add_option("--complete-rate", su.complete_rate, "filling jobs ended per second")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--limit", su.limit, "max_jobs_per_cycle of the bounded configuration")
      ->check(CLI::PositiveNumber);
  app.add_option("--runs", su.runs, "runs per configuration (medians)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  auto catalog = frugal::load_builtin_catalog();
  if (!catalog.ok()) {
    std::fprintf(stderr, "error: %s\n", catalog.error().message.c_str());
    return 1;
  }
  std::printf("policy %s, %lld nodes, %lld filling jobs, %lld submitted %lld per cycle\n",
              su.policy.c_str(), static_cast<long long>(su.nodes), static_cast<long long>(su.fill),
              static_cast<long long>(su.jobs), static_cast<long long>(su.batch));
  Summary base, bounded;
  for (int r = 1; r <= su.runs; ++r) {
    for (const size_t limit : {size_t{0}, su.limit}) {
      auto one = run_once(su, catalog.value(), limit);
      if (!one.ok()) {
        std::fprintf(stderr, "error: %s\n", one.error().message.c_str());
        return 1;
      }
      print_run(limit, r, one.value());
      (limit == 0 ? base : bounded).add(one.value());
    }
  }
  const auto row = [](const char* name, const Summary& x) {
    std::printf("%-20s %8.3f ms  %8.3f ms  %8.2f ms  %8.2f s\n", name, median(x.p50), median(x.p99),
                median(x.max), median(x.total));
  };
  std::printf("median of %d runs      cycle p50    cycle p99    cycle max    all cycles\n",
              su.runs);
  row("unbounded (base)", base);
  row(("limit " + std::to_string(su.limit)).c_str(), bounded);
  std::printf("ratio (bounded/base) %8.2f     %8.2f     %8.2f     %8.2f\n",
              median(bounded.p50) / median(base.p50), median(bounded.p99) / median(base.p99),
              median(bounded.max) / median(base.max), median(bounded.total) / median(base.total));
  return 0;
}
