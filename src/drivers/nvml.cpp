#include "drivers/nvml.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace frugal {
namespace {

// From NVML's public API (nvml.h), declared here because no headers ship with frugal.
using nvmlReturn_t = int;  // 0 = NVML_SUCCESS
using nvmlDevice_t = void*;
struct nvmlMemory_t {
  unsigned long long total, free, used;  // NOLINT(google-runtime-int): NVML's C types
};
struct nvmlUtilization_t {
  unsigned int gpu, memory;  // percent over the last sample period
};
// nvmlProcessInfo_t as the _v2/_v3 process queries take it (NVML 11+).
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // NOLINT(google-runtime-int): bytes
  unsigned int gpuInstanceId, computeInstanceId;
};
constexpr int kNvmlTemperatureGpu = 0;
constexpr nvmlReturn_t kNvmlInsufficientSize = 7;
constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL;  // NOLINT(google-runtime-int)

}  // namespace

struct Nvml::Api {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*count)(unsigned int*) = nullptr;
  nvmlReturn_t (*by_index)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*) = nullptr;
  // Optional (nullptr where the library lacks them): the reading is then unknown.
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*processes)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*) = nullptr;
};

namespace {
template <class F>
bool bind(void* lib, const char* name, F& f) {
  void* p = dlsym(lib, name);
  f = reinterpret_cast<F>(p);  // NOLINT: dlsym returns object pointers for functions
  return p != nullptr;
}
}  // namespace

Result<std::unique_ptr<Nvml>> Nvml::load(const std::string& library) {
  auto api = std::make_unique<Api>();
  api->lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api->lib) {
    const char* e = dlerror();
    return Error{fmt::format("NVML not loaded: {}", e ? e : library + " not found")};
  }
  const bool ok = bind(api->lib, "nvmlInit_v2", api->init) &&
                  bind(api->lib, "nvmlShutdown", api->shutdown) &&
                  bind(api->lib, "nvmlDeviceGetCount_v2", api->count) &&
                  bind(api->lib, "nvmlDeviceGetHandleByIndex_v2", api->by_index) &&
                  bind(api->lib, "nvmlDeviceGetName", api->name) &&
                  bind(api->lib, "nvmlDeviceGetUUID", api->uuid) &&
                  bind(api->lib, "nvmlDeviceGetMemoryInfo", api->memory) &&
                  bind(api->lib, "nvmlDeviceGetUtilizationRates", api->utilization) &&
                  bind(api->lib, "nvmlDeviceGetPowerUsage", api->power);
  bind(api->lib, "nvmlDeviceGetTemperature", api->temperature);
  if (!bind(api->lib, "nvmlDeviceGetComputeRunningProcesses_v3", api->processes))
    bind(api->lib, "nvmlDeviceGetComputeRunningProcesses_v2", api->processes);
  if (!ok) {
    dlclose(api->lib);
    return Error{fmt::format("NVML not used: {} lacks an expected symbol", library)};
  }
  if (const nvmlReturn_t rc = api->init(); rc != 0) {
    dlclose(api->lib);
    return Error{fmt::format("NVML not used: nvmlInit_v2 returned {}", rc)};
  }
  return std::unique_ptr<Nvml>(new Nvml(std::move(api)));
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  dlclose(api_->lib);
}

std::vector<GpuInfo> Nvml::gpus() {
  std::vector<GpuInfo> out;
  unsigned int n = 0;
  if (api_->count(&n) != 0) return out;
  for (unsigned int i = 0; i < n; ++i) {
    nvmlDevice_t d = nullptr;
    if (api_->by_index(i, &d) != 0) continue;
    GpuInfo g;
    g.index = static_cast<int>(i);
    std::array<char, 256> buf{};
    if (api_->name(d, buf.data(), buf.size()) == 0) g.model = buf.data();
    buf.fill(0);
    if (api_->uuid(d, buf.data(), buf.size()) == 0) g.uuid = buf.data();
    nvmlMemory_t m{};
    if (api_->memory(d, &m) == 0) g.memory_mib = static_cast<int64_t>(m.total >> 20);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<GpuProcess> Nvml::processes(void* device) {
  std::vector<nvmlProcessInfo_t> infos(16);
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto n = static_cast<unsigned int>(infos.size());
    const nvmlReturn_t rc = api_->processes(device, &n, infos.data());
    if (rc == kNvmlInsufficientSize) {  // more processes than room: grow and ask again
      infos.resize(std::max<size_t>(n, infos.size() * 2));
      continue;
    }
    if (rc != 0) return {};
    std::vector<GpuProcess> out;
    for (unsigned int i = 0; i < n && i < infos.size(); ++i) {
      GpuProcess p;
      p.pid = infos[i].pid;
      if (infos[i].usedGpuMemory != kNvmlValueNotAvailable)
        p.memory_mib = static_cast<int64_t>(infos[i].usedGpuMemory >> 20);
      out.push_back(std::move(p));
    }
    return out;
  }
  return {};
}

std::vector<GpuTelemetry> Nvml::sample(const std::string& node) {
  std::vector<GpuTelemetry> out;
  unsigned int n = 0;
  if (api_->count(&n) != 0) return out;
  for (unsigned int i = 0; i < n; ++i) {
    nvmlDevice_t d = nullptr;
    if (api_->by_index(i, &d) != 0) continue;
    GpuTelemetry t;
    t.node = node;
    t.gpu = static_cast<int>(i);
    nvmlUtilization_t u{};
    if (api_->utilization(d, &u) == 0) t.utilization = u.gpu / 100.0;
    nvmlMemory_t m{};
    if (api_->memory(d, &m) == 0) {
      t.memory_used_mib = static_cast<int64_t>(m.used >> 20);
      t.memory_total_mib = static_cast<int64_t>(m.total >> 20);
    }
    unsigned int mw = 0;
    if (api_->power(d, &mw) == 0) t.power_w = mw / 1000.0;
    unsigned int celsius = 0;
    if (api_->temperature && api_->temperature(d, kNvmlTemperatureGpu, &celsius) == 0)
      t.temperature_c = celsius;
    if (api_->processes) t.processes = processes(d);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace frugal
