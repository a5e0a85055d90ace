#include "drivers/slurm_power.h"

#include <algorithm>

namespace frugal {

PowerState power_of(const SlurmNode& n, const std::string& reclaim_reason) {
  const auto has = [&n](const char* f) {
    return std::find(n.flags.begin(), n.flags.end(), f) != n.flags.end();
  };
  if (n.state == "down" && has("POWERED_DOWN")) return PowerState::kFailed;
  if (has("POWER_UP") || has("POWERING_UP")) return PowerState::kBooting;
  if (has("POWERED_DOWN") || has("POWERING_DOWN") || has("POWER_DOWN")) return PowerState::kOff;
  if ((has("DRAIN") || has("DRAINING") || has("DRAINED")) && !reclaim_reason.empty() &&
      n.reason.rfind(reclaim_reason, 0) == 0)
    return PowerState::kReclaiming;
  return PowerState::kOn;
}

void PowerTracker::track(const std::string& node, PowerState p) {
  nodes_[node] = Track{p, std::nullopt, 0, -1};
}

PowerState PowerTracker::reported(const std::string& node) const {
  const auto it = nodes_.find(node);
  return it == nodes_.end() ? PowerState::kOn : it->second.reported;
}

void PowerTracker::requested(const std::string& node, bool up, double now) {
  Track& t = nodes_[node];
  t.want_up = up;
  t.asked_at = now;
  t.hold_until = -1;
}

void PowerTracker::request_failed(const std::string& node, double now) {
  Track& t = nodes_[node];
  t.want_up.reset();
  t.reported = PowerState::kFailed;
  t.hold_until = now + hold_s_;
}

std::optional<PowerState> PowerTracker::observe(const std::string& node, PowerState seen,
                                                double now) {
  const auto it = nodes_.find(node);
  if (it == nodes_.end()) return std::nullopt;
  Track& t = it->second;
  if (now < t.hold_until) return std::nullopt;
  if (t.want_up) {
    const bool up = *t.want_up;
    const bool visible =
        up ? seen != PowerState::kOff : seen == PowerState::kOff || seen == PowerState::kFailed;
    if (visible) {
      t.want_up.reset();
    } else if (now - t.asked_at < settle_s_) {
      return std::nullopt;  // Slurm has not shown the request yet
    } else {
      t.want_up.reset();  // it never showed: report what Slurm shows
    }
  }
  if (seen == t.reported) return std::nullopt;
  t.reported = seen;
  return seen;
}

}  // namespace frugal
