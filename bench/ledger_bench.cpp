// What the cost ledger adds to simulation time: the same simulation with SimOptions::ledger
// off and on, in one process (target: under 20% more with the ledger).
//
//   BM_Ledger/itp640/<policy>/<off|on>        ITP cluster04 (15.8k jobs) on 640 A100-80GB
//                                             GPUs in 8-GPU nodes (as `frugal simulate
//                                             --gpus 640`); one cost centre, flat prices;
//   BM_Ledger/two-region/<policy>/<off|on>    ITP cluster04 on examples/clusters/two-region
//                                             .yaml: 8 cost centres, hourly 2023 electricity
//                                             and carbon series, time-of-use discounts,
//                                             autoscaled on-demand pools;
//   BM_Ledger/synthetic1M/fifo/<off|on>       the 1,000,000-job trace of `frugal gen-trace
//                                             --jobs 1000000 --cluster-gpus 80000 --load 0.9
//                                             --seed 1` (generated in memory, once) on 80,000
//                                             A100-80GB GPUs; 3 repetitions of 1 iteration.
//
// <policy> is fifo, backfill and las. Trace reading and generation are outside the timed
// loop; an iteration builds the profile and runs simulate(). Medians of the repetitions are
// what bench/report.py reads; run with --benchmark_enable_random_interleaving=true so that
// off and on see the same machine load (bench/run.sh does).

#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench_sim.h"
#include "io/catalog_yaml.h"
#include "io/cluster_yaml.h"
#include "io/trace_reader.h"
#include "model/cluster_spec.h"
#include "policy/profile.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"

namespace {

using LedgerWorkload = frugal_bench::Workload;

constexpr const char* kItpCluster04 = "traces/itp/raw/cluster04.csv";
constexpr const char* kTwoRegion = "examples/clusters/two-region.yaml";
constexpr int64_t kItpGpus = 640;
constexpr size_t kSyntheticJobs = 1000000;
constexpr int64_t kSyntheticGpus = 80000;

// Loads (once per process) the jobs and cluster of case `name`: "itp640", "two-region" or
// "synthetic1M". Durations are taken as measured on A100-80GB in every case.
const LedgerWorkload& ledger_workload(const std::string& name) {
  static std::map<std::string, LedgerWorkload> cache;
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  LedgerWorkload& w = cache[name];
  auto cat = frugal::load_builtin_catalog();
  if (!cat.ok()) {
    w.error = cat.error().message;
    return w;
  }
  w.catalog = std::move(cat).value();
  const auto a100 = w.catalog.find("A100-80GB");
  if (!a100) {
    w.error = "A100-80GB missing from the built-in catalog";
    return w;
  }
  w.reference = *a100;
  if (name == "synthetic1M") {
    frugal::SyntheticOptions o;
    o.jobs = kSyntheticJobs;
    o.cluster_gpus = kSyntheticGpus;
    o.load = 0.9;
    o.seed = 1;
    w.jobs = frugal::make_synthetic_jobs(o);
    w.cluster = frugal::make_homogeneous_cluster(kSyntheticGpus, *a100);
    return w;
  }
  const std::string trace_path = std::string(FRUGAL_SHARED_DATA) + "/" + kItpCluster04;
  if (!std::filesystem::exists(trace_path)) {
    w.error = "shared data not found: " + trace_path;
    return w;
  }
  frugal::TraceOptions options;
  options.catalog = &w.catalog;
  auto trace = frugal::read_trace(trace_path, options);
  if (!trace.ok()) {
    w.error = trace.error().message;
    return w;
  }
  w.jobs = std::move(trace.value().jobs);
  if (name == "itp640") {
    w.cluster = frugal::make_homogeneous_cluster(kItpGpus, *a100);
  } else {
    auto cluster =
        frugal::load_cluster_file(std::string(FRUGAL_SOURCE_DIR) + "/" + kTwoRegion, w.catalog);
    if (!cluster.ok()) {
      w.error = cluster.error().message;
      return w;
    }
    w.cluster = std::move(cluster).value();
  }
  return w;
}

void run_case(benchmark::State& state, const std::string& name, const std::string& policy,
              bool ledger) {
  const LedgerWorkload& w = ledger_workload(name);
  if (!w.error.empty()) {
    state.SkipWithError(w.error.c_str());
    return;
  }
  frugal::SimOptions options;
  options.reference_model = w.reference;
  options.ledger = ledger;
  double events = 0, jobs = 0;
  for (auto _ : state) {
    if (!frugal_bench::run_once(state, w, policy, options, events, jobs)) return;
  }
  state.counters["events/s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["jobs/s"] = benchmark::Counter(jobs, benchmark::Counter::kIsRate);
}

[[maybe_unused]] const bool registered = [] {
  for (const std::string name : {"itp640", "two-region"}) {
    for (const std::string policy : {"fifo", "backfill", "las"}) {
      for (const bool ledger : {false, true}) {
        benchmark::RegisterBenchmark(
            ("BM_Ledger/" + name + "/" + policy + (ledger ? "/on" : "/off")).c_str(),
            [name, policy, ledger](benchmark::State& state) {
              run_case(state, name, policy, ledger);
            })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Repetitions(5)
            ->ReportAggregatesOnly(true);
      }
    }
  }
  for (const bool ledger : {false, true}) {
    benchmark::RegisterBenchmark(
        (std::string("BM_Ledger/synthetic1M/fifo") + (ledger ? "/on" : "/off")).c_str(),
        [ledger](benchmark::State& state) { run_case(state, "synthetic1M", "fifo", ledger); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1)
        ->Repetitions(3)
        ->ReportAggregatesOnly(true);
  }
  return true;
}();

}  // namespace
