#pragma once
// The backend interface: a Driver carries out the engine's decisions in the world (local
// processes, a Slurm cluster, ...) and reports what happened there as events. The service
// (src/service) owns the engine and the clock; a driver owns processes, handles and the
// hardware view. Backend-neutral: a running job is named by an opaque string handle that
// the service persists (local: "pid:start_ticks", Slurm: the Slurm job id), so that after a
// service restart the job can be found again with adopt().
//
// Protocol (one thread, the service's decision loop, calls every method; implementations
// need not be thread-safe unless a method says so):
//   start(spec)            on a kStart decision        → handle, persisted with the job
//   stop(handle, plan)     on kSignal / kPreempt / cancel: checkpoint signal, grace,
//                          SIGTERM, term grace, SIGKILL (carried out asynchronously)
//   adopt(job, run, handle) after a restart, for each job persisted as running
//   poll(now)              every loop turn: exits since the last poll, node changes
//   telemetry()            GPU utilisation and memory, when the backend can see them
// Every job started or adopted ends with exactly one kExited event (or kLost / kEndedUnseen
// when its exit status cannot be known, e.g. an adopted local process that is not our child). So
// does every job reported by kForeign; adopt() of a foreign handle ("slurm-external:<id>") after a
// restart takes it back under the service's job id.

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/result.h"

