#pragma once
// The platform description: regions → pools → nodes. Written in YAML (io/cluster_yaml.h),
// derived from a trace's node list (openb), or built as the quick homogeneous cluster.
// Node groups in YAML are expanded here into one NodeSpec per node.

#include <string>
#include <vector>

#include "model/gpu_catalog.h"
#include "model/hourly_series.h"
#include "model/units.h"

namespace frugal {

// Time-of-use rental schedule: off-peak windows in the region's local time, when on-demand
// rental is discounted.
struct TimeOfUse {
  std::vector<std::pair<int, int>> windows;  // [start, end) minutes of the local day; a
                                             // window may wrap midnight (22:00-08:00)
  bool weekends = false;                     // Saturday and Sunday are off-peak all day
  std::vector<std::string> holidays;         // local dates "YYYY-MM-DD", off-peak all day
  double discount = 0;                       // 0..1: off-peak price = (1 - discount) × list
};

struct Region {
  std::string name;
  std::string timezone = "UTC";          // IANA name, e.g. "America/Los_Angeles"
  std::string price_zone;                // e.g. "US-CAL-CISO" (for reports)
  HourlySeries electricity_usd_per_mwh;  // empty = flat default_electricity_usd_per_mwh
  HourlySeries carbon_g_per_kwh;         // empty = flat default_carbon_g_per_kwh
  // The files the two series were read from, absolute ("" = not read from a file), so a
  // spec can be written back (io/cluster_yaml_writer.h).
  std::string prices_file, carbon_file;
  double default_electricity_usd_per_mwh = 80;
  double default_carbon_g_per_kwh = 400;
  double pue = 1.5;  // facility power / IT power
  // Price of moving data out of this region to another one, USD per GB (datasets and
  // checkpoints of jobs that change region, src/cost/transfer.h). Default: the common
  // public-cloud list price for transfer between US regions.
  double egress_usd_per_gb = 0.02;
  TimeOfUse time_of_use;  // discount 0 = no schedule
  HourlySeries offpeak;  // 1 in off-peak hours, 0 otherwise (built from time_of_use); empty = never
};

// How a pool's capacity is paid for.
enum class Capacity : uint8_t {
  kOwned,     // bought: paid (at the reserved rate) whether used or not
  kReserved,  // committed rental: paid whether used or not
  kOnDemand,  // paid only while provisioned; frugal's autoscaler adds and releases nodes
  kSpot,      // as on demand (autoscaled, paid while provisioned) at a discount, but the
              // provider may reclaim a node at any time after a short notice (Pool::spot)
};

// Rented by the hour (paid only while provisioned, autoscaled): on-demand and spot pools.
inline bool rented(Capacity c) {
  return c == Capacity::kOnDemand || c == Capacity::kSpot;
}

// A spot pool's terms. The price is a share of the model's on-demand rate (the pool's rental
// override, else the catalog's); reclaims come as a Poisson process per provisioned node at
// `reclaim_rate_per_node_hour` (or, when `reclaim_rate_series` is not empty, at its hourly
// values: a node-hour rate per UTC hour from the cluster's epoch, wrapping), each announced
// `reclaim_notice_s` before the node goes.
struct SpotTerms {
  double price_factor = 0.35;                // (0, 1]: spot rate = factor × on-demand rate
  double reclaim_notice_s = 120;             // >= 0
  double reclaim_rate_per_node_hour = 0.01;  // >= 0; 0 = never reclaimed
  HourlySeries reclaim_rate_series;          // empty = the flat rate above
  // Whether frugal's spot placement (policy/spot.h) may put core-tier work here.
  bool allow_core = false;
  // The mean reclaim rate per node-hour (the series' mean when it has one).
  double mean_rate() const;
};

// Per-pool override of a GPU model's catalog rental prices.
struct RentalOverride {
  GpuModelId model = kNoGpuModel;
  double on_demand_usd_h = -1;  // < 0 = catalog value
  double reserved_usd_h = -1;
};

struct Pool {
  std::string name;
  uint32_t region = 0;  // index into ClusterSpec::regions
  Capacity capacity = Capacity::kOwned;
  double provisioning_delay_s = 300;  // on-demand: time from request to a usable node
  double idle_timeout_s = 900;        // on-demand: an idle node is released after this
  std::vector<RentalOverride> rental;
  SpotTerms spot;  // capacity kSpot only
};

struct NodeSpec {
  std::string name;
  uint32_t pool = 0;               // index into ClusterSpec::pools
  GpuModelId model = kNoGpuModel;  // kNoGpuModel for CPU-only nodes
  int gpus = 0;                    // whole cards on the node (0..64)
  int64_t cpu_milli = 0;           // 0 = not tracked (CPU never limits placement)
  int64_t memory_mib = 0;          // host memory; 0 = not tracked
  double overhead_w = 0;           // host power beyond the GPUs (CPUs, fans, NICs), watts
};

// Storage tiers and their prices.
struct StorageTier {
  std::string name;  // "hot", "warm", "cold", ...
  double usd_per_gb_month = 0;
};

inline constexpr int kMaxGpusPerNode = 64;

struct ClusterSpec {
  std::vector<Region> regions;
  std::vector<Pool> pools;
  std::vector<NodeSpec> nodes;
  std::vector<StorageTier> storage_tiers;  // empty = the defaults (default_storage_tiers())
  // Unix time (UTC) of the trace's t = 0; prices and time-of-use windows are looked up at
  // epoch + t. Default 2023-01-01T00:00:00Z, the start of the bundled price series.
  int64_t epoch_unix_s = 1672531200;

  int64_t total_gpus() const;
  // Index of the region named `name`; -1 when there is none.
  int64_t region_index(const std::string& name) const;
  uint32_t region_of(const NodeSpec& n) const { return pools[n.pool].region; }
  bool has_spot() const;  // any pool of capacity kSpot
};

// hot NVMe $0.10, warm SSD/HDD $0.02, cold object store $0.004 per GB-month (docs/COST.md).
std::vector<StorageTier> default_storage_tiers();

// Rental per GPU-hour of model m (catalog entry `gm`) in `pool`, before time-of-use
// discounts: the pool's override, else the catalog's — the reserved rate for owned and
// reserved pools, the on-demand rate for on-demand pools, and for spot pools the on-demand
// rate × SpotTerms::price_factor. on_demand_rate_usd_h: the on-demand rate whatever the
// pool's capacity (what a spot discount is taken off).
double on_demand_rate_usd_h(const Pool& pool, const GpuModel& gm, GpuModelId m);
double rental_rate_usd_h(const Pool& pool, const GpuModel& gm, GpuModelId m);

// A cluster of one region named `region` (timezone UTC, no prices) holding one pool named
// `pool` (default Pool fields) and no nodes yet: the skeleton of node lists read elsewhere.
ClusterSpec make_single_pool_cluster(const std::string& region, const std::string& pool);

// The quick homogeneous cluster behind `--gpus N`: ceil(N / gpus_per_node) nodes of
// `gpus_per_node` cards (the last node holds the remainder) of `model`, in one region
// "default" (timezone UTC) and one pool "default". CPU and memory are not tracked.
ClusterSpec make_homogeneous_cluster(int64_t gpus, GpuModelId model, int gpus_per_node = 8);

}  // namespace frugal
