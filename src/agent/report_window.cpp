#include "agent/report_window.h"

#include <algorithm>

namespace frugal {

void ReportWindow::add(double now, const std::vector<GpuTelemetry>& gpus, const HostLoad& host) {
  if (samples_ == 0) start_ = now;
  ++samples_;
  for (const GpuTelemetry& g : gpus) {
    Sum& s = gpus_[g.gpu];
    if (g.utilization >= 0) {
      s.util += g.utilization;
      ++s.util_n;
    }
    if (g.power_w >= 0) {
      s.power += g.power_w;
      ++s.power_n;
    }
    s.peak.memory_used_mib = std::max(s.peak.memory_used_mib, g.memory_used_mib);
    s.peak.temperature_c = std::max(s.peak.temperature_c, g.temperature_c);
    if (g.memory_total_mib > 0) s.peak.memory_total_mib = g.memory_total_mib;
    for (const GpuProcess& p : g.processes) {
      if (p.utilization >= 0) {
        auto& [sum, n] = s.process_util[p.pid];
        sum += p.utilization;
        ++n;
      }
      auto [it, fresh] = s.processes.try_emplace(p.pid, p);
      if (!fresh) {
        it->second.memory_mib = std::max(it->second.memory_mib, p.memory_mib);
        if (it->second.job.empty()) it->second.job = p.job;
        if (it->second.slurm_job.empty()) it->second.slurm_job = p.slurm_job;
      }
    }
  }
  if (host.cpu_busy >= 0) {
    cpu_sum_ += host.cpu_busy;
    ++cpu_n_;
  }
  if (host.cpu_count > 0) host_.cpu_count = host.cpu_count;
  if (host.memory_total_mib > 0) host_.memory_total_mib = host.memory_total_mib;
  host_.memory_used_mib = std::max(host_.memory_used_mib, host.memory_used_mib);
}

NodeReport ReportWindow::take(double now) {
  NodeReport r;
  r.node = node_;
  r.time = now;
  r.window_s = std::max(1e-3, now - start_);
  r.samples = samples_;
  r.host = host_;
  if (cpu_n_ > 0) r.host.cpu_busy = cpu_sum_ / cpu_n_;
  for (auto& [index, s] : gpus_) {
    GpuTelemetry g = s.peak;
    g.node = node_;
    g.gpu = index;
    if (s.util_n > 0) g.utilization = s.util / s.util_n;
    if (s.power_n > 0) g.power_w = s.power / s.power_n;
    if (g.memory_total_mib > 0 && g.memory_used_mib > g.memory_total_mib)
      g.memory_used_mib = g.memory_total_mib;
    for (auto& [pid, p] : s.processes) {
      if (const auto u = s.process_util.find(pid); u != s.process_util.end())
        p.utilization = u->second.first / u->second.second;
      g.processes.push_back(std::move(p));
    }
    r.gpus.push_back(std::move(g));
  }
  samples_ = 0;
  gpus_.clear();
  cpu_sum_ = 0;
  cpu_n_ = 0;
  host_ = HostLoad{};
  return r;
}

}  // namespace frugal
