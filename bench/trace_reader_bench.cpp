// Reading speed of the trace readers on the real files in ../shared/data (skipped when the
// folder is absent). Target: well under 50 ms for the 15.8k-row ITP and ElasticFlow files.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "io/trace_reader.h"
#include "model/gpu_catalog.h"

namespace {

const frugal::GpuCatalog& catalog() {
  static const frugal::GpuCatalog c({
      frugal::GpuModel{"V100M16", {}, 16384, {1, 1, 1, 1}, "bench"},
      frugal::GpuModel{"V100M32", {}, 32768, {1, 1, 1, 1}, "bench"},
      frugal::GpuModel{"P100", {}, 16384, {1, 1, 1, 1}, "bench"},
      frugal::GpuModel{"T4", {}, 15360, {1, 1, 1, 1}, "bench"},
      frugal::GpuModel{"A10", {}, 23028, {1, 1, 1, 1}, "bench"},
      frugal::GpuModel{"G2", {}, 16384, {1, 1, 1, 1}, "bench"},
      frugal::GpuModel{"G3", {}, 32768, {1, 1, 1, 1}, "bench"},
  });
  return c;
}

void read_file(benchmark::State& state, const std::string& relative) {
  const std::string path = std::string(FRUGAL_SHARED_DATA) + "/" + relative;
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("shared data not found");
    return;
  }
  frugal::TraceOptions options;
  options.catalog = &catalog();
  for (auto _ : state) {
    auto trace = frugal::read_trace(path, options);
    if (!trace.ok()) {
      state.SkipWithError(trace.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(trace.value().jobs.data());
  }
}

void BM_ReadItpCluster04(benchmark::State& s) {
  read_file(s, "traces/itp/raw/cluster04.csv");
}
void BM_ReadElasticflowCluster04(benchmark::State& s) {
  read_file(s, "traces/itp/elasticflow/cluster04.csv");
}
void BM_ReadOpenbGpuspec20(benchmark::State& s) {
  read_file(s, "traces/openb/openb_pod_list_gpuspec20.csv");
}

BENCHMARK(BM_ReadItpCluster04)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadElasticflowCluster04)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadOpenbGpuspec20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
