#pragma once
// The local driver: runs each job as a child process on this host.
//
//  - `/bin/sh -c command` in its own process group (under a small sh wrapper that records
//    the exit status in <log_dir>/<job>.<run>.exit, so it survives a service restart; the
//    wrapper traps the checkpoint signal, TERM, INT and HUP so it outlives the job, which
//    sees them with default dispositions), in the job's
//    workdir (default: the log directory), stdin from /dev/null, stdout/stderr appended to
//    <log_dir>/<job>.out/.err;
//  - environment: the service's, the job's `env`, and
//      CUDA_VISIBLE_DEVICES               the placement's GPU indices ("" for CPU-only jobs)
//      FRUGAL_JOB_ID, FRUGAL_RESTART_COUNT, FRUGAL_CHECKPOINT_DIR (created if missing)
//    and for a fractional job (a share of one card, milli < 1000):
//      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE  ceil(milli / 10): its share of the card's SMs
//                                         under NVIDIA MPS
//      CUDA_MPS_PINNED_DEVICE_MEM_LIMIT   "<gpu>=<N>M": MPS's per-client memory cap
//      FRUGAL_GPU_MEMORY_LIMIT_MIB        N, the same cap for frameworks to read (e.g.
//                                         torch.cuda.set_per_process_memory_fraction)
//      FRUGAL_GPU_MILLI                   the share in milli-GPU
//    (MPS itself is the operator's to run; without it the variables are advisory.)
//  - stop: checkpoint signal to the group, grace, SIGTERM, term grace, SIGKILL; stragglers
//    in the group are killed when the leader exits;
//  - handles are "pid:start_ticks"; adopt() finds a process again after a service restart
//    by both (a recycled pid has another start time). An adopted process is not our
//    child: its end is seen in /proc and its status read from its run's .exit file
//    (kEndedUnseen when that is missing, e.g. the job was SIGKILLed). A run that ended while
//    the service was down is adopted and its kExited (or kEndedUnseen, without a status)
//    comes with the next poll; a run whose exit file says "gate-closed" never began and is
//    not adopted; an earlier run's file never counts (<run> is the run's restart count).
//  - exactly once: start() spawns the wrapper held at a gate (a pipe), writes the run's
//    handle file <log_dir>/<job>.<run>.handle, and only then lets the command begin. A
//    crash before the gate opens leaves a wrapper that exits without running the command;
//    after it, adopt(job, run, "") finds the run by its handle file. So whatever the point
//    of a crash, a restarted service either adopts the one run or knows none began.
//  - inventory: NVML when it loads, else the configured GPUs (the note says which).
//
// Not thread-safe: the service's decision loop calls it.

#include <sys/types.h>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/process_jobs.h"
#include "drivers/driver.h"
#include "drivers/nvml.h"

namespace frugal {

struct LocalDriverOptions {
  std::string node_name = "localhost";
  // Used when NVML finds no GPU: the GPUs the config declares (may be empty: CPU-only).
  std::vector<GpuInfo> configured_gpus;
  bool use_nvml = true;
  // Where jobs' per-run exit and handle files live (the service's log directory); adopt()
  // looks there.
  std::string log_dir = "frugal-logs";
  // Fault injection for tests (null: none): called at each step of start() with the step's
  // name ("spawned", "handle_written", "released") and the job id; a test hook kills the
  // process there to check that a crash at any step leads to one run.
  FaultHook fault;
  // Each job's stdout and stderr are cut to this many bytes (0: no cap); checked about once a
  // second while it runs and when it ends, so a file may pass the cap by what the job
  // writes in a second until the next check cuts it back. Output past the cap is dropped.
  int64_t max_output_bytes = 0;
};

class LocalDriver final : public Driver {
 public:
  explicit LocalDriver(LocalDriverOptions options);
  ~LocalDriver() override;

  std::string name() const override { return "local"; }
  Result<Inventory> inventory() override;
  Result<std::string> start(const LaunchSpec& spec) override;
  Status stop(const std::string& handle, const StopPlan& plan) override;
  Result<bool> adopt(const std::string& job_id, int run, const std::string& handle) override;
  std::string adopted_handle(const std::string& job_id) override {
    const auto it = handle_found_.find(job_id);
    return it == handle_found_.end() ? std::string() : it->second;
  }
  std::vector<DriverEvent> poll() override;
  std::vector<GpuTelemetry> telemetry() override;

 private:
  using Clock = std::chrono::steady_clock;
  struct Proc {
    std::string job_id;
    std::string handle;
    pid_t pid = 0;
    uint64_t ticks = 0;
    bool child = true;      // false: adopted after a restart (not waitable)
    std::string exit_file;  // where the wrapper writes the job's exit status
    std::string out_path, err_path;
    bool output_truncated = false;
    Clock::time_point output_checked;
    // Stop plan in progress (stage 0: none; 1: checkpoint signal sent; 2: SIGTERM sent;
    // 3: SIGKILL sent).
    int stage = 0;
    StopPlan plan;
    Clock::time_point stage_at;
  };
  void advance_stop(Proc& p, Clock::time_point now);
  // Cuts the job's output files back to max_output_bytes (at most once a second unless
  // `now_or_never`, at its end); notes the cut in p.
  void cap_output(Proc& p, Clock::time_point now, bool at_end);
  // <log_dir>/<job>.<run>.<what>: a run's exit-status or handle file.
  std::string run_file(const std::string& job_id, int run, const char* what) const;

  LocalDriverOptions options_;
  std::unique_ptr<Nvml> nvml_;
  ProcessJobs process_jobs_;           // GPU processes → jobs (telemetry(), on the loop's thread)
  std::map<std::string, Proc> procs_;  // by handle
  std::vector<DriverEvent> ended_;     // adopted jobs found already ended (next poll)
  std::map<std::string, std::string> handle_found_;  // job → handle adopt() read from disk
};

}  // namespace frugal
