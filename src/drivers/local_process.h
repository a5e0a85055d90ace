#pragma once
// Process plumbing for the local driver: spawning a job in its own process group with its
// log files, environment and working directory, and recognising a process again after a
// service restart by (pid, start time in clock ticks since boot, from /proc/PID/stat).

#include <sys/types.h>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/result.h"

namespace frugal {

struct SpawnRequest {
  std::string command;            // run as /bin/sh -c command args...
  std::vector<std::string> args;  // $0, $1, ... of the command
  std::string workdir;
  std::string stdout_path, stderr_path;                  // opened for append, created 0644
  std::vector<std::pair<std::string, std::string>> env;  // the whole environment
  // Gated: the child gets the read end of a pipe as descriptor 3 and the caller the write
  // end (Spawned::gate). The command is expected to wait for a line on descriptor 3 before
  // it does anything; if the caller dies first, the child reads end-of-file instead.
  bool gated = false;
};

struct Spawned {
  pid_t pid = -1;
  int gate = -1;  // gated requests: the pipe's write end (close-on-exec), owned by the caller
};

// Forks and execs; the child leads a new process group (pgid = pid), has every signal at its
// default disposition and unblocked, and no descriptor of ours beyond 0-2. Returns the pid,
// or why it could not start (workdir, log file or exec failure, reported by the child over
// a close-on-exec pipe). Safe to call from a multithreaded process: the child only makes
// async-signal-safe calls.
Result<Spawned> spawn_process(const SpawnRequest& r);

// The process's start time (field 22 of /proc/PID/stat); nullopt if there is no such
// process or it is a zombie (it has exited).
std::optional<uint64_t> process_start_ticks(pid_t pid);

// "pid:ticks" and back (nullopt when malformed).
std::string make_handle(pid_t pid, uint64_t ticks);
std::optional<std::pair<pid_t, uint64_t>> parse_handle(const std::string& handle);

// The service's own environment as pairs, with `overrides` replacing or adding entries.
std::vector<std::pair<std::string, std::string>> merged_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides);

}  // namespace frugal
