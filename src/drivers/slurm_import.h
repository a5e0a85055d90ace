#pragma once
// A Slurm cluster's accounting as a trace (`frugal import slurm`, docs/WHATIF.md): the jobs
// of SlurmRecords (from `sacct --json`, drivers/sacct_json.h, or the jobcomp file with
// frugal's GRES log, records_from_jobcomp below) as JobSpecs with what happened to them, for
// `frugal simulate`, `compare` and `whatif` replays.
//
// The records of one job id are one job: its runs are the records that ran (a requeued job
// has several); first_start is its first run's start, end its last run's end, restarts the
// number of runs before the last, and its duration the sum of its runs' lengths, each
// converted to the reference model by the catalog's relative speed of the model it ran on.
// The job's final state (its last record's) is kept in its name: "train [TIMEOUT]" (a
// COMPLETED job keeps its name as it is). Left out, and counted: jobs that never ran
// (cancelled while pending), jobs not ended (last record pending, requeued or running), and
// jobs without GPUs (CPU-only, or neither the record nor the GRES log gives its GPUs).
//
// A run's GPU model: its GRES type through the GPU map (catalog names match too), else the
// model of its nodes (`nodes`, e.g. from `sinfo --json`), else the single model its
// partition allows, else `default_model`. A GRES type nothing maps, or a GPU model that
// cannot be told, is an error naming the record and the field — unless `default_model` is
// set, which is then used and counted. Times are trace seconds from `epoch_unix_s`, the first
// exported submission floored to the hour.

#include <map>
#include <string>
#include <vector>

#include "drivers/slurm_config.h"
#include "drivers/slurm_import_map.h"
#include "drivers/slurm_jobcomp.h"
#include "drivers/slurm_record.h"
#include "drivers/slurm_types.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "model/result.h"

namespace frugal {

struct SlurmImportOptions {
  GpuModelId reference = kNoGpuModel;      // durations on this model (kNoGpuModel: as run)
  GpuModelId default_model = kNoGpuModel;  // for unknown GRES types (kNoGpuModel: an error)
  std::vector<GresMapping> gpu_map = SlurmConfig{}.gpu_map;  // GRES type → catalog model
  int shards_per_gpu = 8;                                    // gres/shard per GPU
  // Each job may run only on the GPU model(s) its runs ran on, not on its partition's: the
  // replay keeps the placement's model as it was (jobs frugal placed carry no request of
  // their own in the records; a what-if of placement leaves this off).
  bool pin_models = false;
  // The cluster's nodes (sinfo --json): the model of untyped GPUs by node, and the models a
  // partition allows (those of its nodes) where the map does not list them. May be empty.
  std::vector<SlurmNode> nodes;
};

struct SlurmImport {
  std::vector<JobSpec> jobs;  // by submission, then id
  double epoch_unix_s = 0;    // trace second 0 (0 when no job was exported)
  size_t records = 0;
  int never_started = 0;  // left out: ended without running (cancelled while pending)
  int unfinished = 0;     // left out: still pending, requeued or running when recorded
  int without_gpus = 0;   // left out: no GPUs known
  int default_model = 0;  // jobs whose model is default_model (GRES type unknown or untyped)
  std::map<std::string, int> final_states;  // of the exported jobs
};

Result<SlurmImport> import_slurm(const std::vector<SlurmRecord>& records, const GpuCatalog& catalog,
                                 const SlurmImportMap& map, const SlurmImportOptions& options);

// Jobcomp records as SlurmRecords ("<origin>:<line>" as their place), their GPUs from the
// GRES log (by job id and start), else the record's Tres.
std::vector<SlurmRecord> records_from_jobcomp(const std::vector<JobcompRecord>& records,
                                              const GresLog& gres, const std::string& origin);

}  // namespace frugal
