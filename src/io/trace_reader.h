#pragma once
// Reading workload traces. One reader per format (trace_<format>.cpp); the format is
// auto-detected from the header line, or forced. Malformed rows stop the read with an
// Error naming file, line and field — or, with skip_bad_rows, are skipped and counted.

#include <string>
#include <vector>

#include "model/gpu_catalog.h"
#include "model/result.h"
#include "model/trace.h"

namespace frugal {

struct TraceOptions {
  std::string format;                   // "" = auto-detect; else one of trace_formats()
  bool skip_bad_rows = false;           // skip and count malformed rows instead of failing
  const GpuCatalog* catalog = nullptr;  // resolves GPU model names (required)
};

// Names accepted by TraceOptions::format: itp, elasticflow, openb, pollux, native.
std::vector<std::string> trace_formats();

// Reads `path`. On success the jobs are in file order; trace.cluster is set when the format
// carries a node list. Never throws; every failure is an Error naming file and line.
Result<Trace> read_trace(const std::string& path, const TraceOptions& options);

}  // namespace frugal
