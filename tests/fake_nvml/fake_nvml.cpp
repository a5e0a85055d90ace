// A fake NVML: libnvidia-ml.so.1 with the entry points frugal's drivers/nvml.cpp binds, their
// documented C signatures and return codes, and GPUs described by a text file. It lets the
// service's real NVML path (dlopen, inventory, telemetry, memory caps) run on a host with
// no NVIDIA GPU; on a host with one, the real library is used instead.
//
// FRUGAL_FAKE_NVML names the file: one GPU per line, "#" starts a comment,
//   NAME;UUID;MEMORY_TOTAL_MIB;MEMORY_USED_MIB;UTILIZATION_PERCENT;POWER_W
// e.g. "NVIDIA L4;GPU-fake-0;23034;0;30;45". The file is read at nvmlInit_v2 (and again at
// each query, so a test may change the load while the service runs). Without the variable
// or with a file that cannot be read, nvmlInit_v2 fails with NVML_ERROR_LIBRARY_NOT_FOUND.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotFound = 6;
constexpr int kInsufficientSize = 7;
constexpr int kLibraryNotFound = 12;

struct Gpu {
  std::string name, uuid;
  unsigned long long total_mib = 0, used_mib = 0;  // NOLINT(google-runtime-int)
  unsigned int util = 0, power_w = 0;
};

bool read_gpus(std::vector<Gpu>& out) {
  const char* path = std::getenv("FRUGAL_FAKE_NVML");
  if (!path) return false;
  std::ifstream in(path);
  if (!in) return false;
  out.clear();
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ';');) f.push_back(x);
    if (f.size() != 6) continue;
    Gpu g;
    g.name = f[0];
    g.uuid = f[1];
    g.total_mib = std::strtoull(f[2].c_str(), nullptr, 10);
    g.used_mib = std::strtoull(f[3].c_str(), nullptr, 10);
    g.util = static_cast<unsigned int>(std::strtoul(f[4].c_str(), nullptr, 10));
    g.power_w = static_cast<unsigned int>(std::strtoul(f[5].c_str(), nullptr, 10));
    out.push_back(g);
  }
  return true;
}

// Devices are handed out as 1-based indices cast to pointers.
std::vector<Gpu> gpus;

bool device(void* d, Gpu& g) {
  const auto i = reinterpret_cast<std::uintptr_t>(d);  // NOLINT: NVML's opaque handle
  read_gpus(gpus);
  if (i == 0 || i > gpus.size()) return false;
  g = gpus[i - 1];
  return true;
}

int copy(const std::string& s, char* buf, unsigned int len) {
  if (!buf) return kInvalidArgument;
  if (s.size() + 1 > len) return kInsufficientSize;
  std::memcpy(buf, s.c_str(), s.size() + 1);
  return kSuccess;
}

struct Memory {
  unsigned long long total, free, used;  // NOLINT(google-runtime-int)
};
struct Utilization {
  unsigned int gpu, memory;
};

}  // namespace

extern "C" {

int nvmlInit_v2() {
  return read_gpus(gpus) ? kSuccess : kLibraryNotFound;
}
int nvmlShutdown() {
  return kSuccess;
}
int nvmlDeviceGetCount_v2(unsigned int* n) {
  if (!n) return kInvalidArgument;
  read_gpus(gpus);
  *n = static_cast<unsigned int>(gpus.size());
  return kSuccess;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void** d) {
  if (!d) return kInvalidArgument;
  read_gpus(gpus);
  if (i >= gpus.size()) return kInvalidArgument;
  *d = reinterpret_cast<void*>(static_cast<std::uintptr_t>(i) + 1);  // NOLINT
  return kSuccess;
}
int nvmlDeviceGetName(void* d, char* buf, unsigned int len) {
  Gpu g;
  return device(d, g) ? copy(g.name, buf, len) : kNotFound;
}
int nvmlDeviceGetUUID(void* d, char* buf, unsigned int len) {
  Gpu g;
  return device(d, g) ? copy(g.uuid, buf, len) : kNotFound;
}
int nvmlDeviceGetMemoryInfo(void* d, Memory* m) {
  Gpu g;
  if (!m) return kInvalidArgument;
  if (!device(d, g)) return kNotFound;
  m->total = g.total_mib << 20;
  m->used = g.used_mib << 20;
  m->free = m->total - std::min(m->total, m->used);
  return kSuccess;
}
int nvmlDeviceGetUtilizationRates(void* d, Utilization* u) {
  Gpu g;
  if (!u) return kInvalidArgument;
  if (!device(d, g)) return kNotFound;
  u->gpu = g.util;
  u->memory = g.util;
  return kSuccess;
}
int nvmlDeviceGetPowerUsage(void* d, unsigned int* mw) {
  Gpu g;
  if (!mw) return kInvalidArgument;
  if (!device(d, g)) return kNotFound;
  *mw = g.power_w * 1000;
  return kSuccess;
}

}  // extern "C"
