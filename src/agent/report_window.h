#pragma once
// Folds one node's samples (every --sample-interval) into the NodeReport of a window
// (every --interval): per GPU, utilisation and power are means over the samples that had
// them, memory used and temperature maxima, memory total the latest; processes are every
// (GPU, pid) seen, with their largest memory and mean utilisation (over the samples that
// had one); host CPU busy a mean, host memory used a
// maximum. Not thread-safe.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "agent/telemetry_wire.h"

namespace frugal {

class ReportWindow {
 public:
  explicit ReportWindow(std::string node) : node_(std::move(node)) {}

  void add(double now, const std::vector<GpuTelemetry>& gpus, const HostLoad& host);
  bool empty() const { return samples_ == 0; }
  // The report of the samples since the previous take (time = `now`), and a new window.
  // Precondition: !empty().
  NodeReport take(double now);

 private:
  struct Sum {
    double util = 0, power = 0;
    int util_n = 0, power_n = 0;
    GpuTelemetry peak;  // memory used and temperature maxima, memory total latest
    std::map<int64_t, GpuProcess> processes;
    std::map<int64_t, std::pair<double, int>> process_util;  // per pid: sum, samples
  };
  std::string node_;
  double start_ = 0;
  int samples_ = 0;
  std::map<int, Sum> gpus_;
  double cpu_sum_ = 0;
  int cpu_n_ = 0;
  HostLoad host_;
};

}  // namespace frugal
