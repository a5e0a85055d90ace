#pragma once
// Which job a GPU process belongs to, read from Linux's /proc: FRUGAL_JOB_ID (set by every
// frugal backend in a run's environment) and SLURM_JOB_ID from the process's environment,
// else from its nearest ancestor's that has them (at most 32 levels up); failing those, a
// Slurm job cgroup ("/job_<id>/" in /proc/<pid>/cgroup, Slurm's cgroup plugins) gives the
// Slurm job. A process whose environment cannot be read (another user's, without root) is
// judged by its ancestors and cgroup. Answers are cached per (pid, start time), so a reused
// pid is read afresh; an answer from an empty environment is not cached. `proc` is the folder to
// read (tests give a fake one). Not thread-safe.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "drivers/driver.h"

namespace frugal {

class ProcessJobs {
 public:
  struct Owner {
    std::string job;        // frugal job id, "" unknown
    std::string slurm_job;  // Slurm job id, "" none
  };
  explicit ProcessJobs(std::string proc = "/proc") : proc_(std::move(proc)) {}

  Owner owner(int64_t pid);
  // Sets job and slurm_job of every process of `gpus`.
  void map(std::vector<GpuTelemetry>& gpus);
  // Forgets cached processes not asked about since the previous call (bounds the cache).
  void prune();

 private:
  struct Stat {
    int64_t ppid = 0;
    uint64_t start = 0;
  };
  bool stat(int64_t pid, Stat& s) const;
  // `read`: set when the environment held at least one variable.
  Owner from_environ(int64_t pid, bool* read) const;
  std::string slurm_cgroup(int64_t pid) const;

  std::string proc_;
  std::map<std::pair<int64_t, uint64_t>, Owner> cache_, used_;
};

}  // namespace frugal
