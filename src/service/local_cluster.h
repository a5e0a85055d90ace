#pragma once
// The local backend's cluster: this host's GPUs (NVML or the config's `gpus`), always. A
// `cluster:` file may add where the host is and how it is paid for, and nothing else:
//
//   - exactly one region (its time zone, prices, carbon, PUE, time-of-use);
//   - at most one pool; its capacity type and rates apply to the host. If it declares node
//     groups, they must describe the real inventory exactly (one node, the same number of
//     GPUs of the same model): the local backend never invents devices;
//   - its storage tiers.
// Anything else is an error naming the key. (Before, a cluster file replaced the host's GPUs
// by its own: a 2-GPU host became 8 fictitious H100s and two jobs got the same GPU.)

#include <string>

#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"

namespace frugal {

// `host`: the cluster made from the inventory (one pool, its nodes); `file`: the cluster
// file as loaded from `file_name`. Returns `host` placed and priced by the file.
Result<ClusterSpec> place_local_host(ClusterSpec host, const ClusterSpec& file,
                                     const std::string& file_name, const GpuCatalog& catalog);

}  // namespace frugal
