#pragma once
// Right-sizing (GET /v1/insights, docs/TELEMETRY.md): per team and job key (the job's name,
// else its class), what its jobs ask for against what telemetry measured them using, and a
// suggestion where they ask for more whole GPUs than they use — "asks 8 GPUs, uses 3.1 on
// average: run as 4". Only measured jobs count; the GPU-hour-weighted mean utilisation
// makes the used GPUs; a suggestion never goes below what the measured GPU memory needs.
// Pure functions (thread-safe).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace frugal {

// One job as the insights see it.
struct SizedJob {
  std::string team;
  std::string key;              // its name, else its class
  double gpus = 0;              // GPUs asked for (a fraction counts as its share)
  double utilization = -1;      // measured mean, 0..1; < 0 not measured
  double run_s = 0;             // how long it has run (weights its utilisation)
  int64_t memory_mib = -1;      // GPU memory its processes used at the latest sample; < 0 unknown
  int64_t card_memory_mib = 0;  // one of its GPUs' memory; 0 unknown
};

struct RightSizing {
  std::string team, key;
  size_t jobs = 0;               // measured jobs of the key
  double gpu_hours = 0;          // their GPU-hours
  double gpus_requested = 0;     // GPU-hour-weighted mean request
  double mean_utilization = 0;   // GPU-hour-weighted
  double gpus_used = 0;          // gpus_requested × mean_utilization
  int64_t memory_used_mib = -1;  // the largest measured
  int suggested_gpus = 0;        // 0: no change suggested
  std::string suggestion;        // one sentence
};

// Keys with at least one measured job, sorted by GPU-hours left unused (largest first).
std::vector<RightSizing> right_sizing(const std::vector<SizedJob>& jobs);
nlohmann::json to_json(const RightSizing& r);

}  // namespace frugal
