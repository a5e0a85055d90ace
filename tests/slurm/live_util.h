#pragma once
// Helpers for the tests against the real local Slurm (CTest label `slurm`). The CTest
// fixture `slurm_cluster` starts it (scripts/slurm-local.sh start --clean) before these
// tests and stops it after. When the fixture could not start Slurm on this machine (not
// root, packages not installable) it leaves the reason in FRUGAL_SLURM_UNAVAILABLE and the
// tests skip with that message; otherwise a cluster that does not answer fails them.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "drivers/slurm_client.h"

namespace frugal::live {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Non-empty: why the local cluster is not available here.
inline std::string unavailable_reason() {
  const std::string r = read_text(FRUGAL_SLURM_UNAVAILABLE);
  return r;
}

#define FRUGAL_REQUIRE_SLURM()                                            \
  do {                                                                    \
    const std::string why = ::frugal::live::unavailable_reason();         \
    if (!why.empty()) GTEST_SKIP() << "local Slurm unavailable: " << why; \
  } while (0)

inline SlurmConfig config() {
  SlurmConfig c;
  if (const char* url = std::getenv("FRUGAL_SLURM_REST")) c.rest_url = url;
  c.partition = "gpu";
  c.timeout_s = 10;
  return c;
}

// Polls `pred` every 0.1 s until it holds or `timeout_s` passes; returns whether it held.
template <class F>
bool wait_until(F pred, double timeout_s) {
  // Bounds are upper limits for a hang, not timings: tripled, because a loaded 2-core CI
  // machine once took longer than 20 s to run a requeued job again.
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 3000));
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return pred();
}

// A fresh directory for one test's job outputs (jobs run as root on this host).
inline std::string job_dir(const std::string& test) {
  const std::string d = "/tmp/frugal-slurm-tests/" + test + "-" + std::to_string(getpid());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// The job's state once `pred(job)` holds (polling), or an error message.
template <class F>
Result<SlurmJob> wait_job(SlurmClient& c, int64_t id, F pred, double timeout_s) {
  SlurmJob last;
  std::string err;
  const bool ok = wait_until(
      [&] {
        auto j = c.job(id);
        if (!j.ok()) {
          err = j.error().message;
          return false;
        }
        last = j.value();
        return pred(last);
      },
      timeout_s);
  if (ok) return last;
  return Error{"job " + std::to_string(id) + " not in the expected state after " +
               std::to_string(3 * timeout_s) + " s: state " + last.state + " reason " +
               last.reason + (err.empty() ? "" : " (last error: " + err + ")")};
}

inline int64_t now_unix() {
  return static_cast<int64_t>(std::time(nullptr));
}

inline std::string script(const std::string& body) {
  return "#!/bin/bash\n" + body + "\n";
}

}  // namespace frugal::live
