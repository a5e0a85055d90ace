#pragma once
// A job as submitted: what it asks for and what is known about it. Fields a trace lacks
// take the defaults below (documented in docs/TRACE_FORMATS.md).
//
// GPU demand follows openb's convention: `gpus` cards, each used at `gpu_milli` milli-GPU.
//   gpus = 4, gpu_milli = 1000 → four whole cards (a gang: all four or none);
//   gpus = 1, gpu_milli = 250  → a quarter of one card, shared with others;
//   gpus = 0                   → a CPU-only job.
// Fractional shares (gpu_milli < 1000) are only meaningful with gpus == 1.

#include <string>
#include <vector>

#include "model/job_class.h"
#include "model/units.h"

namespace frugal {

struct JobSpec {
  std::string id;  // unique within a trace
  std::string team = "default";
  std::string name;  // model/application name when the trace has one
  JobClass job_class = JobClass::kPretrain;
  Tier tier = Tier::kGeneral;
  Seconds submit = 0;  // arrival time

  int gpus = 1;
  Milli gpu_milli = kMilliPerGpu;  // share of each card (1..1000)
  int64_t gpu_memory_mib = 0;      // per-card memory need; 0 = no explicit need
  int64_t cpu_milli = 0;           // host CPU need on its node(s); 0 = none
  int64_t memory_mib = 0;          // host memory need; 0 = none

  std::vector<GpuModelId> allowed_models;  // empty = any model
  GpuModelId preferred_model = kNoGpuModel;

  // Run time when run at the requested size on the reference GPU model; the simulator
  // scales it by the catalog's relative speed of the model it actually runs on.
  Seconds duration = 0;
  Seconds estimate = -1;  // runtime estimate for backfill; < 0 means "use duration"

  int min_gpus = 0;  // elastic bounds; 0 = not elastic (min = max = gpus)
  int max_gpus = 0;
  Seconds deadline = kNever;  // absolute time
  bool deferrable = false;
  Seconds checkpoint_interval = 0;  // 0 = checkpoints when preempted, loses no work
  // Time this job needs to write its checkpoint when signalled; < 0: the profile's grace.
  // Never longer than the profile's (a job cannot hold GPUs past the operator's grace).
  Seconds checkpoint_grace = -1;

  // Share of allocated GPU time spent computing (declared or from telemetry); the rest is
  // idle-allocated waste. 1.0 when unknown: frugal claims no waste it cannot see.
  double utilization = 1.0;
  // Storage the job keeps while it exists (submit → finish).
  // Name. Each job pays for its own copy; the ledger counts the copies beyond one that jobs
  // naming the same dataset keep at once as duplicate_storage waste (cost/ledger.h).
  std::string dataset;
  double dataset_gb = 0;
  double checkpoint_gb = 0;
  std::string storage_tier = "hot";  // tier its data lives on (cluster's storage_tiers)
  // Registered datasets (name@version, storage/) the live service stages onto the hot tier of
  // the job's nodes before it starts; placement prefers nodes that hold them already. A
  // trace's `dataset` above counts as one more for locality.
  std::vector<std::string> datasets;
  // Follow-the-sun (profile +sun, src/policy/follow_sun.h): a movable job may be placed in
  // any region by expected cost and relayed between regions at checkpoints. Its data lives
  // in `data_region` (a region name; empty = wherever it first runs) and follows it: each
  // start in another region pays the transfer (src/cost/transfer.h).
  bool movable = false;
  std::string data_region;
  // Runs where it is until it ends by itself: the engine never preempts, signals, migrates
  // or resizes it (a job the live service observes but does not control, e.g. one submitted
  // to Slurm directly). Only Engine::adopt() puts a pinned job in place.
  bool pinned = false;
  // Sharing measured idle (policy/lend_idle.h; live only, from telemetry): `lend_idle` lets
  // others use the part of its GPUs it is measured not to use; an `opportunistic` job (one
  // card, fractional or general tier) may run as a guest on such a GPU, outside the host's
  // allocation, and is the first to go when the host's load returns.
  bool lend_idle = false;
  bool opportunistic = false;
  // What happened to it live, where the trace records it (`frugal history export`): its
  // first start and its end (trace seconds, < 0 unknown) and its restarts. No policy reads
  // them; a replay of what actually happened does.
  Seconds recorded_start = -1;
  Seconds recorded_end = -1;
  int recorded_restarts = 0;

  Seconds runtime_estimate() const { return estimate >= 0 ? estimate : duration; }
  bool fractional() const { return gpus == 1 && gpu_milli < kMilliPerGpu; }
  // Total GPU demand in milli-GPU.
  int64_t total_milli() const { return static_cast<int64_t>(gpus) * gpu_milli; }
};

}  // namespace frugal
