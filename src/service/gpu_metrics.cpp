#include "service/gpu_metrics.h"

#include <algorithm>
#include <map>

#include "service/prom_text.h"

namespace frugal {
namespace {

constexpr double kBytesPerMib = 1024.0 * 1024.0;

PromLabels gpu_labels(const GpuSample& g) {
  PromLabels l = {{"node", g.reading.node}, {"gpu", std::to_string(g.reading.gpu)}};
  if (!g.model.empty()) l.emplace_back("model", g.model);
  if (!g.pool.empty()) l.emplace_back("pool", g.pool);
  return l;
}

PromLabels job_labels(const JobUse& j) {
  PromLabels l = {{"job_id", std::to_string(j.id)}, {"team", j.team}, {"tier", j.tier}};
  if (!j.model.empty()) l.emplace_back("model", j.model);
  return l;
}

// MiB as bytes; negative (unknown) stays negative.
double bytes(int64_t mib) {
  return mib < 0 ? -1.0 : static_cast<double>(mib) * kBytesPerMib;
}

// One gauge family over `gpus`: value(g) < 0 leaves g out.
template <typename F>
void gpu_family(const std::vector<GpuSample>& gpus, const char* name, const char* help, F value,
                std::string& out) {
  render_header(name, "gauge", help, out);
  for (const GpuSample& g : gpus)
    if (const double v = value(g); v >= 0) render_sample(name, gpu_labels(g), v, out);
}

}  // namespace

void render_gpu_metrics(const std::vector<GpuSample>& gpus, std::string& out) {
  gpu_family(
      gpus, "frugal_gpu_utilization_ratio",
      "Measured GPU utilisation (0..1) over the backend's last sample period",
      [](const GpuSample& g) {
        return g.reading.utilization < 0 ? -1.0 : std::clamp(g.reading.utilization, 0.0, 1.0);
      },
      out);
  gpu_family(
      gpus, "frugal_gpu_memory_used_bytes", "GPU memory in use (bytes)",
      [](const GpuSample& g) { return bytes(g.reading.memory_used_mib); }, out);
  gpu_family(
      gpus, "frugal_gpu_memory_total_bytes", "GPU memory on the card (bytes)",
      [](const GpuSample& g) { return bytes(g.reading.memory_total_mib); }, out);
  gpu_family(
      gpus, "frugal_gpu_power_watts", "GPU power draw (watts)",
      [](const GpuSample& g) { return g.reading.power_w; }, out);
  gpu_family(
      gpus, "frugal_gpu_temperature_celsius", "GPU temperature (degrees Celsius)",
      [](const GpuSample& g) { return g.reading.temperature_c; }, out);
  gpu_family(
      gpus, "frugal_gpu_allocated_ratio",
      "Share of the GPU allocated to jobs by the scheduler (0..1; fractional jobs summed)",
      [](const GpuSample& g) { return g.allocated < 0 ? -1.0 : std::min(g.allocated, 1.0); }, out);
}

void render_job_metrics(const std::vector<JobUse>& jobs, std::string& out) {
  render_header("frugal_job_gpus_allocated", "gauge",
                "GPUs allocated to a running job (fractions summed)", out);
  for (const JobUse& j : jobs)
    render_sample("frugal_job_gpus_allocated", job_labels(j), j.gpus, out);
  render_header("frugal_job_gpu_utilization_ratio", "gauge",
                "A running job's measured GPU utilisation (0..1): mean over its GPUs and its "
                "telemetry samples so far",
                out);
  for (const JobUse& j : jobs)
    if (j.utilization >= 0)
      render_sample("frugal_job_gpu_utilization_ratio", job_labels(j),
                    std::clamp(j.utilization, 0.0, 1.0), out);
  render_header("frugal_job_gpu_memory_used_bytes", "gauge",
                "GPU memory in use on a running job's cards (bytes; jobs holding whole cards)",
                out);
  for (const JobUse& j : jobs)
    if (j.memory_used_mib >= 0)
      render_sample("frugal_job_gpu_memory_used_bytes", job_labels(j), bytes(j.memory_used_mib),
                    out);
  std::map<std::string, double> by_team;
  for (const JobUse& j : jobs) by_team[j.team] += j.gpus;
  render_header("frugal_team_gpus_allocated", "gauge",
                "GPUs allocated to a team's running jobs (fractions summed)", out);
  for (const auto& [team, gpus] : by_team)
    render_sample("frugal_team_gpus_allocated", {{"team", team}}, gpus, out);
}

}  // namespace frugal
