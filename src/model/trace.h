#pragma once
// A workload read from a trace file: jobs in file order, plus the node list when the
// trace format carries one (openb), and how many malformed rows were skipped.

#include <optional>
#include <string>
#include <vector>

#include "model/cluster_spec.h"
#include "model/job.h"

namespace frugal {

// At most this many skipped-row messages are kept in Trace::warnings.
constexpr size_t kMaxTraceWarnings = 5;

struct Trace {
  std::string format;                  // reader that produced it, e.g. "itp"
  std::string source;                  // file path
  std::vector<JobSpec> jobs;           // in file order (not necessarily sorted by submit)
  std::vector<size_t> lines;           // each job's line in the file (parallel to jobs)
  std::optional<ClusterSpec> cluster;  // node list shipped with the trace, if any
  size_t skipped_rows = 0;             // rows dropped under --skip-bad-rows
  std::vector<std::string> warnings;   // first few skipped-row messages, for the report
};

}  // namespace frugal