namespace frugal {

// Fault injection for crash tests: called at named steps of the launch path with the job id;
// a test's hook kills the process there (serve.cpp: FRUGAL_FAULT_AT). Null: no hook.
using FaultHook = std::function<void(const char* step, const std::string& job_id)>;

// One GPU of a node as the backend sees it.
struct GpuInfo {
  int index = 0;           // device index on its node (CUDA_VISIBLE_DEVICES numbering)
  std::string model;       // product name as reported ("NVIDIA H100 80GB HBM3") or configured
  std::string uuid;        // empty when unknown
  int64_t memory_mib = 0;  // 0 when unknown
};

// A node's power as a backend that powers nodes up and down sees it (live capacity).
enum class PowerState : uint8_t {
  kOn,       // up and registered (every node of a backend that does not power nodes)
  kOff,      // powered down, or powering down
  kBooting,  // power-up requested or in progress
  kFailed,   // did not come up (e.g. Slurm's ResumeTimeout passed); stays so until repaired
  // A spot node's reclaim notice: the provider takes it back soon (Slurm: the site's notice
  // handler drained it with the reclaim reason, slurm.reclaim_reason).
  kReclaiming,
};
inline const char* to_string(PowerState p) {
  switch (p) {
    case PowerState::kOn:
      return "on";
    case PowerState::kOff:
      return "off";
    case PowerState::kBooting:
      return "booting";
    case PowerState::kFailed:
      return "failed";
    case PowerState::kReclaiming:
      return "reclaiming";
  }
  return "?";
}

struct NodeInventory {
  std::string name;
  std::vector<GpuInfo> gpus;           // empty: a CPU-only node
  std::vector<std::string> features;   // the backend's node features (Slurm: Feature=)
  PowerState power = PowerState::kOn;  // as the backend sees it (kOn where it cannot tell)
};

// What the backend found. `source` says where it came from ("nvml", "config", "slurm") and
// `note` is a sentence for the log (e.g. why NVML was not used).
struct Inventory {
  std::vector<NodeInventory> nodes;
  std::string source;
  std::string note;
};

// A process using a GPU: its pid on the node, its GPU memory, and the frugal job it belongs
// to where the sampler could tell (agent/process_jobs.h; "" unknown).
struct GpuProcess {
  int64_t pid = 0;
  int64_t memory_mib = -1;  // < 0 unknown
  std::string job;          // frugal job id (decimal), or "" when not mapped
  std::string slurm_job;    // Slurm job id when the process runs in one, else ""
  // Its share of the GPU's SMs over the last sample period, 0..1 (NVML's per-process
  // utilisation); < 0 unknown. What lets a job's own load be told from a guest's beside it.
  double utilization = -1;
};

// Instant readings of one GPU. Fields the backend cannot read are negative.
struct GpuTelemetry {
  std::string node;
  int gpu = 0;
  double utilization = -1;  // 0..1 over the backend's last sample period
  int64_t memory_used_mib = -1;
  int64_t memory_total_mib = -1;
  double power_w = -1;
  double temperature_c = -1;          // degrees Celsius
  std::vector<GpuProcess> processes;  // empty: none or unknown
};

// A share of one GPU (or, gpu = -1, a CPU-only share of a node) given to a job.
struct SlotAssignment {
  std::string node;
  int gpu = -1;
  int milli = 1000;  // 1000 = whole card
};

// Everything a backend needs to run one job once (one run segment).
struct LaunchSpec {
  std::string job_id;  // the service's job id; stable across restarts and requeues
  std::string team;
  std::string name;
  std::string command;  // shell text: local runs `/bin/sh -c command`
  std::string workdir;  // empty: the backend's default (local: the log directory)
  std::vector<std::pair<std::string, std::string>> env;  // added to the service's environment
  std::vector<SlotAssignment> slots;                     // from the engine's placement
  int64_t gpu_memory_limit_mib = 0;  // fractional jobs: their share of the card's memory
  int checkpoint_signal = SIGUSR1;   // the job's checkpoint signal (StopPlan sends it)
  int restart_count = 0;             // run segments before this one (FRUGAL_RESTART_COUNT)
  std::string tier = "general";      // core, important or general (Slurm: its job priority)
  std::string checkpoint_dir;        // per job, kept across restarts (FRUGAL_CHECKPOINT_DIR)
  std::string log_dir;               // stdout/stderr go to <log_dir>/<job_id>.{out,err}
  // The run's expected length (0: none): what is left of the request's estimate_s after the
  // work earlier runs kept, at this run's GPU speed. Only the dry-run backend reads it (its
  // runs end by themselves after it, when it has a time source).
  double run_s = 0;
};

// How to stop a running job: send `checkpoint_signal` (0: none), wait up to `grace_s`,
// then SIGTERM, wait up to `term_grace_s`, then SIGKILL. Stops early when the job exits.
struct StopPlan {
  int checkpoint_signal = SIGUSR1;
  double grace_s = 0;
  double term_grace_s = 10;
  // The job will run again (preemption, not cancellation): a backend that can keep it
  // queued does so (Slurm: requeue it held, same Slurm job id) instead of ending it.
  bool requeue = false;
};

struct DriverEvent {
  enum class Kind {
    kExited,  // job ended: exit_code (>= 0) or term_signal (> 0)
    kLost,    // job's process disappeared and its exit status cannot be known
    // The run began and ended unseen, and no exit status was recorded (the service was down
    // and the status could not be written, or the process was killed): the job may or may
    // not have done its work, so the service does not run it again blindly (state unknown).
    kEndedUnseen,
    kNodeUp,    // node reports again
    kNodeDown,  // node stopped reporting or failed; its jobs are gone (kExited/kLost follow)
    // The backend's control plane stopped answering (message: why) / answers again. Once
    // per outage; nothing else is reported in between, as nothing is seen.
    kBackendDown,
    kBackendUp,
    // A job the backend runs that this service did not start (e.g. submitted to Slurm
    // directly) now holds `slots` since `start_unix`: its GPUs are taken. `handle` names it
    // for adopt() and its one later kExited / kLost (whose job_id is "" unless adopted under
    // a job id); `owner` is who submitted it (Slurm: account or user), `job_id` its name.
    kForeign,
    // A node the backend powers (Driver::power_up/power_down) is now `power`: after a request,
    // or found so (powered up or down outside frugal); kFailed: message says why.
    kPower,
  };
  Kind kind = Kind::kExited;
  std::string job_id;  // kExited / kLost
  std::string handle;  // kExited / kLost
  std::string node;    // kNodeUp / kNodeDown
  int exit_code = -1;
  int term_signal = 0;
  std::string message;  // human-readable detail
  // kExited / kLost: when the job ended (Unix s) if the driver knows it and it is earlier
  // than the report (a job that ended while the service was down); <= 0: at the report.
  double ended_unix = 0;
  // kExited / kLost / kEndedUnseen: the job's output passed the backend's cap and was cut
  // there (local: max_output_bytes per stream).
  bool output_truncated = false;
  // kForeign only.
  std::vector<SlotAssignment> slots;
  std::string owner;
  double start_unix = 0;
  // kPower only.
  PowerState power = PowerState::kOn;
};

class Driver {
 public:
  virtual ~Driver() = default;

