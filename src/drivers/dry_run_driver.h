#pragma once
// The dry-run driver: carries out nothing. Started jobs "run" until stopped (a stop ends
// them at once, as if killed by SIGTERM); the inventory is whatever the config declares.
// For planning against a synthetic cluster (e.g. 10,000 nodes in bench/) and for measuring
// the service without spawning processes. Given a time source, a run with a run time
// (LaunchSpec::run_s > 0) also ends by itself, exit 0, run_s after its start: the service
// then replays a workload as the simulator would (its ledger test drives it on a
// ManualClock). Not thread-safe, but for next_end(), which any thread may call.

#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "drivers/driver.h"

namespace frugal {

class DryRunDriver final : public Driver {
 public:
  // `nodes`: the inventory to report (the config's).
  // `now`: Unix seconds, for runs that end by themselves; empty: runs end only when stopped.
  explicit DryRunDriver(std::vector<NodeInventory> nodes, std::function<double()> now = {})
      : nodes_(std::move(nodes)), now_(std::move(now)) {}

  std::string name() const override { return "dry-run"; }
  Result<Inventory> inventory() override {
    return Inventory{nodes_, "config", "dry-run backend: jobs are planned, not run"};
  }
  Result<std::string> start(const LaunchSpec& spec) override;
  Status stop(const std::string& handle, const StopPlan& plan) override;
  Result<bool> adopt(const std::string&, int, const std::string& handle) override {
    return handle.rfind("dry:", 0) == 0;
  }
  std::vector<DriverEvent> poll() override;
  std::vector<GpuTelemetry> telemetry() override { return {}; }

  // When the next run that ends by itself ends (Unix s; infinity when none runs): what a
  // driver of simulated time (a test moving a ManualClock from event to event) moves to next.
  double next_end() const {
    std::lock_guard lock(mu_);
    return ends_.empty() ? std::numeric_limits<double>::infinity() : ends_.begin()->first.first;
  }
  // Stopped runs whose exit the next poll() reports: such a driver settles an instant (its
  // service's turns at one time) until there are none.
  size_t stops_unreported() const {
    std::lock_guard lock(mu_);
    return pending_.size();
  }

 private:
  std::vector<NodeInventory> nodes_;
  std::function<double()> now_;
  mutable std::mutex mu_;  // ends_ and pending_: written by the service's thread, read by
                           // next_end() and stops_unreported()
  std::vector<DriverEvent> pending_;
  // Runs that end by themselves: (end, handle) → job id, in end order.
  std::map<std::pair<double, std::string>, std::string> ends_;
};

}  // namespace frugal
