#include "agent/host_load.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace frugal {

Result<HostLoad> HostLoadReader::read() {
  HostLoad h;
  const std::string stat_path = proc_ + "/stat";
  std::ifstream stat(stat_path);
  if (!stat) return Error{fmt::format("{}: cannot be read", stat_path)};
  std::string line;
  int cpus = 0;
  bool found = false;
  uint64_t busy = 0, total = 0;
  while (std::getline(stat, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      // user nice system idle iowait irq softirq steal (guest time is inside user/nice)
      std::istringstream in(line.substr(4));
      std::vector<uint64_t> v;
      for (uint64_t x = 0; v.size() < 8 && in >> x;) v.push_back(x);
      if (v.size() < 4)
        return Error{fmt::format("{}: the cpu line has fewer than 4 fields", stat_path)};
      for (uint64_t x : v) total += x;
      const uint64_t idle = v[3] + (v.size() > 4 ? v[4] : 0);
      busy = total - idle;
      found = true;
    } else if (line.rfind("cpu", 0) == 0 && line.size() > 3 && line[3] >= '0' && line[3] <= '9') {
      ++cpus;
    }
  }
  if (!found) return Error{fmt::format("{}: no aggregate cpu line", stat_path)};
  h.cpu_count = cpus > 0 ? cpus : -1;
  if (have_prev_ && total > prev_total_ && busy >= prev_busy_)
    h.cpu_busy = std::min(
        1.0, static_cast<double>(busy - prev_busy_) / static_cast<double>(total - prev_total_));
  have_prev_ = true;
  prev_busy_ = busy;
  prev_total_ = total;

  const std::string mem_path = proc_ + "/meminfo";
  std::ifstream mem(mem_path);
  if (!mem) return Error{fmt::format("{}: cannot be read", mem_path)};
  int64_t total_kib = -1, available_kib = -1;
  while (std::getline(mem, line)) {
    std::istringstream in(line);
    std::string key;
    int64_t kib = 0;
    if (!(in >> key >> kib)) continue;
    if (key == "MemTotal:") total_kib = kib;
    if (key == "MemAvailable:") available_kib = kib;
  }
  if (total_kib <= 0) return Error{fmt::format("{}: no MemTotal", mem_path)};
  h.memory_total_mib = total_kib / 1024;
  if (available_kib >= 0 && available_kib <= total_kib)
    h.memory_used_mib = (total_kib - available_kib) / 1024;
  return h;
}

}  // namespace frugal
