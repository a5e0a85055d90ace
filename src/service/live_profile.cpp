#include "service/live_profile.h"

#include <fmt/format.h>

#include "policy/frugal_profile.h"
#include "policy/profile.h"
#include "policy/tiers.h"

namespace frugal {

Result<Profile> live_profile(const std::string& policy, const ServiceConfig& config) {
  if (split_policy(policy).base == "recorded")
    return Error{fmt::format(
        "policy: '{}' replays the first starts a trace records (frugal whatif); it is not a "
        "policy the live service can run",
        policy)};
  if (policy == "tiers") {
    TierOptions o;
    o.checkpoint_grace_s = config.checkpoint_grace_s;
    o.max_candidates = config.max_jobs_per_cycle;  // bounded work per cycle, as the walk
    return make_tiers_profile(o);
  }
  if (policy == "frugal" || policy.rfind("frugal:", 0) == 0) {
    Result<FrugalOptions> o = parse_frugal_options(policy.size() > 7 ? policy.substr(7) : "");
    if (!o.ok()) return Error{fmt::format("policy: {}", o.error().message)};
    FrugalOptions fo = std::move(o).value();
    fo.tiers.checkpoint_grace_s = config.checkpoint_grace_s;  // as the service's stop plan
    fo.tiers.max_candidates = config.max_jobs_per_cycle;
    return make_frugal_profile(fo);
  }
  Result<Profile> p = make_profile(policy);
  if (!p.ok()) return Error{fmt::format("policy: {}", p.error().message)};
  return p;
}

EngineOptions service_engine_options(const GpuCatalog& catalog, size_t max_jobs_per_cycle,
                                     bool powers_nodes) {
  EngineOptions o;
  o.walk_limit = max_jobs_per_cycle;  // a deep queue: bounded work per cycle
  o.wake_at_expected_ends = true;     // jobs end when they end, not at their estimates
  // Speeds relative to the catalog's reference model (as `simulate` defaults), so that
  // heterogeneity-aware policies (tiers/hetero, frugal-place) see H100 faster than A100.
  if (auto ref = catalog.find("A100-80GB")) o.reference_model = *ref;
  // On-demand pools are autoscaled where the backend powers their nodes (Slurm power
  // saving, service/scheduler_capacity.cpp); elsewhere they are static (always provisioned).
  o.static_capacity = !powers_nodes;
  return o;
}

}  // namespace frugal
