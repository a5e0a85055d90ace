#pragma once
// The cluster a service runs on, kept in its database (table cluster_specs, schema version 10)
// so that its history can be replayed on it: recorded when the service starts
// (Scheduler::recover), read back by `frugal history export --cluster-out` and by
// `frugal whatif --db` without --cluster (docs/WHATIF.md).
//
// What is recorded is the cluster the engine schedules on, written as cluster YAML
// (io/cluster_yaml_writer.h): the backend's inventory (local: this host; slurm: its nodes,
// with `slurm.pools`), placed and priced by the `cluster:` file when there is one; with the
// dry-run backend, the file's cluster. Series files are named by absolute path. The node set
// changes only at start (live capacity changes power states, not nodes), so recording at start
// covers it; a new row is added only when the text differs from the last one recorded.

#include <optional>
#include <string>
#include <vector>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"
#include "service/config.h"
#include "service/store.h"

namespace frugal {

// What the service's cluster is made of, in words, for the record (the backend, the
// inventory, the cluster file by absolute path, slurm.pools).
std::string cluster_source(const ServiceConfig& config);

// Records `cluster` in `store` at `now` (Unix seconds) unless the latest recorded spec has
// the same text. Returns a line for the log saying what it did. Error only when the store
// fails; a cluster that cannot be written as YAML, or whose YAML does not read back as the
// same nodes, is not recorded and the line says why.
Result<std::string> record_cluster_spec(Store& store, const ClusterSpec& cluster,
                                        const GpuCatalog& catalog, const std::string& source,
                                        double now);

// Every spec recorded in the database at `db_path` (opened read-only, so a running service
// may hold it), oldest first; empty when none was (a database older than schema 10 too).
// Errors name the file: cannot be opened, not a frugal database, a schema newer than this build.
Result<std::vector<ClusterSpecRow>> read_cluster_specs(const std::string& db_path);

// The spec to replay a history on whose first job was submitted at `first_submit` (Unix
// seconds; < 0: no job): the latest one recorded, and a note for the user (empty when none is
// due) when the cluster changed after `first_submit` or the first spec was recorded after it.
struct ClusterSpecChoice {
  ClusterSpecRow spec;
  std::string note;
};
// Error naming the database when it records no spec.
Result<ClusterSpecChoice> choose_cluster_spec(const std::string& db_path, double first_submit);

// "2026-12-01T00:00:00Z" for Unix seconds `t` (whole seconds, UTC).
std::string utc_text(double t);

}  // namespace frugal
