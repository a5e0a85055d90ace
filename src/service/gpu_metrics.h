#pragma once
// The GPU and job gauges of /metrics (docs/METRICS.md): per card its measured utilisation,
// memory, power and temperature and the share allocated to jobs; per running job its GPUs
// and measured use; per team the GPUs its jobs hold. Plain inputs, so the renderers can be
// tested without a scheduler. Pure functions; thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include <map>

#include "agent/telemetry_wire.h"
#include "drivers/driver.h"

namespace frugal {

// One GPU as /metrics shows it.
struct GpuSample {
  GpuTelemetry reading;   // node and gpu label every sample; readings < 0 are unknown
  std::string model;      // catalog name of the node's GPU model ("" unknown: no label)
  std::string pool;       // the node's pool ("" none: no label)
  double allocated = -1;  // share of the card allocated to jobs, 0..1; < 0 unknown
};

// One running job as /metrics shows it.
struct JobUse {
  int64_t id = 0;
  std::string team;
  std::string tier;              // core, important or general
  std::string model;             // catalog name of the GPU model it runs on ("" CPU-only: no label)
  double gpus = 0;               // GPUs allocated, fractions summed
  double utilization = -1;       // mean measured utilisation of its GPUs, 0..1; < 0 unknown
  int64_t memory_used_mib = -1;  // GPU memory used on its cards; < 0 unknown
};

// Appends the frugal_gpu_* families (HELP and TYPE always; a sample only for a known value:
// temperature from 0 °C, utilisation clamped to 0..1, memory in bytes).
void render_gpu_metrics(const std::vector<GpuSample>& gpus, std::string& out);

// Appends frugal_job_gpus_allocated, frugal_job_gpu_utilization_ratio and
// frugal_job_gpu_memory_used_bytes per job (labels job_id, team, tier, model; unknown values
// left out), and frugal_team_gpus_allocated per team with a running job.
void render_job_metrics(const std::vector<JobUse>& jobs, std::string& out);

// Appends frugal_node_cpu_busy_ratio, frugal_node_cpus, frugal_node_memory_used_bytes and
// frugal_node_memory_total_bytes per node (label node) from node agents' host load; unknown
// values left out.
void render_host_metrics(const std::map<std::string, HostLoad>& hosts, std::string& out);

}  // namespace frugal
