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
  // Loads and initialises NVML. Error (with the reason) when the library or a symbol is
  // missing or nvmlInit fails.
  static Result<std::unique_ptr<Nvml>> load();
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // The GPUs of this host (index, product name, UUID, memory). Not thread-safe.
  std::vector<GpuInfo> gpus();
  // Utilisation, memory and power of every GPU, for `node`. Fields NVML refuses are < 0.
  std::vector<GpuTelemetry> sample(const std::string& node);

 private:
  struct Api;
  explicit Nvml(std::unique_ptr<Api> api);
  std::unique_ptr<Api> api_;
};

}  // namespace frugal
