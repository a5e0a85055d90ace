// Simulation speed of every baseline policy on the real traces in ../shared/data (skipped
// when the folder is absent):
//
//   BM_SimItpCluster04/<policy>  ITP cluster04 (15.8k jobs) on 640 A100-80GB GPUs in 8-GPU
//                                nodes, durations measured on A100-80GB (as `frugal simulate
//                                --gpus 640` does);
//   BM_SimOpenbDefault/<policy>  openb default pods on the trace's own node list, no speed
//                                scaling (reference model none);
//   BM_SimItpCluster04FourBaselines  fifo, backfill, sjf and las one after the other on
//                                cluster04. Target: under 2 s together on one core.
//
// Trace reading is outside the timed loop (see trace_reader_bench.cpp); each iteration
// builds the profile and runs simulate(). Counters: events/s (arrivals, completions and node
// events handled per wall second) and jobs/s (trace jobs replayed per wall second).
// Each benchmark repeats 5 times and reports mean/median/stddev only; read the median.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench_sim.h"
#include "io/catalog_yaml.h"
#include "io/trace_reader.h"
#include "model/cluster_spec.h"
#include "policy/profile.h"
#include "sim/simulator.h"

namespace {

using frugal_bench::Workload;

std::string shared_path(const std::string& relative) {
  return std::string(FRUGAL_SHARED_DATA) + "/" + relative;
}

// Loads a trace once per process. `gpus` > 0: a homogeneous A100-80GB cluster with the
// durations taken as measured on A100-80GB; 0: the trace's own node list, no scaling.
const Workload& workload(const std::string& relative, int64_t gpus) {
  static std::map<std::string, Workload> cache;
  const std::string key = relative + "@" + std::to_string(gpus);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Workload& w = cache[key];
  const std::string path = shared_path(relative);
  if (!std::filesystem::exists(path)) {
    w.error = "shared data not found: " + path;
    return w;
  }
  auto cat = frugal::load_builtin_catalog();
  if (!cat.ok()) {
    w.error = cat.error().message;
    return w;
  }
  w.catalog = std::move(cat).value();
  frugal::TraceOptions options;
  options.catalog = &w.catalog;
  auto trace = frugal::read_trace(path, options);
  if (!trace.ok()) {
    w.error = trace.error().message;
    return w;
  }
  w.jobs = std::move(trace.value().jobs);
  if (gpus > 0) {
    const auto a100 = w.catalog.find("A100-80GB");
    if (!a100) {
      w.error = "A100-80GB missing from the built-in catalog";
      return w;
    }
    w.cluster = frugal::make_homogeneous_cluster(gpus, *a100);
    w.reference = *a100;
  } else if (trace.value().cluster) {
    w.cluster = *trace.value().cluster;
    w.reference = frugal::kNoGpuModel;
  } else {
    w.error = "trace carries no node list: " + path;
  }
  return w;
}

// Runs `policies` one after the other per iteration.
void run_policies(benchmark::State& state, const Workload& w,
                  const std::vector<std::string>& policies) {
  if (!w.error.empty()) {
    state.SkipWithError(w.error.c_str());
    return;
  }
  frugal::SimOptions options;
  options.reference_model = w.reference;
  double events = 0, jobs = 0;
  for (auto _ : state) {
    for (const std::string& policy : policies)
      if (!frugal_bench::run_once(state, w, policy, options, events, jobs)) return;
  }
  state.counters["events/s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["jobs/s"] = benchmark::Counter(jobs, benchmark::Counter::kIsRate);
  state.counters["jobs"] = static_cast<double>(w.jobs.size());
}

constexpr const char* kSimItpCluster04 = "traces/itp/raw/cluster04.csv";
constexpr int64_t kSimItpGpus = 640;
constexpr const char* kOpenbDefault = "traces/openb/openb_pod_list_default.csv";

void configure(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
}

void BM_SimItpCluster04FourBaselines(benchmark::State& state) {
  run_policies(state, workload(kSimItpCluster04, kSimItpGpus), {"fifo", "backfill", "sjf", "las"});
}

[[maybe_unused]] const bool sim_registered = [] {
  for (const std::string& policy : frugal::profile_names()) {
    configure(benchmark::RegisterBenchmark(
        ("BM_SimItpCluster04/" + policy).c_str(), [policy](benchmark::State& state) {
          run_policies(state, workload(kSimItpCluster04, kSimItpGpus), {policy});
        }));
  }
  for (const std::string& policy : frugal::profile_names()) {
    configure(benchmark::RegisterBenchmark(
        ("BM_SimOpenbDefault/" + policy).c_str(), [policy](benchmark::State& state) {
          run_policies(state, workload(kOpenbDefault, 0), {policy});
        }));
  }
  configure(benchmark::RegisterBenchmark("BM_SimItpCluster04FourBaselines",
                                         BM_SimItpCluster04FourBaselines));
  return true;
}();

}  // namespace
