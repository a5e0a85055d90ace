#include "drivers/local_driver.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "drivers/local_process.h"

namespace frugal {

// What the wrapper writes as the exit file when its gate closed before "go": the command
// never began.
constexpr std::string_view kGateClosed = "gate-closed";

LocalDriver::LocalDriver(LocalDriverOptions options) : options_(std::move(options)) {}

LocalDriver::~LocalDriver() = default;

Result<Inventory> LocalDriver::inventory() {
  Inventory inv;
  NodeInventory node;
  node.name = options_.node_name;
  std::string why = "NVML disabled by configuration";
  if (options_.use_nvml) {
    Result<std::unique_ptr<Nvml>> n = Nvml::load();
    if (n.ok()) {
      nvml_ = std::move(n).value();
      node.gpus = nvml_->gpus();
      if (!node.gpus.empty()) {
        inv.source = "nvml";
        inv.note = fmt::format("NVML found {} GPU(s) on this host", node.gpus.size());
        inv.nodes.push_back(std::move(node));
        return inv;
      }
      why = "NVML found no GPU";
    } else {
      why = n.error().message;
    }
  }
  node.gpus = options_.configured_gpus;
  inv.source = "config";
  inv.note = fmt::format("{}; using the {} GPU(s) the config declares{}", why, node.gpus.size(),
                         node.gpus.empty() ? " (a CPU-only node)" : "");
  inv.nodes.push_back(std::move(node));
  return inv;
}

namespace {

// The write end of a run's gate (local_process.h), closed on every path out of start().
struct Gate {
  explicit Gate(int f) : fd(f) {}
  int fd = -1;
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  ~Gate() { close(); }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

}  // namespace

Result<std::string> LocalDriver::start(const LaunchSpec& s) {
  std::error_code ec;
  std::filesystem::create_directories(s.log_dir, ec);
  if (ec) return Error{fmt::format("log directory {}: {}", s.log_dir, ec.message())};
  if (!s.checkpoint_dir.empty()) {
    std::filesystem::create_directories(s.checkpoint_dir, ec);
    if (ec)
      return Error{fmt::format("checkpoint directory {}: {}", s.checkpoint_dir, ec.message())};
  }
  std::vector<std::pair<std::string, std::string>> env = s.env;
  std::string visible;
  const SlotAssignment* fractional = nullptr;
  for (const SlotAssignment& slot : s.slots) {
    if (slot.gpu < 0) continue;
    if (!visible.empty()) visible += ',';
    visible += std::to_string(slot.gpu);
    if (slot.milli < 1000) fractional = &slot;
  }
  env.emplace_back("CUDA_VISIBLE_DEVICES", visible);
  env.emplace_back("FRUGAL_JOB_ID", s.job_id);
  env.emplace_back("FRUGAL_RESTART_COUNT", std::to_string(s.restart_count));
  env.emplace_back("FRUGAL_CHECKPOINT_DIR", s.checkpoint_dir);
  if (fractional) {
    const int pct = std::max(1, static_cast<int>(std::ceil(fractional->milli / 10.0)));
    env.emplace_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(pct));
    env.emplace_back("FRUGAL_GPU_MILLI", std::to_string(fractional->milli));
    if (s.gpu_memory_limit_mib > 0) {
      // Within the job, CUDA_VISIBLE_DEVICES renumbers its one card as device 0.
      env.emplace_back("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                       fmt::format("0={}M", s.gpu_memory_limit_mib));
      env.emplace_back("FRUGAL_GPU_MEMORY_LIMIT_MIB", std::to_string(s.gpu_memory_limit_mib));
    }
  }
  SpawnRequest r;
  const std::string exit_file = run_file(s.job_id, s.restart_count, "exit");
  const std::string handle_file = run_file(s.job_id, s.restart_count, "handle");
  std::filesystem::remove(exit_file, ec);
  std::filesystem::remove(handle_file, ec);
  // $1: the job's command, $2: the exit file. The wrapper first waits for "go" on descriptor
  // 3 (the gate): it is sent once the handle file names this run, so a command never runs
  // unless a restarted service can find it; if the service dies first, the wrapper reads
  // end-of-file, writes "gate-closed" as the exit file and exits 125 without running
  // anything. Then it traps the checkpoint signal
  // and the polite stop signals, so it outlives the job and records how it ended (trapped
  // signals are reset to default in the job, which may trap them itself); SIGKILL ends all.
  r.command = "IFS= read -r go <&3 || { echo " + std::string(kGateClosed) +
              " > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"; exit 125; }; exec 3<&-; trap : " +
              std::to_string(s.checkpoint_signal > 0 ? s.checkpoint_signal : SIGUSR1) +
              " TERM INT HUP; /bin/sh -c \"$1\"; rc=$?; echo $rc > \"$2.tmp\" && mv \"$2.tmp\" "
              "\"$2\"; exit $rc";
  r.args = {"frugal-job", s.command, exit_file};
  r.workdir = s.workdir.empty() ? s.log_dir : s.workdir;
  r.stdout_path = fmt::format("{}/{}.out", s.log_dir, s.job_id);
  r.stderr_path = fmt::format("{}/{}.err", s.log_dir, s.job_id);
  r.env = merged_environment(env);
  r.gated = true;
  Result<Spawned> spawned = spawn_process(r);
  if (!spawned.ok()) return spawned.error();
  const pid_t pid = spawned.value().pid;
  // Closed on every path out of here: without "go", the wrapper exits and runs nothing.
  Gate gate{spawned.value().gate};
  if (options_.fault) options_.fault("spawned", s.job_id);
  const auto ticks = process_start_ticks(pid);
  // A job that already exited has no /proc entry to read; it is still our child to reap.
  Proc p;
  p.job_id = s.job_id;
  p.pid = pid;
  p.ticks = ticks.value_or(0);
  p.handle = make_handle(p.pid, p.ticks);
  p.child = true;
  p.exit_file = exit_file;
  p.out_path = r.stdout_path;
  p.err_path = r.stderr_path;
  // For adopt() with an empty handle (a crash before the service persisted this one):
  // written whole (renamed into place) before the command may begin.
  const std::string tmp = handle_file + ".tmp";
  bool written = static_cast<bool>(std::ofstream(tmp) << p.handle << '\n');
  written = written && std::rename(tmp.c_str(), handle_file.c_str()) == 0;
  if (!written) {
    const std::string why = std::strerror(errno);
    gate.close();  // the wrapper reads end-of-file and exits without running the command
    int status = 0;
    waitpid(pid, &status, 0);
    return Error{fmt::format("{}: {}", handle_file, why)};
  }
  if (options_.fault) options_.fault("handle_written", s.job_id);
  (void)!write(gate.fd, "go\n", 3);
  gate.close();
  if (options_.fault) options_.fault("released", s.job_id);
  procs_[p.handle] = p;
  return p.handle;
}

std::string LocalDriver::run_file(const std::string& job_id, int run, const char* what) const {
  return fmt::format("{}/{}.{}.{}", options_.log_dir, job_id, run, what);
}

Status LocalDriver::stop(const std::string& handle, const StopPlan& plan) {
  const auto it = procs_.find(handle);
  if (it == procs_.end()) return Error{fmt::format("stop: no running job with handle {}", handle)};
  Proc& p = it->second;
  if (p.stage != 0) return Status::Ok();  // already stopping
  p.plan = plan;
  p.stage_at = Clock::now();
  if (plan.checkpoint_signal > 0) {
    killpg(p.pid, plan.checkpoint_signal);
    p.stage = 1;
  } else {
    p.plan.grace_s = 0;
    p.stage = 1;
  }
  advance_stop(p, p.stage_at);
  return Status::Ok();
}

void LocalDriver::advance_stop(Proc& p, Clock::time_point now) {
  const auto elapsed = std::chrono::duration<double>(now - p.stage_at).count();
  if (p.stage == 1 && elapsed >= p.plan.grace_s) {
    killpg(p.pid, SIGTERM);
    p.stage = 2;
    p.stage_at = now;
  } else if (p.stage == 2 && elapsed >= p.plan.term_grace_s) {
    killpg(p.pid, SIGKILL);
    p.stage = 3;
    p.stage_at = now;
  }
}

namespace {

// What a run's exit file says: its status, or that the command never began (the wrapper
// found its gate closed); neither when the file is missing or unreadable.
struct RunEnd {
  std::optional<int> code;
  bool never_began = false;
};

RunEnd read_run_end(const std::string& path) {
  std::ifstream f(path);
  std::string word;
  RunEnd end;
  if (!(f >> word)) return end;
  if (word == kGateClosed) {
    end.never_began = true;
  } else if (!word.empty() && word.size() < 4 &&
             word.find_first_not_of("0123456789") == std::string::npos) {
    end.code = std::stoi(word);
  }
  return end;
}

// When the wrapper wrote `path` (the job's exit status): the job's end; 0 if unknown.
double written_at(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
}

}  // namespace

Result<bool> LocalDriver::adopt(const std::string& job_id, int run, const std::string& persisted) {
  std::string handle = persisted;
  if (handle.empty()) {
    // The service crashed between recording the start and persisting the handle. The run's
    // handle file names it if its command may have begun (start() writes it before opening
    // the gate); without one the command never ran.
    std::ifstream f(run_file(job_id, run, "handle"));
    if (!(f >> handle) || !parse_handle(handle)) return false;
    handle_found_[job_id] = handle;
  }
  const auto h = parse_handle(handle);
  if (!h) return Error{fmt::format("adopt: malformed local handle '{}'", handle)};
  const std::string exit_file = run_file(job_id, run, "exit");
  const auto ticks = process_start_ticks(h->first);
  if (!ticks || *ticks != h->second) {
    // Gone while the service was down. Its group's stragglers (background children the job
    // left) are killed as when the service sees a job end; ESRCH when there are none. Only
    // when no process has the pid: a pid still in use as a group id is never reused, so a
    // live process with it (another start time) means the job's group no longer exists and
    // the id may now name someone else's.
    if (!ticks) killpg(h->first, SIGKILL);
    // This run's exit file says how it ended (and it ended when it was written): with a
    // status, or never begun (its gate closed). Without one it began and nobody knows how it
    // ended: reported as such, not run again blindly.
    const RunEnd end = read_run_end(exit_file);
    if (end.never_began) return false;
    DriverEvent e;
    e.job_id = job_id;
    e.handle = handle;
    if (end.code) {
      e.kind = DriverEvent::Kind::kExited;
      e.exit_code = *end.code;
      e.ended_unix = written_at(exit_file);
      e.message = fmt::format("exited with code {} while the service was down", *end.code);
    } else {
      e.kind = DriverEvent::Kind::kEndedUnseen;
      e.message = "its run ended while the service was down and left no exit status";
    }
    Proc ended;
    ended.out_path = fmt::format("{}/{}.out", options_.log_dir, job_id);
    ended.err_path = fmt::format("{}/{}.err", options_.log_dir, job_id);
    cap_output(ended, Clock::now(), true);
    e.output_truncated = ended.output_truncated;
    ended_.push_back(std::move(e));
    return true;
  }
  Proc p;
  p.job_id = job_id;
  p.handle = handle;
  p.pid = h->first;
  p.ticks = h->second;
  // Our own child if we started it in this process (a second adopt of a live handle).
  p.child = procs_.count(handle) != 0 && procs_[handle].child;
  p.exit_file = exit_file;
  p.out_path = fmt::format("{}/{}.out", options_.log_dir, job_id);
  p.err_path = fmt::format("{}/{}.err", options_.log_dir, job_id);
  procs_[handle] = p;
  return true;
}

void LocalDriver::cap_output(Proc& p, Clock::time_point now, bool at_end) {
  const int64_t cap = options_.max_output_bytes;
  if (cap <= 0 || (!at_end && now - p.output_checked < std::chrono::seconds(1))) return;
  p.output_checked = now;
  for (const std::string* path : {&p.out_path, &p.err_path}) {
    struct stat st {};
    if (path->empty() || stat(path->c_str(), &st) != 0 || st.st_size <= cap) continue;
    // The job appends (O_APPEND), so its next write lands at the new end: what it writes
    // past the cap is dropped at the next check.
    if (truncate(path->c_str(), cap) == 0) p.output_truncated = true;
  }
}

std::vector<DriverEvent> LocalDriver::poll() {
  std::vector<DriverEvent> events;
  events.swap(ended_);
  const auto now = Clock::now();
  for (auto it = procs_.begin(); it != procs_.end();) {
    Proc& p = it->second;
    bool gone = false;
    bool pid_reused = false;  // the pid names another process now: its group is not ours
    DriverEvent e;
    e.job_id = p.job_id;
    e.handle = p.handle;
    if (p.child) {
      int status = 0;
      const pid_t r = waitpid(p.pid, &status, WNOHANG);
      if (r == p.pid) {
        gone = true;
        e.kind = DriverEvent::Kind::kExited;
        if (WIFEXITED(status)) {
          e.exit_code = WEXITSTATUS(status);
          e.message = fmt::format("exited with code {}", e.exit_code);
        } else if (WIFSIGNALED(status)) {
          e.term_signal = WTERMSIG(status);
          e.message =
              fmt::format("killed by signal {} ({})", e.term_signal, strsignal(e.term_signal));
        }
      } else if (r < 0 && errno == ECHILD) {
        gone = true;
        e.kind = DriverEvent::Kind::kLost;
        e.message = "process vanished (not our child)";
      }
    } else {
      const auto ticks = process_start_ticks(p.pid);
      if (!ticks || *ticks != p.ticks) {
        gone = true;
        pid_reused = ticks.has_value();
        const RunEnd end = read_run_end(p.exit_file);
        if (end.code) {
          e.kind = DriverEvent::Kind::kExited;
          e.exit_code = *end.code;
          e.ended_unix = written_at(p.exit_file);
          e.message = fmt::format("exited with code {} (adopted after a restart)", *end.code);
        } else if (end.never_began) {
          e.kind = DriverEvent::Kind::kLost;
          e.message = "its launch was interrupted before the command began";
        } else {
          e.kind = DriverEvent::Kind::kEndedUnseen;
          e.message = "adopted process ended without recording its exit status";
        }
      }
    }
    if (gone) {
      if (!pid_reused) killpg(p.pid, SIGKILL);  // stragglers of the job's group; ESRCH when none
      cap_output(p, now, true);
      e.output_truncated = p.output_truncated;
      events.push_back(std::move(e));
      it = procs_.erase(it);
    } else {
      if (p.stage > 0) advance_stop(p, now);
      cap_output(p, now, false);
      ++it;
    }
  }
  return events;
}

std::vector<GpuTelemetry> LocalDriver::telemetry() {
  if (!nvml_) return {};
  // Each GPU process's job, from FRUGAL_JOB_ID in its (or an ancestor's) environment: what
  // measures a job by its own processes on a card it shares (a guest beside its host).
  std::vector<GpuTelemetry> gpus = nvml_->sample(options_.node_name);
  process_jobs_.map(gpus);
  process_jobs_.prune();
  return gpus;
}

}  // namespace frugal
