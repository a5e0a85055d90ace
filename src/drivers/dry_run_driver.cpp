#include "drivers/dry_run_driver.h"

#include <csignal>

namespace frugal {

Status DryRunDriver::stop(const std::string& handle, const StopPlan&) {
  for (const DriverEvent& e : pending_)
    if (e.handle == handle) return Status::Ok();
  // "dry:<job_id>:<restart>"
  const size_t a = handle.find(':'), b = handle.rfind(':');
  if (a == std::string::npos || b == a) return Error{"stop: not a dry-run handle"};
  DriverEvent e;
  e.kind = DriverEvent::Kind::kExited;
  e.job_id = handle.substr(a + 1, b - a - 1);
  e.handle = handle;
  e.term_signal = SIGTERM;
  e.message = "stopped (dry run)";
  pending_.push_back(std::move(e));
  return Status::Ok();
}

std::vector<DriverEvent> DryRunDriver::poll() {
  std::vector<DriverEvent> out;
  out.swap(pending_);
  return out;
}

}  // namespace frugal
