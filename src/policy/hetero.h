#pragma once
// Heterogeneity-aware placement (`hetero`): a Filter that orders a job's candidate GPU
// models by what the job's class needs, and a Placer that honours that order.
//
// The throughput matrix (job class × GPU model) is the catalog's per-class speed
// (data/catalog/gpus.yaml; replace it with --catalog). Rates are the rental dollars per
// GPU-hour of each model in this cluster: the cheapest pool holding it, reserved rate for
// owned/reserved pools, on-demand list rate otherwise, after the pool's rental overrides
// (the same figure as Pricing::cheapest_rate).
//
// Preference order (ties → catalog order):
//   core work   — class pretrain, or tier core: highest speed for its class first
//                 (finishes soonest); ties → lower rate.
//   auxiliary   — finetune, eval, preprocess: lowest cost per unit of work first
//                 (rate ÷ speed for its class); ties → higher speed. A model on which the job
//                 would miss its deadline (now + estimate ÷ speed > deadline) moves behind
//                 every model that meets it; those are ordered fastest first. Such a model
//                 is dropped altogether while some model, waiting for running jobs'
//                 expected ends (as for core work below), would still meet the deadline:
//                 the job waits for it rather than start where it is sure to be late.
// Fallback: the placer takes the first model in that order that has room now, so a job whose
// preferred model is full runs on the next one instead of waiting. For core work a slower
// model stays a fallback when starting on it now is estimated to finish no later than waiting
// for a faster candidate (the wait estimated from running jobs' expected ends, as backfill
// does, which the core jobs ahead of it in this cycle's walk that were left waiting take
// first, each on the model it would finish soonest on; where they take all that the running
// jobs release, the job has no estimated start on the model; a job running past its expected
// end frees its GPUs at an unknown time and is not counted), or — for a model at least
// kCoreFallbackSpeedFraction as fast as the best — when it finishes no later than waiting plus one
// run on the best model: a fallback at most doubles the job's estimated completion time. (Before
// that bound, core work fell back to any model within the fraction unconditionally, and 8-GPU
// pretrain jobs of 7–11 A100-days ran 43 days on L4 in the two-region demo; docs/EXPERIMENTS.md.)
// Otherwise the job waits for the faster model. Auxiliary work falls back (its preferred models are
// the cheap, plentiful ones) except to a model that would miss its deadline while another would
// still meet it (above). Within a model the wrapped placer (bestfit) picks the GPUs.

#include <memory>
#include <vector>

#include "framework/plugins.h"

namespace frugal {

// Rental USD per GPU-hour per model id (index = GpuModelId, catalog size): the cheapest of
// its pools (rental_rate_usd_h, so a spot pool counts at its spot rate); < 0 where the
// cluster holds no GPU of that model.
std::vector<double> model_rates(const ClusterSpec& spec, const GpuCatalog& catalog);

// Whether the job counts as core training for hetero placement.
bool is_core_work(const JobSpec& job);

// Orders `models` for `job` as described above. `speed(m)` is the job's speed on m,
// `rates` as from model_rates().
std::vector<GpuModelId> hetero_order(const JobSpec& job, std::vector<GpuModelId> models,
                                     const std::vector<double>& speeds_by_model,
                                     const std::vector<double>& rates, Seconds now);

// How auxiliary work is ordered.
enum class AuxOrder {
  // "hetero": the cost-per-work order above.
  kCostPerWork,
  // "hetero-fast": fastest model first, always (cost per work breaks ties). On reserved
  // capacity this trades some oversized waste for shorter auxiliary jobs; see
  // docs/EXPERIMENTS.md for when it wins.
  kFastest,
};

// Core work may fall back to a model at least this fraction as fast as its best candidate
// when that at most doubles its estimated completion; slower models only by the finish-time
// rule above. Chosen on ITP cluster04
// (docs/EXPERIMENTS.md): 0 left jobs waiting too long, 1/2.5 (= A100 vs H100) too.
inline constexpr double kCoreFallbackSpeedFraction = 0.1;

// Filter "hetero" / "hetero-fast": model-constraint's allowed models, reordered by
// hetero_order() and the fallback rules above.
std::unique_ptr<Filter> make_hetero_filter(AuxOrder aux = AuxOrder::kCostPerWork);
// Placer "ordered(<inner>)": tries the candidate models in order, one at a time, with
// `inner` choosing the GPUs; the first model that fits wins.
std::unique_ptr<Placer> make_ordered_placer(std::unique_ptr<Placer> inner);

}  // namespace frugal
