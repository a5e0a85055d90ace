#pragma once
// The telemetry a node agent posts to POST /v1/telemetry (docs/TELEMETRY.md), and its
// structural validation. A batch is {"sent_at": T, "reports": [NodeReport, ...]}: each report
// summarises one node's samples over a window (utilisation and power: means; memory and
// temperature: maxima; processes: every one seen). What the service checks against its cluster
// (known node, GPU index in range, clock skew, rate) is service/telemetry_book.h's. Thread-safe
// (pure functions).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "drivers/driver.h"
#include "service/job_request.h"

namespace frugal {

// The host's own load over the window (fields < 0: unknown).
struct HostLoad {
  double cpu_busy = -1;  // 0..1: busy share of all cores
  int cpu_count = -1;
  int64_t memory_used_mib = -1;
  int64_t memory_total_mib = -1;
};

struct NodeReport {
  std::string node;
  double time = 0;      // Unix seconds at the window's end, on the agent's clock
  double window_s = 0;  // seconds the window covers (> 0)
  int samples = 0;      // samples it summarises (>= 1)
  HostLoad host;
  std::vector<GpuTelemetry> gpus;  // each with node == `node`
};

// Bounds on one batch (a flood of reports, GPUs or processes is refused, not truncated).
struct TelemetryLimits {
  size_t max_reports = 720;    // an hour of 5 s windows buffered by an agent
  size_t max_gpus = 64;        // per report
  size_t max_processes = 256;  // per GPU
};

nlohmann::json to_json(const NodeReport& r);
// A batch as posted: the agent's clock when it sent it (< 0: not given) and its reports,
// oldest first.
struct TelemetryBatch {
  double sent_at = -1;
  std::vector<NodeReport> reports;
};

// {"sent_at": t, "reports": [...]} for a batch (sent_at left out when < 0).
nlohmann::json batch_json(const std::vector<NodeReport>& reports, double sent_at);

// Parses a batch. Error: the field at fault by its path ("reports[2].gpus[0].utilization")
// and why: a missing or mistyped field, an unknown one, a value out of range (utilisation
// outside [0, 1], memory used above total, power outside [0, 5000] W, temperature outside
// [0, 150] °C), a GPU index given twice, more than the limits allow.
std::variant<TelemetryBatch, FieldError> parse_telemetry_batch(const nlohmann::json& body,
                                                               const TelemetryLimits& limits);

}  // namespace frugal
