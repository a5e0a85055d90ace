#pragma once
// Loading cluster specs: the YAML format (regions → pools → node groups, documented in
// docs/CLUSTER_SPEC.md and examples/clusters/) and openb's node list CSV
// (sn,cpu_milli,memory_mib,gpu,model). Errors name the file and the field or line at fault.

#include <cstdint>
#include <string>
#include <string_view>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"

namespace frugal {

// Most nodes one group of a cluster file may declare (the reader rejects more; the writer splits).
inline constexpr int64_t kMaxNodeGroupCount = 100000;

// Parses cluster YAML text; `origin` names the source in error messages. Data files the spec
// names (electricity prices, carbon intensity) are read relative to the directory of `origin`
// (so pass the file's path; an origin without a directory means the current directory).
Result<ClusterSpec> parse_cluster_yaml(std::string_view text, const std::string& origin,
                                       const GpuCatalog& catalog);

// Reads an openb node list CSV into one region "default", one pool "default".
Result<ClusterSpec> read_openb_nodes(const std::string& path, const GpuCatalog& catalog);

// Loads `path`: a YAML cluster spec, or an openb node list CSV (recognised by its header).
Result<ClusterSpec> load_cluster_file(const std::string& path, const GpuCatalog& catalog);

}  // namespace frugal
