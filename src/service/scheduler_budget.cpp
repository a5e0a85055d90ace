// Scheduler: the spend rates the budget_burn alert watches (alerts.budget_burn;
// service/alerts.h). Priced with the live ledger's own Pricing at the last minute's prices:
// every running job's GPUs at its utilisation (measured, else its spec's), charged to its
// team, plus every provisioned GPU no job holds at idle power — what the ledger charges for
// that time, before it books it (the ledger books a run when its segment ends and idle
// capacity per constant stretch, so its totals move in steps; the rate does not).
#include <algorithm>
#include <array>
#include <utility>

#include "service/scheduler.h"

namespace frugal {

void Scheduler::spend_rates(double now, UsageReading& r) const {
  const Pricing& pricing = accounting_->pricing();
  const ClusterState& st = engine_->cluster();
  const Seconds t1 = engine_time(now), t0 = t1 - 60;
  // Pricing is linear in GPUs and in utilisation: per centre, one GPU's USD per hour idle
  // and the extra at full use.
  std::vector<std::array<double, 2>> unit(st.centre_count(), {0.0, 0.0});
  for (uint32_t c = 0; c < st.centre_count(); ++c) {
    if (st.centre_model(c) == kNoGpuModel) continue;
    const double idle = pricing.span(c, 1, 0, t0, t1).total_usd() * 60;
    unit[c] = {idle, pricing.span(c, 1, 1, t0, t1).total_usd() * 60 - idle};
  }
  r.burn_usd_h = r.idle_usd_h = 0;
  r.teams_usd_h.clear();
  for (const auto& [id, l] : jobs_) {
    // A guest's card is paid by its host (the ledger's guest_segment nets it out).
    if (l.rec.state != JobStatus::kRunning || l.guest_of > 0) continue;
    const double measured = measured_utilization(l);
    const double u = measured >= 0 ? measured : l.spec->utilization;
    double rate = 0;
    for (const Slot& s : l.placement.slots) {
      if (s.gpu < 0) continue;
      const auto& [idle, busy] = unit[st.centre_of(s.node)];
      rate += static_cast<double>(s.milli) / kMilliPerGpu * (idle + busy * u);
    }
    r.burn_usd_h += rate;
    r.teams_usd_h[l.rec.team] += rate;
  }
  // Provisioned GPUs nobody holds, at idle power: the ledger's idle_unallocated and stranded.
  const std::vector<int64_t>& provisioned = engine_->nodes().provisioned_gpus();
  for (uint32_t c = 0; c < st.centre_count() && c < provisioned.size(); ++c) {
    const double free = static_cast<double>(provisioned[c]) -
                        static_cast<double>(st.centre_allocated_milli(c)) / kMilliPerGpu;
    r.idle_usd_h += std::max(0.0, free) * unit[c][0];
  }
  r.burn_usd_h += r.idle_usd_h;
}

BurnRates Scheduler::burn_rates(double now) const {
  BurnRates v;
  if (!config_.alerts.budget_burn_on() || !accounting_) return v;
  UsageReading r;
  spend_rates(now, r);
  v.cluster_usd_h = r.burn_usd_h;
  v.teams = std::move(r.teams_usd_h);
  return v;
}

}  // namespace frugal
