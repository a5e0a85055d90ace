#pragma once
// Spot placement: the `frugal` profile's cycle plugin for spot capacity (Capacity::kSpot).
// It acts only on clusters with a spot pool; elsewhere it changes nothing (it then neither
// guards nor ranks). Baselines have none of it: for them spot nodes are cheaper on-demand
// nodes that any job may use, provisioned in node order like every other on-demand node.
//
// Guard point: SpotGuard (policy/spot_cost.h) — a job goes on a spot node only where the
// expected saving beats the expected rework; core-tier work never (unless the pool allows).
// Provision ranking: every rented node ranks by its marginal cost of one GPU over the next
// hour (RegionCost, as follow-the-sun ranks them), so spot, being cheaper, comes first. Demand
// point: when queued jobs (the autoscaler's look-ahead) that may not use spot ("barred") want
// more GPUs of a model that has spot than its non-spot nodes have free, that model's demand
// becomes the barred gap, as far as on-demand nodes not up can add it, plus what the other
// queued jobs want beyond the free spot GPUs; while the barred gap gets on-demand nodes, that
// model's spot nodes rank last (so the nodes added are on-demand ones: the barred jobs' first,
// and, this coarse, the others' too that cycle). A barred gap no on-demand node can fill adds
// nothing: spot nodes would not serve it.

#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

std::unique_ptr<CyclePlugin> make_spot_placement();

}  // namespace frugal
