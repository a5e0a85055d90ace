#pragma once
// The host's CPU and memory load from Linux's /proc (the agent's HostLoad). CPU busy share
// is the change of /proc/stat's aggregate "cpu" line between two reads (busy = all but idle
// and iowait); memory used is MemTotal − MemAvailable from /proc/meminfo. `proc` is the
// folder to read (tests give a fake one). Not thread-safe (keeps the previous CPU read).

#include <cstdint>
#include <string>

#include "agent/telemetry_wire.h"
#include "model/result.h"

namespace frugal {

class HostLoadReader {
 public:
  explicit HostLoadReader(std::string proc = "/proc") : proc_(std::move(proc)) {}
  // The load since the previous call (the first call: cpu_busy unknown, -1). Error naming
  // the file when /proc cannot be read or parsed.
  Result<HostLoad> read();

 private:
  std::string proc_;
  bool have_prev_ = false;
  uint64_t prev_busy_ = 0, prev_total_ = 0;
};

}  // namespace frugal
