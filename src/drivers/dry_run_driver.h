#pragma once
// The dry-run driver: carries out nothing. Started jobs "run" until stopped (a stop ends
// them at once, as if killed by SIGTERM); the inventory is whatever the config declares.
// For planning against a synthetic cluster (e.g. 10,000 nodes in bench/) and for measuring
// the service without spawning processes. Not thread-safe.

#include <string>
#include <vector>

#include "drivers/driver.h"

namespace frugal {

class DryRunDriver final : public Driver {
 public:
  // `nodes`: the inventory to report (the config's).
  explicit DryRunDriver(std::vector<NodeInventory> nodes) : nodes_(std::move(nodes)) {}

  std::string name() const override { return "dry-run"; }
  Result<Inventory> inventory() override {
    return Inventory{nodes_, "config", "dry-run backend: jobs are planned, not run"};
  }
  Result<std::string> start(const LaunchSpec& spec) override {
    return "dry:" + spec.job_id + ":" + std::to_string(spec.restart_count);
  }
  Status stop(const std::string& handle, const StopPlan& plan) override;
  Result<bool> adopt(const std::string&, const std::string& handle) override {
    return handle.rfind("dry:", 0) == 0;
  }
  std::vector<DriverEvent> poll() override;
  std::vector<GpuTelemetry> telemetry() override { return {}; }

 private:
  std::vector<NodeInventory> nodes_;
  std::vector<DriverEvent> pending_;
};

}  // namespace frugal
