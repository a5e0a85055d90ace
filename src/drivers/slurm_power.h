#pragma once
// Slurm power saving as frugal's capacity provider (docs/SLURM.md, "Cloud nodes"): how a
// node's power shows in Slurm's node state, and which changes the Slurm backend reports.
//
// power_of() reads slurmrestd v0.0.38's node state and flags (Slurm 22.05): POWER_UP or
// POWERING_UP → booting; down with POWERED_DOWN (`down~`, ResumeTimeout passed) → failed;
// POWERED_DOWN, POWERING_DOWN or POWER_DOWN → off; drained with a reason starting with
// `reclaim_reason` → reclaiming (a spot reclaim notice); anything else → on.
//
// PowerTracker decides what to report (DriverEvent::kPower) per power-managed node: each
// change of what Slurm shows, once, except while a request of frugal's is not yet visible
// (a power-up still seen off, a power-down still seen on or booting, for at most
// `settle_s` after the request) and while a node whose request failed is held as failed
// (`hold_s`, so that the engine does not retry it at once). Plain logic, no I/O, not
// thread-safe.

#include <map>
#include <optional>
#include <string>

#include "drivers/driver.h"
#include "drivers/slurm_types.h"

namespace frugal {

PowerState power_of(const SlurmNode& n, const std::string& reclaim_reason = "spot reclaim");

class PowerTracker {
 public:
  PowerTracker(double settle_s, double hold_s) : settle_s_(settle_s), hold_s_(hold_s) {}

  // Starts tracking `node` as last reported `p` (the state the engine starts from).
  void track(const std::string& node, PowerState p);
  bool tracks(const std::string& node) const { return nodes_.count(node) != 0; }
  // The state last reported for `node` (kOn for a node not tracked).
  PowerState reported(const std::string& node) const;
  // frugal asked for `node` on (up = true) or off at `now`.
  void requested(const std::string& node, bool up, double now);
  // The request failed at `now`: `node` is reported failed and held so for hold_s.
  void request_failed(const std::string& node, double now);
  // Slurm shows `seen` for `node` at `now`: the state to report, if any.
  std::optional<PowerState> observe(const std::string& node, PowerState seen, double now);

 private:
  struct Track {
    PowerState reported = PowerState::kOn;
    std::optional<bool> want_up;  // a request not yet seen in Slurm's state
    double asked_at = 0;
    double hold_until = -1;
  };
  double settle_s_, hold_s_;
  std::map<std::string, Track> nodes_;
};

}  // namespace frugal
