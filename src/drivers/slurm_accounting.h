#pragma once
// Real cost and waste of a Slurm cluster from its finished-job records: each run in the
// jobcomp file becomes a ledger segment on the nodes it ran on, with the GPUs frugal's GRES
// log (or the record's Tres) says it held; capacity nobody held is unattributed. The same
// Ledger as the simulator's, so `frugal attribute` and `frugal simulate` report alike.

#include <string>
#include <vector>

#include "cost/ledger.h"
#include "drivers/slurm_config.h"
#include "drivers/slurm_jobcomp.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"

namespace frugal {

struct SlurmAttribution {
  LedgerReport ledger;
  size_t records = 0;            // lines read
  size_t runs = 0;               // records that ran (nodes and a positive duration)
  size_t runs_without_gpus = 0;  // runs whose GPUs neither the GRES log nor Tres gave (CPU-only)
  double gpu_hours = 0;          // Σ run duration × GPUs held (shards as fractions of a GPU)
  int64_t first_unix = 0, last_unix = 0;  // the span accounted
  std::vector<std::string> warnings;      // runs that could not be placed as recorded, ...
};

// Accounts `records` on `cluster` (node names as in Slurm, e.g. cluster_from_slurm()). A
// job's team is its Account, else its user. Runs are kept whole (no rework assumed: the
// records do not say what a requeued run had checkpointed). Error names the record whose
// node the cluster does not have.
Result<SlurmAttribution> attribute_jobcomp(const std::vector<JobcompRecord>& records,
                                           const GresLog& gres, const ClusterSpec& cluster,
                                           const GpuCatalog& catalog, const SlurmConfig& config);

}  // namespace frugal
