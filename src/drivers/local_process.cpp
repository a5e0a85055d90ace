#include "drivers/local_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>

extern char** environ;

namespace frugal {

namespace {

// What the child needs, built before fork (after it only async-signal-safe calls).
struct ChildPlan {
  const SpawnRequest* request = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  int report = -1;  // the error pipe's write end (close-on-exec)
  int gate = -1;    // the gate's read end, or -1
};

// Child: reports (step, errno) over the error pipe, exits 127.
[[noreturn]] void child_fail(int report, int step) {
  const int msg[2] = {step, errno};
  (void)!write(report, msg, sizeof msg);
  _exit(127);
}

// Child: a new process group, signals at their defaults and unblocked.
void child_signals() {
  setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);
}

// Child: the gate's read end becomes descriptor 3 (dup2 clears close-on-exec; onto itself it
// would not); the error pipe moves off 3 first. Returns the error pipe's descriptor.
int child_gate(int report, int gate) {
  if (report == 3) {
    report = fcntl(3, F_DUPFD_CLOEXEC, 4);
    if (report < 0) child_fail(3, 3);  // the error pipe is still descriptor 3
  }
  if (gate == 3) {
    if (fcntl(3, F_SETFD, 0) < 0) child_fail(report, 3);
  } else if (dup2(gate, 3) < 0) {
    child_fail(report, 3);
  }
  return report;
}

[[noreturn]] void exec_child(const ChildPlan& c) {
  const SpawnRequest& r = *c.request;
  int report = c.report;
  child_signals();
  if (chdir(r.workdir.c_str()) != 0) child_fail(report, 1);
  const int in = open("/dev/null", O_RDONLY);
  const int out = open(r.stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const int err = open(r.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (in < 0 || out < 0 || err < 0) child_fail(report, 2);
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) child_fail(report, 3);
  if (c.gate >= 0) report = child_gate(report, c.gate);
  // Close everything else except the error pipe (close-on-exec) and the gate.
  const unsigned first = c.gate >= 0 ? 4 : 3;
  const unsigned keep = static_cast<unsigned>(report);
  if (keep > first) close_range(first, keep - 1, 0);
  close_range(std::max(keep + 1, first), ~0U, 0);
  execve(c.argv[0], c.argv, c.envp);
  child_fail(report, 4);
}

void close_fds(std::initializer_list<int*> fds) {
  for (int* fd : fds)
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
}

}  // namespace

Result<Spawned> spawn_process(const SpawnRequest& r) {
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

  int pipefd[2] = {-1, -1};
  int gate[2] = {-1, -1};
  if (pipe2(pipefd, O_CLOEXEC) != 0 || (r.gated && pipe2(gate, O_CLOEXEC) != 0)) {
    const std::string why = strerror(errno);
    close_fds({&pipefd[0], &pipefd[1]});
    return Error{fmt::format("pipe: {}", why)};
  }
  const pid_t pid = fork();
  if (pid < 0) {
    const std::string why = strerror(errno);
    close_fds({&pipefd[0], &pipefd[1], &gate[0], &gate[1]});
    return Error{fmt::format("fork: {}", why)};
  }
  if (pid == 0) exec_child(ChildPlan{&r, argv.data(), envp.data(), pipefd[1], gate[0]});
  setpgid(pid, pid);  // also in the parent, so signals never race the child's own call
  close_fds({&pipefd[1], &gate[0]});
  int msg[2] = {0, 0};
  ssize_t n;
  do {
    n = read(pipefd[0], msg, sizeof msg);
  } while (n < 0 && errno == EINTR);
  close_fds({&pipefd[0]});
  if (n > 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    close_fds({&gate[1]});
    static const char* kSteps[] = {"", "chdir to workdir", "open log files", "dup2", "exec"};
    const int step = msg[0] >= 1 && msg[0] <= 4 ? msg[0] : 4;
    return Error{fmt::format("{} failed: {}", kSteps[step], strerror(msg[1]))};
  }
  return Spawned{pid, gate[1]};
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
