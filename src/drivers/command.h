#pragma once
// Runs a program (no shell) and captures what it prints: the Slurm client's path for what
// slurmrestd v0.0.38 cannot do (requeue, tokens). Thread-safe (no shared state).

#include <string>
#include <vector>

#include "model/result.h"

namespace frugal {

struct CommandOutput {
  int exit_code = 0;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs argv[0] (searched in PATH) with `argv`, waits at most `timeout_s` (then SIGKILL).
// Returns its output whatever its exit code; an Error only when it could not run or timed out.
Result<CommandOutput> run_command(const std::vector<std::string>& argv, double timeout_s = 30);

// run_command that also treats a non-zero exit as an Error naming the command and its stderr.
Result<std::string> run_checked(const std::vector<std::string>& argv, double timeout_s = 30);

}  // namespace frugal
