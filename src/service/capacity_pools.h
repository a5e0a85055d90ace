#pragma once
// Live capacity pools (config `slurm.pools`, docs/SLURM.md "Cloud nodes"): which Slurm nodes
// form which frugal pool, with the pool's capacity type and rates. Nodes of on-demand pools
// are powered up and down by frugal through Slurm's power saving (drivers/slurm_driver.h);
// nodes in no pool stay in the default owned pool "slurm".

#include <string>
#include <vector>

#include "drivers/driver.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"

namespace YAML {
class Node;
}

namespace frugal {

struct PoolRate {
  std::string model;            // catalog name
  double on_demand_usd_h = -1;  // per GPU-hour; < 0 = the catalog's
  double reserved_usd_h = -1;
};

struct CapacityPoolConfig {
  std::string name;
  std::string nodes;                  // a Slurm host list ("gpu[5-6],gpu9"); may be empty
  std::vector<std::string> features;  // nodes with any of these Slurm features; may be empty
  Capacity capacity = Capacity::kOnDemand;
  SpotTerms spot;                     // capacity spot: price factor and reclaim notice
  double provisioning_delay_s = 300;  // what the engine expects a power-up to take
  double idle_timeout_s = 900;        // an idle node is powered down after this
  std::vector<PoolRate> rates;
};

// `slurm.pools` of config file `path`: a list of maps with keys name, nodes, features,
// capacity (owned, reserved, on_demand, spot), provisioning_delay_s, idle_timeout_s, rental
// ({MODEL: {on_demand_usd_h, reserved_usd_h}}); spot pools also spot_price_factor (0..1],
// reclaim_notice_s (how long a reclaim notice leaves: the checkpoint grace then) and
// reclaim_rate_per_node_hour (what frugal's spot placement plans with). Error names the file and
// the field
// ("slurm.pools[1].idle_timeout_s: ...").
Result<std::vector<CapacityPoolConfig>> parse_capacity_pools(const YAML::Node& list,
                                                             const std::string& path);

// Moves the nodes of `cluster` (one per inventory node, same order) into the configured pools
// (each in the cluster's first region), keeping the rest in pool 0. Error naming them when a
// pool names a node the inventory lacks, a node falls in two pools, a pool holds no node, or a
// rate names a model not in the catalog.
Result<ClusterSpec> apply_capacity_pools(ClusterSpec cluster, const Inventory& inv,
                                         const std::vector<CapacityPoolConfig>& pools,
                                         const GpuCatalog& catalog);

// The nodes of rented pools (on demand and spot: the ones frugal powers), by name.
std::vector<std::string> powered_nodes(const ClusterSpec& cluster);

}  // namespace frugal
