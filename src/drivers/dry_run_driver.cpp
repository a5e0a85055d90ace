#include "drivers/dry_run_driver.h"

#include <csignal>

namespace frugal {

Result<std::string> DryRunDriver::start(const LaunchSpec& spec) {
  std::string handle = "dry:" + spec.job_id + ":" + std::to_string(spec.restart_count);
  if (now_ && spec.run_s > 0) {
    std::lock_guard lock(mu_);
    ends_[{now_() + spec.run_s, handle}] = spec.job_id;
  }
  return handle;
}

Status DryRunDriver::stop(const std::string& handle, const StopPlan&) {
  std::lock_guard lock(mu_);
  for (const DriverEvent& e : pending_)
    if (e.handle == handle) return Status::Ok();
  for (auto it = ends_.begin(); it != ends_.end(); ++it)
    if (it->first.second == handle) {
      ends_.erase(it);
      break;
    }
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
  const double now = now_ ? now_() : 0;
  std::lock_guard lock(mu_);
  std::vector<DriverEvent> out;
  out.swap(pending_);
  while (now_ && !ends_.empty() && ends_.begin()->first.first <= now) {
    DriverEvent e;
    e.kind = DriverEvent::Kind::kExited;
    e.job_id = ends_.begin()->second;
    e.handle = ends_.begin()->first.second;
    e.exit_code = 0;
    e.ended_unix = ends_.begin()->first.first;
    e.message = "ran its estimate (dry run)";
    out.push_back(std::move(e));
    ends_.erase(ends_.begin());
  }
  return out;
}

}  // namespace frugal
