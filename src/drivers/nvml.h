#pragma once
// NVML loaded at run time (dlopen "libnvidia-ml.so.1"): no NVML headers or link-time
// dependency. The few entry points frugal uses are declared here with their documented C
// signatures. Without the library (no NVIDIA driver) load() says why and the service
// falls back to the GPUs its config declares.

#include <memory>
#include <string>
#include <vector>

#include "drivers/driver.h"
#include "model/result.h"

namespace frugal {

class Nvml {
 public:
  // Loads and initialises NVML from `library` (a name the dynamic loader searches for, or a
  // path). Error (with the reason) when the library or a symbol is missing or nvmlInit fails.
  static Result<std::unique_ptr<Nvml>> load(const std::string& library = "libnvidia-ml.so.1");
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // The GPUs of this host (index, product name, UUID, memory). Not thread-safe.
  std::vector<GpuInfo> gpus();
  // Utilisation, memory, power, temperature and compute processes of every GPU, for
  // `node`. Fields NVML refuses are < 0; processes are empty where the query is missing or
  // fails (the processes' `job` is left for the caller to map: agent/process_jobs.h).
  // A process's utilisation is not read (< 0): nvmlDeviceGetProcessUtilization cost 1.4 ms a
  // call on an H200, 70 times the rest of a GPU's sample, and does not split a shared card
  // between its processes (docs/TELEMETRY.md, "Shared cards").
  std::vector<GpuTelemetry> sample(const std::string& node);

 private:
  std::vector<GpuProcess> processes(void* device);
  struct Api;
  explicit Nvml(std::unique_ptr<Api> api);
  std::unique_ptr<Api> api_;
};

}  // namespace frugal
