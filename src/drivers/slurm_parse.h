#pragma once
// Parsers for Slurm's text formats: host lists, GRES strings, and the JSON answers of
// slurmrestd (openapi v0.0.38), which `squeue --json` / `sinfo --json` print too.
// Pure functions; errors name the document and field at fault. Thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include "drivers/slurm_types.h"
#include "model/result.h"

namespace frugal {

// "gpu[1-3,7],cpu01" → gpu1 gpu2 gpu3 gpu7 cpu01 (zero padding kept: "n[01-02]" → n01 n02).
// "", "(null)" and "None" give an empty list.
Result<std::vector<std::string>> expand_hostlist(std::string_view list);

// "gpu:a100:8,shard:a100:64(S:0)" or "gpu:h100:2(IDX:0-1),shard:h100:0(IDX:N/A)" → items.
// "(null)", "N/A" and "" give an empty list.
Result<std::vector<GresItem>> parse_gres(std::string_view text);

// Answers of GET /nodes, /partitions, /jobs (or `sinfo --json`, `squeue --json`). A non-empty
// "errors" array is an error naming its first entry. `origin` names the source in errors.
Result<std::vector<SlurmNode>> parse_nodes_json(std::string_view text, const std::string& origin);
Result<std::vector<SlurmPartition>> parse_partitions_json(std::string_view text,
                                                          const std::string& origin);
Result<std::vector<SlurmJob>> parse_jobs_json(std::string_view text, const std::string& origin);

}  // namespace frugal