  // Backend name ("local", "slurm", ...). Thread-safe.
  virtual std::string name() const = 0;
  // The nodes and GPUs this backend runs on; called once at service start. Error when the
  // backend cannot be used at all.
  virtual Result<Inventory> inventory() = 0;
  // Launches one run segment of a job. Returns the handle to persist, or why it failed (the
  // job then failed to start; no kExited follows).
  virtual Result<std::string> start(const LaunchSpec& spec) = 0;
  // Begins stopping a running job per `plan` and returns at once; the job's kExited follows.
  // Idempotent: a second stop of the same handle only shortens nothing and errors nothing.
  virtual Status stop(const std::string& handle, const StopPlan& plan) = 0;
  // After a service restart: takes back a job persisted as running under `handle`. Returns
  // true when it still runs (its end will be reported), false when it is gone. `handle` is
  // empty when the service crashed after recording the start but before persisting what
  // start() returned; a backend that can find the job by `job_id` then does so (and
  // adopted_handle() tells under which handle), else it returns false.
  // `run` is the run's number (its LaunchSpec::restart_count): a backend that keeps per-run
  // records (local: exit and handle files) accepts only that run's.
  virtual Result<bool> adopt(const std::string& job_id, int run, const std::string& handle) = 0;
  // After adopt(job_id, "") returned true: the handle the job was found under. Default: "".
  virtual std::string adopted_handle(const std::string& job_id) {
    (void)job_id;
    return {};
  }
  // The engine deferred the job until `until_unix` (kDefer; `spec` has no slots). A backend
  // that can show the wait does (Slurm: a held job with that begin time, placed and released
  // by the later start()). Default: nothing to do.
  virtual void deferred(const LaunchSpec& spec, double until_unix) {
    (void)spec;
    (void)until_unix;
  }
  // The job will not run again (cancelled while waiting): a backend that kept something
  // queued for it (Slurm: a requeued job) removes it. Default: nothing to do.
  virtual void discard(const std::string& job_id) { (void)job_id; }
  // Live capacity. After inventory(): power `nodes` (the service config's on-demand pools'
  // nodes) up and down on request from now on, reporting their power (kPower) from the state
  // inventory() gave. Error when the backend cannot (default: every backend but Slurm).
  virtual Status manage_power(const std::vector<std::string>& nodes) {
    if (nodes.empty()) return Status::Ok();
    return Error{"the " + name() + " backend does not power nodes up and down"};
  }
  // Whether manage_power() was given nodes.
  virtual bool powers_nodes() const { return false; }
  // Queues a power-up / power-down of `node` (the engine's kProvision / kRelease) and returns
  // at once; what happened comes back as kPower events. Default: nothing (never called when
  // powers_nodes() is false).
  virtual void power_up(const std::string& node) { (void)node; }
  virtual void power_down(const std::string& node) { (void)node; }
  // Non-blocking: events since the last call, in the order they were observed.
  virtual std::vector<DriverEvent> poll() = 0;
  // Latest readings of every GPU the backend can see (empty without telemetry).
  virtual std::vector<GpuTelemetry> telemetry() = 0;
};

}  // namespace frugal
