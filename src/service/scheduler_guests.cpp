// Scheduler: guests on measured idle (`sharing:`, policy/lend_idle.h). A guest runs on one
// GPU its host job holds, its share of the card (the MPS limit) from the host's measured
// headroom. The service keeps its host's id (Live::guest_of, and "guest_of" in its stored
// placement), launches it with the share's limits, and prices its segments as the guest's
// share taken out of the host's idle (RunAccounting::guest_segment). After a restart a
// guest's run is stopped and requeued, not adopted: the lend plugin judges its host afresh.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "service/scheduler.h"

namespace frugal {

int64_t Scheduler::guest_host(const std::string& placement_text) {
  if (placement_text.find("guest_of") == std::string::npos) return 0;
  const auto j = nlohmann::json::parse(placement_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  const auto it = j.find("guest_of");
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

void Scheduler::account_segment(RunAccounting& acc, const Live& l, const Placement& p, double t0,
                                double t1, double kept_s) const {
  const JobIdx j = ledger_index(l.rec.id);
  const double u = measured_utilization(l);
  const int64_t host = l.guest_of > 0 ? l.guest_of : guest_host(l.rec.placement);
  if (host > 0)
    if (const auto h = jobs_.find(host); h != jobs_.end()) {
      acc.guest_segment(j, *l.spec, ledger_index(host), *h->second.spec, p, t0, t1, kept_s, u);
      return;
    }
  acc.segment(j, *l.spec, p, t0, t1, kept_s, u);
}

void Scheduler::guest_limits(const Live& l, LaunchSpec& s) const {
  const auto h = jobs_.find(l.guest_of);
  if (h == jobs_.end() || l.placement.slots.empty()) return;
  // Memory: what the lend rule leaves beside the host's peak over its window (and no more
  // than a fractional guest's own share of the card).
  const Slot& slot = l.placement.slots.front();
  int64_t card = catalog_.at(l.placement.model).memory_mib;
  if (const auto it = gpu_memory_mib_.find(cluster_.nodes[slot.node].name);
      it != gpu_memory_mib_.end() && static_cast<size_t>(slot.gpu) < it->second.size() &&
      it->second[slot.gpu] > 0)
    card = it->second[slot.gpu];
  const std::optional<MeasuredUse> host = h->second.use.summary(use_rules());
  const double host_memory = host && host->memory_frac >= 0 ? host->memory_frac : 0;
  const double free = std::max(0.0, config_.sharing.memory_below - host_memory);
  int64_t limit = static_cast<int64_t>(std::floor(static_cast<double>(card) * free));
  if (s.gpu_memory_limit_mib > 0) limit = std::min(limit, s.gpu_memory_limit_mib);
  s.gpu_memory_limit_mib = std::max<int64_t>(1, limit);
  s.env.emplace_back("FRUGAL_GUEST_OF", std::to_string(l.guest_of));
}

}  // namespace frugal
