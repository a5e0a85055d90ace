#include "service/policy_guard.h"

#include <fmt/format.h>

namespace frugal {

std::string PolicyGuard::worse(const ShadowFigures& active, const ShadowFigures& fallback) const {
  std::string why;
  const auto add = [&why](std::string s) { why += (why.empty() ? "" : "; ") + s; };
  const size_t core = static_cast<size_t>(Tier::kCore);
  if (config_.core_p95_wait >= 0) {
    const double a = active.wait_by_tier_s[core].p95, f = fallback.wait_by_tier_s[core].p95;
    if (a > f * (1 + config_.core_p95_wait) && a - f > config_.min_wait_s)
      add(fmt::format("core p95 wait {:.0f} s vs {:.0f} s", a, f));
  }
  // Only while the active policy's shadow has work waiting: with an empty queue its idle
  // capacity is the workload's, not its choice (a policy ahead of the other has less left to
  // run, and on a fixed cluster a lower utilisation then says nothing against it).
  if (config_.usd_per_useful_gpu_hour >= 0 && active.queued > 0) {
    const double a = active.usd_per_useful_gpu_hour, f = fallback.usd_per_useful_gpu_hour;
    if (f > 0 && a > f * (1 + config_.usd_per_useful_gpu_hour))
      add(fmt::format("${:.2f} vs ${:.2f} per useful GPU-hour", a, f));
  }
  if (config_.deadline_misses >= 0) {
    const double a = static_cast<double>(active.deadline_misses);
    const double f = static_cast<double>(fallback.deadline_misses);
    if (a - f > config_.deadline_misses) add(fmt::format("{:.0f} deadline misses vs {:.0f}", a, f));
  }
  return why;
}

std::optional<std::string> PolicyGuard::check(const ShadowFigures& active,
                                              const ShadowFigures& fallback, double now) {
  last_check_ = now;
  if (!armed_) return std::nullopt;
  const std::string why = worse(active, fallback);
  if (why.empty()) {
    worse_since_ = -1;
    return std::nullopt;
  }
  if (worse_since_ < 0) worse_since_ = now;
  if (now - worse_since_ < config_.window_s) return std::nullopt;
  armed_ = false;
  worse_since_ = -1;
  return fmt::format("its shadow was worse than {}'s for {:.0f} s: {}", config_.fallback,
                     config_.window_s, why);
}

void PolicyGuard::rearm() {
  armed_ = true;
  worse_since_ = -1;
  last_check_ = -1;
}

}  // namespace frugal
