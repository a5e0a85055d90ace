#pragma once
// Writing a cluster spec back as YAML (docs/CLUSTER_SPEC.md), so that `--cluster FILE` reads
// the same cluster: what `frugal serve` records of the cluster it runs on (its inventory,
// placed and priced by its cluster file) and `frugal history export --cluster-out` writes.
//
// What reads back the same: the epoch, storage tiers, regions (time zone, price zone, PUE,
// egress price, time-of-use schedule, flat prices, and price / carbon series by the absolute
// path of the file they were read from: Region::prices_file, carbon_file), pools (capacity,
// delays, rental overrides, spot terms) and nodes (model, GPUs, CPUs, memory, overhead, pool).
// Nodes are written as node groups: consecutive identical nodes named P-0, P-1, ... as one
// group P (their names read back unchanged); any other node as a group of one named after it
// (it reads back as "<name>-0"; characters a name may not hold become '_'). Pools without
// nodes and regions without nodes are left out (the format has no empty pool); so are rental
// overrides that override nothing.

#include <string>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"

namespace frugal {

// The YAML text of `spec`, its models named as in `catalog`. Error when the spec has no
// node, or a region's price or carbon series came from no file (it has no path to write).
Result<std::string> write_cluster_yaml(const ClusterSpec& spec, const GpuCatalog& catalog);

// `spec` with its epoch (trace second 0) moved to `epoch_unix_s`: written and read back, so
// what the reader derives from the epoch (a region's off-peak hours without a price series)
// follows it. For replaying a history whose trace seconds count from another instant than
// the spec's epoch (`frugal history export`, `whatif --db`). Errors as write_cluster_yaml's.
Result<ClusterSpec> with_epoch(const ClusterSpec& spec, int64_t epoch_unix_s,
                               const GpuCatalog& catalog);

}  // namespace frugal
