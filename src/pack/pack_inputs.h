#pragma once
// Inputs of the pack experiment, read through frugal's existing readers (read_openb_nodes,
// read_trace with format "openb"), so bad input gives the same FILE:LINE errors, plus the two
// replay files of the FGD reference (seed42_pod_order.csv, seed42_node_prefix.csv).

#include <string>
#include <vector>

#include "model/gpu_catalog.h"
#include "model/result.h"
#include "pack/pack_model.h"

namespace frugal::pack {

// openb node list (sn,cpu_milli,memory_mib,gpu,model). Nodes with more than kMaxGpus cards are
// an error.
Result<std::vector<NodeSpec>> load_pack_nodes(const std::string& path, const GpuCatalog& catalog);

// openb pod list (either layout). CPU-only pods get milli 0; model_key is the gpu_spec text.
Result<std::vector<Pod>> load_pack_pods(const std::string& path, const GpuCatalog& catalog);

// Exact arrival order: seq,name,cpu_milli,memory_mib,num_gpu,gpu_milli_per_gpu (any model).
Result<std::vector<Pod>> load_replay_order(const std::string& path);

// Tie-break ranks: node,...,tiebreak_rank. Returns rank[i] for nodes[i]; every node must be
// listed and the ranks must form a permutation of 0..n-1.
Result<std::vector<int>> load_node_ranks(const std::string& path,
                                         const std::vector<NodeSpec>& nodes);

}  // namespace frugal::pack
