// A fake NVML: libnvidia-ml.so.1 with the entry points frugal's drivers/nvml.cpp binds, their
// documented C signatures and return codes, and GPUs described by a text file. It lets the
// service's real NVML path (dlopen, inventory, telemetry, memory caps) run on a host with
// no NVIDIA GPU; on a host with one, the real library is used instead.
//
// FRUGAL_FAKE_NVML names the file: one GPU per line, "#" starts a comment,
//   NAME;UUID;MEMORY_TOTAL_MIB;MEMORY_USED_MIB;UTILIZATION_PERCENT;POWER_W[;TEMP_C[;PROCS]]
// e.g. "NVIDIA L4;GPU-fake-0;23034;0;30;45;52;4711:2048,4712:512". TEMP_C is the GPU
// temperature (absent or empty: NVML_ERROR_NOT_SUPPORTED); PROCS the compute processes on
// the card as PID:USED_MIB[:SM_PERCENT] separated by commas (SM_PERCENT: the process's
// utilisation for nvmlDeviceGetProcessUtilization, which — as NVML — samples only processes
// above 0 % and answers NVML_ERROR_NOT_FOUND when there are none; a card none of whose
// processes has an SM_PERCENT answers it NVML_ERROR_NOT_SUPPORTED). The file is read at nvmlInit_v2
// (and again at each query, so a test may change the load while the service runs). Without the
// variable or with a file that cannot be read, nvmlInit_v2 fails with
// NVML_ERROR_LIBRARY_NOT_FOUND.
//
// The build names the library libfrugal_fake_nvml.so and links libnvidia-ml.so.1 to it in
// the same folder, the name frugal dlopens (CMakeLists.txt).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kNotFound = 6;
constexpr int kInsufficientSize = 7;
constexpr int kLibraryNotFound = 12;

struct Gpu {
  std::string name, uuid;
  unsigned long long total_mib = 0, used_mib = 0;  // NOLINT(google-runtime-int)
  unsigned int util = 0, power_w = 0;
  int temp_c = -1;                                                 // < 0: not supported
  std::vector<std::pair<unsigned int, unsigned long long>> procs;  // NOLINT(google-runtime-int)
  std::vector<int> proc_sm;  // per process: SM percent, < 0 not given
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
    if (f.size() < 6 || f.size() > 8) continue;
    Gpu g;
    g.name = f[0];
    g.uuid = f[1];
    g.total_mib = std::strtoull(f[2].c_str(), nullptr, 10);
    g.used_mib = std::strtoull(f[3].c_str(), nullptr, 10);
    g.util = static_cast<unsigned int>(std::strtoul(f[4].c_str(), nullptr, 10));
    g.power_w = static_cast<unsigned int>(std::strtoul(f[5].c_str(), nullptr, 10));
    if (f.size() > 6 && !f[6].empty()) g.temp_c = std::atoi(f[6].c_str());
    if (f.size() > 7) {
      std::stringstream ps(f[7]);
      for (std::string p; std::getline(ps, p, ',');) {
        const size_t colon = p.find(':');
        if (colon == std::string::npos) continue;
        const size_t second = p.find(':', colon + 1);
        g.procs.emplace_back(
            static_cast<unsigned int>(std::strtoul(p.substr(0, colon).c_str(), nullptr, 10)),
            std::strtoull(p.substr(colon + 1, second - colon - 1).c_str(), nullptr, 10));
        g.proc_sm.push_back(second == std::string::npos ? -1 : std::atoi(p.c_str() + second + 1));
      }
    }
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
// nvmlProcessUtilizationSample_t.
struct ProcessSample {
  unsigned int pid;
  unsigned long long time_stamp;  // NOLINT(google-runtime-int): microseconds
  unsigned int sm, mem, enc, dec;
};
// nvmlProcessInfo_t of NVML 11+ (the _v2/_v3 process queries take it).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;  // NOLINT(google-runtime-int)
  unsigned int gpu_instance_id, compute_instance_id;
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
int nvmlDeviceGetTemperature(void* d, int sensor, unsigned int* temp) {
  Gpu g;
  if (!temp || sensor != 0) return kInvalidArgument;
  if (!device(d, g)) return kNotFound;
  if (g.temp_c < 0) return kNotSupported;
  *temp = static_cast<unsigned int>(g.temp_c);
  return kSuccess;
}
// As NVML: *count in is the room in `infos`; out the number of processes. Too little room
// (or infos null with processes present) is NVML_ERROR_INSUFFICIENT_SIZE with *count set.
int nvmlDeviceGetComputeRunningProcesses_v3(void* d, unsigned int* count, ProcessInfo* infos) {
  Gpu g;
  if (!count) return kInvalidArgument;
  if (!device(d, g)) return kNotFound;
  const auto n = static_cast<unsigned int>(g.procs.size());
  if (n > *count || (n > 0 && !infos)) {
    *count = n;
    return kInsufficientSize;
  }
  *count = n;
  for (unsigned int i = 0; i < n; ++i)
    infos[i] = ProcessInfo{g.procs[i].first, g.procs[i].second << 20, 0xFFFFFFFF, 0xFFFFFFFF};
  return kSuccess;
}

// As NVML: samples newer than last_seen (microseconds); a null buffer asks for the room
// needed (NVML_ERROR_INSUFFICIENT_SIZE with *count set). One sample per process with an
// SM_PERCENT, stamped now: each query sees the file's current load.
int nvmlDeviceGetProcessUtilization(void* d, ProcessSample* out, unsigned int* count,
                                    unsigned long long last_seen) {  // NOLINT(google-runtime-int)
  Gpu g;
  if (!count) return kInvalidArgument;
  if (!device(d, g)) return kNotFound;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  const auto now = static_cast<unsigned long long>(ts.tv_sec) * 1000000ULL +  // NOLINT
                   static_cast<unsigned long long>(ts.tv_nsec) / 1000;        // NOLINT
  if (std::none_of(g.proc_sm.begin(), g.proc_sm.end(), [](int sm) { return sm >= 0; }))
    return kNotSupported;
  std::vector<ProcessSample> samples;
  for (size_t i = 0; i < g.procs.size(); ++i)
    if (g.proc_sm[i] > 0 && now > last_seen)
      samples.push_back(ProcessSample{
          g.procs[i].first, now, static_cast<unsigned int>(std::min(100, g.proc_sm[i])), 0, 0, 0});
  if (samples.empty()) return kNotFound;
  const auto n = static_cast<unsigned int>(samples.size());
  if (!out || n > *count) {
    *count = n;
    return kInsufficientSize;
  }
  *count = n;
  std::copy(samples.begin(), samples.end(), out);
  return kSuccess;
}

}  // extern "C"
