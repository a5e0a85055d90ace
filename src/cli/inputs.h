#pragma once
// Loading what a simulation needs from command-line options: the catalog, the trace and
// the cluster. Shared by `simulate` and `compare`.

#include <CLI/CLI.hpp>
#include <string>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"
#include "model/trace.h"

namespace frugal {

struct InputOptions {
  std::string trace;
  std::string trace_format;
  bool skip_bad_rows = false;
  std::string cluster;
  int64_t gpus = 0;
  std::string gpu_model = "A100-80GB";
  int gpus_per_node = 8;
  std::string catalog;
  std::string reference_model;       // "" = the --gpu-model of a quick cluster, else A100-80GB
  int64_t assign_classes_seed = -1;  // >= 0: give jobs classes (src/sim/class_assignment.h)
  int64_t assign_tiers_seed = -1;    // >= 0: give jobs tiers by class (after the classes)
  double deferrable_share = 0;       // > 0: make this share of GPU jobs deferrable
  double deadline_slack_h = 24;      // ... with deadline = submit + duration + slack
  uint64_t deferrable_seed = 1;
  double deferrable_max_h = 0;  // only jobs this short (hours; 0 = any) may be deferrable
  double elastic_share = 0;     // > 0: make this share of training jobs elastic
  uint64_t elastic_seed = 1;
  double movable_share = 0;  // > 0: make this share of GPU jobs movable (follow-the-sun)
  uint64_t movable_seed = 1;
  double movable_dataset_gb = 0;  // ... with this dataset and checkpoint size where unset
  double movable_checkpoint_gb = 0;
  double checkpoint_interval_s = 0;  // > 0: jobs declaring no checkpoint interval take it
  double checkpoint_write_s = -1;    // >= 0: jobs declaring no checkpoint time take it

  // Registers --trace, --trace-format, --skip-bad-rows, --cluster, --gpus, --gpu-model,
  // --gpus-per-node, --catalog, --reference-model, --assign-classes, --assign-tiers,
  // --deferrable-share, --deadline-slack, --deferrable-seed, --movable-share, --movable-seed,
  // --movable-dataset-gb, --movable-checkpoint-gb, --checkpoint-interval, --checkpoint-write
  // on `cmd` (--trace required unless `trace_required` is false).
  void add_to(CLI::App& cmd, bool trace_required = true);
};

struct Inputs {
  GpuCatalog catalog;
  Trace trace;
  ClusterSpec cluster;
  GpuModelId reference_model = kNoGpuModel;
};

Result<Inputs> load_inputs(const InputOptions& o);
// The same with `trace` (its jobs' models from `catalog`) instead of reading o.trace.
Result<Inputs> load_inputs(const InputOptions& o, Trace trace, GpuCatalog catalog);

// With --skip-bad-rows: says on stderr how many rows of `path` were skipped and the first
// reason (nothing when none were).
void warn_skipped_rows(const std::string& path, const Trace& trace);

// "a,b,,c" → {"a", "b", "c"} (empty items dropped).
std::vector<std::string> split_commas(const std::string& s);

}  // namespace frugal
