#pragma once
// Dataset locality: place a job that declares datasets (JobSpec::datasets, ::dataset) on a
// node that already holds them on its hot tier (framework/dataset_residency.h), weighed
// against the placement the profile's Filter and Place chose.
//
// Size point (framework/cycle_plugin.h), after elastic sizing: for a job placed on one node
// n0 with k whole GPUs by the profile (model and all), every other node n of the same model
// that holds at least one of the job's datasets, is up, takes the job (host share, guard,
// health limit) and has k wholly free GPUs is scored, in GPU-hours:
//
//   stage(x) = k × staging seconds onto x ÷ 3600  +  staging USD onto x ÷ x's GPU-hour rate
//   worse(n) = max(0, wholly free GPUs of n − wholly free GPUs of n0)   (both before the job)
//   net(n)   = stage(n0) − stage(n) − worse(n) × fit_gpu_h
//
// where staging is what policy/staging_cost.h says (the GB of the job's datasets the node
// lacks ÷ its staging bandwidth; × the data region's egress price across regions) and the
// USD term is left out on a node without a rental price. The node with the largest net > 0
// (ties → lower node id) replaces n0; otherwise the placement stands. So a node holding the
// data wins outright at an equal or better fit, and a worse fit only when the staging it
// saves is worth more than fit_gpu_h GPU-hours (default 1) per wholly free GPU it leaves
// beyond the profile's choice: with the defaults (1 GB/s, in-region staging free) an
// 8-GPU job moves one GPU worse for ≥ 450 GB it would otherwise stage, never for a few GB;
// breaking up an empty 8-GPU node for a 1-GPU job that the profile fits exactly takes ≥ 7
// GPU-hours of staging saved (25 TB at 1 GB/s). The threshold is one number so tests and
// operators can reason about it.
//
// Fractional, CPU-only and multi-node jobs keep the profile's placement (multi-node jobs get
// their datasets staged on every node; locality among gangs is not scored). Jobs without
// datasets, or with no dataset known on any node, are untouched: the plugin changes nothing
// until a driver reports residency or the engine prefetches (policy/dataset_prefetch.h), so
// profiles carry it at no cost. It adds no word to Profile::describe().

#include <memory>
#include <optional>

#include "framework/cycle_plugin.h"
#include "policy/staging_cost.h"

namespace frugal {

// A better placement for `job` than `p` by the rule above on v.cluster() with v.datasets(),
// or nullopt when `p` stands.
std::optional<Placement> prefer_local(const CycleView& v, const JobSpec& job, const Placement& p,
                                      const DatasetOptions& o);

std::unique_ptr<CyclePlugin> make_dataset_locality(DatasetOptions o = {});

}  // namespace frugal
