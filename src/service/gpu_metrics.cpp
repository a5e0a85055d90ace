#include "service/gpu_metrics.h"

#include <algorithm>
#include <map>

#include "service/prom_text.h"

namespace frugal {
namespace {

constexpr double kBytesPerMib = 1024.0 * 1024.0;

std::string gpu_labels(const GpuSample& g) {
  PromLabels l = {{"node", g.reading.node}, {"gpu", std::to_string(g.reading.gpu)}};
  if (!g.model.empty()) l.emplace_back("model", g.model);
  if (!g.pool.empty()) l.emplace_back("pool", g.pool);
  return label_set(l);
}

std::string job_labels(const JobUse& j) {
  PromLabels l = {{"job_id", std::to_string(j.id)}, {"team", j.team}, {"tier", j.tier}};
  if (!j.model.empty()) l.emplace_back("model", j.model);
  return label_set(l);
}

// MiB as bytes; negative (unknown) stays negative.
double bytes(int64_t mib) {
  return mib < 0 ? -1.0 : static_cast<double>(mib) * kBytesPerMib;
}

// One gauge family over `items` (their label sets in `labels`, by index): value(item) < 0
// leaves the item out.
template <typename T, typename F>
void family(const std::vector<T>& items, const std::vector<std::string>& labels, const char* name,
            const char* help, F value, std::string& out) {
  render_header(name, "gauge", help, out);
  for (size_t i = 0; i < items.size(); ++i)
    if (const double v = value(items[i]); v >= 0) render_sample_set(name, labels[i], v, out);
}

double ratio(double v) {
  return v < 0 ? -1.0 : std::clamp(v, 0.0, 1.0);
}

}  // namespace

void render_gpu_metrics(const std::vector<GpuSample>& gpus, std::string& out) {
  std::vector<std::string> l;
  l.reserve(gpus.size());
  for (const GpuSample& g : gpus) l.push_back(gpu_labels(g));
  family(
      gpus, l, "frugal_gpu_utilization_ratio",
      "Measured GPU utilisation (0..1) over the backend's last sample period",
      [](const GpuSample& g) { return ratio(g.reading.utilization); }, out);
  family(
      gpus, l, "frugal_gpu_memory_used_bytes", "GPU memory in use (bytes)",
      [](const GpuSample& g) { return bytes(g.reading.memory_used_mib); }, out);
  family(
      gpus, l, "frugal_gpu_memory_total_bytes", "GPU memory on the card (bytes)",
      [](const GpuSample& g) { return bytes(g.reading.memory_total_mib); }, out);
  family(
      gpus, l, "frugal_gpu_power_watts", "GPU power draw (watts)",
      [](const GpuSample& g) { return g.reading.power_w; }, out);
  family(
      gpus, l, "frugal_gpu_temperature_celsius", "GPU temperature (degrees Celsius)",
      [](const GpuSample& g) { return g.reading.temperature_c; }, out);
  family(
      gpus, l, "frugal_gpu_allocated_ratio",
      "Share of the GPU allocated to jobs by the scheduler (0..1; fractional jobs summed)",
      [](const GpuSample& g) { return ratio(g.allocated); }, out);
}

void render_job_metrics(const std::vector<JobUse>& jobs, std::string& out) {
  std::vector<std::string> l;
  l.reserve(jobs.size());
  for (const JobUse& j : jobs) l.push_back(job_labels(j));
  family(
      jobs, l, "frugal_job_gpus_allocated", "GPUs allocated to a running job (fractions summed)",
      [](const JobUse& j) { return j.gpus; }, out);
  family(
      jobs, l, "frugal_job_gpu_utilization_ratio",
      "A running job's measured GPU utilisation (0..1): mean over its GPUs and its telemetry "
      "samples so far",
      [](const JobUse& j) { return ratio(j.utilization); }, out);
  family(
      jobs, l, "frugal_job_gpu_memory_used_bytes",
      "GPU memory in use on a running job's cards (bytes; jobs holding whole cards)",
      [](const JobUse& j) { return bytes(j.memory_used_mib); }, out);
  std::map<std::string, double> by_team;
  for (const JobUse& j : jobs) by_team[j.team] += j.gpus;
  render_header("frugal_team_gpus_allocated", "gauge",
                "GPUs allocated to a team's running jobs (fractions summed)", out);
  for (const auto& [team, gpus] : by_team)
    render_sample("frugal_team_gpus_allocated", {{"team", team}}, gpus, out);
}

void render_host_metrics(const std::map<std::string, HostLoad>& hosts, std::string& out) {
  struct Family {
    const char* name;
    const char* help;
    double (*value)(const HostLoad&);
  };
  static constexpr Family kFamilies[] = {
      {"frugal_node_cpu_busy_ratio", "Busy share of all the node's CPU cores (node agent)",
       [](const HostLoad& h) { return h.cpu_busy; }},
      {"frugal_node_cpus", "CPU cores of the node (node agent)",
       [](const HostLoad& h) { return static_cast<double>(h.cpu_count); }},
      {"frugal_node_memory_used_bytes", "Host memory in use: MemTotal - MemAvailable (node agent)",
       [](const HostLoad& h) {
         return h.memory_used_mib < 0 ? -1.0 : static_cast<double>(h.memory_used_mib) * 1048576;
       }},
      {"frugal_node_memory_total_bytes", "Host memory of the node (node agent)",
       [](const HostLoad& h) {
         return h.memory_total_mib < 0 ? -1.0 : static_cast<double>(h.memory_total_mib) * 1048576;
       }},
  };
  for (const Family& f : kFamilies) {
    render_header(f.name, "gauge", f.help, out);
    for (const auto& [node, h] : hosts)
      if (const double v = f.value(h); v >= 0) render_sample(f.name, {{"node", node}}, v, out);
  }
}

}  // namespace frugal
