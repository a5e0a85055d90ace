#pragma once
// What staging a job's datasets onto a node costs (policy/dataset_locality.h,
// policy/dataset_prefetch.h): the GB of its datasets the node does not hold
// (framework/dataset_residency.h), the time to copy them at the node's staging bandwidth, and
// their transfer price — the egress price of the job's data region (JobSpec::data_region,
// src/cost/transfer.h) when the node is in another region, else DatasetOptions'
// in_region_usd_per_gb. Pure functions.

#include "cluster/cluster_state.h"
#include "framework/dataset_residency.h"
#include "model/gpu_catalog.h"
#include "model/job.h"

namespace frugal {

struct DatasetOptions {
  // A node's staging bandwidth onto its hot tier when the driver reported none (GB/s; about
  // a 10 Gb/s link from the shared tier).
  double staging_gb_per_s = 1.0;
  // Price per GB of staging from the shared tier in the data's own region (USD; 0: the
  // cluster's own network).
  double in_region_usd_per_gb = 0;
  // Locality: what one more wholly free GPU left on the chosen node than on the inner
  // placer's choice (a worse fit) is worth, in GPU-hours of that node.
  double fit_gpu_h = 1.0;
  // Prefetch: staging is planned to end this long before the job's planned start (s).
  double prefetch_margin_s = 300;
};

struct StagingCost {
  double gb = 0;       // the job's datasets of known size that node lacks
  double seconds = 0;  // gb ÷ the node's staging bandwidth
  double usd = 0;      // gb × the per-GB price
};

// Staging `job`'s datasets onto node n of `st`, given what `d` says n holds.
StagingCost staging_cost(const ClusterState& st, const DatasetResidency& d, const JobSpec& job,
                         NodeId n, const DatasetOptions& o);

// One GPU-hour of node n at its pool's rental rate (USD); 0 for a CPU-only node or no price.
double gpu_hour_usd(const ClusterState& st, const GpuCatalog& catalog, NodeId n);

}  // namespace frugal
