#pragma once
// The policy guard's rule (config `policy_guard:`, docs/WHATIF.md "Guarded policy changes"):
// compares the active policy's shadow with the fallback policy's shadow (sim/shadow.h) over
// the guard's window, at most every check_every_s, and says when to fall back: when the
// active one has been worse by more than a threshold — on any watched KPI — at every check
// for a whole window. Once it has said so it stays silent (hysteresis: no switch back by
// itself) until rearm(), which a person's policy change calls. Clock-free.

#include <optional>
#include <string>

#include "service/config.h"
#include "sim/shadow.h"

namespace frugal {

class PolicyGuard {
 public:
  explicit PolicyGuard(PolicyGuardConfig config) : config_(std::move(config)) {}

  const PolicyGuardConfig& config() const { return config_; }
  bool armed() const { return armed_; }
  // Since when the active policy has been worse at every check (< 0: it is not).
  double worse_since() const { return worse_since_; }
  // Whether a check is due at `now` (seconds, the caller's clock).
  bool due(double now) const {
    return last_check_ < 0 || now - last_check_ >= config_.check_every_s;
  }

  // Why `active` is worse than `fallback` by more than the thresholds ("" when it is not).
  std::string worse(const ShadowFigures& active, const ShadowFigures& fallback) const;

  // One check at `now`: the reason to fall back now, once the active policy has been worse
  // for window_s; nullopt otherwise. After a reason is returned the guard is disarmed.
  std::optional<std::string> check(const ShadowFigures& active, const ShadowFigures& fallback,
                                   double now);
  // A person chose the policy: watch again from scratch.
  void rearm();

 private:
  PolicyGuardConfig config_;
  bool armed_ = true;
  double worse_since_ = -1;
  double last_check_ = -1;
};

}  // namespace frugal
