#include "drivers/local_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

extern char** environ;

namespace frugal {

Result<pid_t> spawn_process(const SpawnRequest& r) {
  // Everything the child needs is built before fork: after it only async-signal-safe calls.
  std::vector<std::string> env_strings;
  env_strings.reserve(r.env.size());
  for (const auto& [k, v] : r.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = {"/bin/sh", "-c", r.command};
  arg_strings.insert(arg_strings.end(), r.args.begin(), r.args.end());
  std::vector<char*> argv;
  for (std::string& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return Error{fmt::format("pipe: {}", strerror(errno))};
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    return Error{fmt::format("fork: {}", strerror(errno))};
  }
  if (pid == 0) {
    // Child. Report (step, errno) over the pipe on failure.
    auto fail = [&](int step) {
      const int msg[2] = {step, errno};
      (void)!write(pipefd[1], msg, sizeof msg);
      _exit(127);
    };
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; ++s)
      if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);
    if (chdir(r.workdir.c_str()) != 0) fail(1);
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(r.stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int err = open(r.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0 || err < 0) fail(2);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) fail(3);
    // Close everything else except the error pipe (close-on-exec).
    const unsigned keep = static_cast<unsigned>(pipefd[1]);
    if (keep > 3) close_range(3, keep - 1, 0);
    close_range(keep + 1, ~0U, 0);
    execve(argv[0], argv.data(), envp.data());
    fail(4);
  }
  setpgid(pid, pid);  // also in the parent, so signals never race the child's own call
  close(pipefd[1]);
  int msg[2] = {0, 0};
  ssize_t n;
  do {
    n = read(pipefd[0], msg, sizeof msg);
  } while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n > 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    static const char* kSteps[] = {"", "chdir to workdir", "open log files", "dup2", "exec"};
    const int step = msg[0] >= 1 && msg[0] <= 4 ? msg[0] : 4;
    return Error{fmt::format("{} failed: {}", kSteps[step], strerror(msg[1]))};
  }
  return pid;
}

std::optional<uint64_t> process_start_ticks(pid_t pid) {
  std::ifstream f(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!f || !std::getline(f, line)) return std::nullopt;
  const size_t close_paren = line.rfind(')');
  if (close_paren == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close_paren + 1));
  std::string field;
  // Fields after the command: 3 state, 4 ppid, ... 22 starttime.
  for (int i = 3; i <= 22; ++i) {
    if (!(rest >> field)) return std::nullopt;
    if (i == 3 && (field == "Z" || field == "X")) return std::nullopt;
  }
  try {
    return std::stoull(field);
  } catch (...) {
    return std::nullopt;
  }
}

std::string make_handle(pid_t pid, uint64_t ticks) {
  return fmt::format("{}:{}", pid, ticks);
}

std::optional<std::pair<pid_t, uint64_t>> parse_handle(const std::string& handle) {
  const size_t colon = handle.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == handle.size()) return std::nullopt;
  try {
    size_t used = 0;
    const long pid = std::stol(handle.substr(0, colon), &used);
    if (used != colon || pid <= 1) return std::nullopt;
    const std::string t = handle.substr(colon + 1);
    const uint64_t ticks = std::stoull(t, &used);
    if (used != t.size()) return std::nullopt;
    return std::make_pair(static_cast<pid_t>(pid), ticks);
  } catch (...) {
    return std::nullopt;
  }
}

std::vector<std::pair<std::string, std::string>> merged_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string s = *e;
    const size_t eq = s.find('=');
    if (eq != std::string::npos) env[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const auto& [k, v] : overrides) env[k] = v;
  return {env.begin(), env.end()};
}

}  // namespace frugal
