#include "drivers/command.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace frugal {
namespace {

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// In the forked child: stdout and stderr to the pipes' write ends, stdin from /dev/null,
// then exec `args` (argv as C strings); on failure "exec <argv[0]>: <why>" to stderr, exit 127.
[[noreturn]] void exec_child(const std::vector<std::string>& argv, std::vector<char*>& args,
                             int out_fd, int err_fd) {
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  execvp(args[0], args.data());
  const std::string msg = fmt::format("exec {}: {}\n", argv[0], std::strerror(errno));
  if (write(2, msg.data(), msg.size()) < 0) _exit(127);
  _exit(127);
}

// Reads `fds` (stdout, stderr) into res.out and res.err until both are closed, a poll
// fails, or `timeout_s` has passed; closes them. True when the time ran out.
bool collect_output(pollfd (&fds)[2], double timeout_s, CommandOutput& res) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  int open_fds = 2;
  bool timed_out = false;
  char buf[4096];
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    const int r = poll(fds, 2, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? res.out : res.err).append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  return timed_out;
}

}  // namespace

Result<CommandOutput> run_command(const std::vector<std::string>& argv, double timeout_s) {
  if (argv.empty()) return Error{"run_command: empty command"};
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0)
    return Error{fmt::format("{}: pipe: {}", argv[0], std::strerror(errno))};
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return Error{fmt::format("{}: pipe: {}", argv[0], std::strerror(errno))};
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return Error{fmt::format("{}: fork: {}", argv[0], std::strerror(errno))};
  if (pid == 0) exec_child(argv, args, out_pipe[1], err_pipe[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  CommandOutput res;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  const bool timed_out = collect_output(fds, timeout_s, res);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return Error{fmt::format("'{}' timed out after {} s", joined(argv), timeout_s)};
  res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (res.exit_code == 127 && res.err.rfind("exec ", 0) == 0)
    return Error{fmt::format("'{}': {}", joined(argv), res.err.substr(0, res.err.size() - 1))};
  return res;
}

Result<std::string> run_checked(const std::vector<std::string>& argv, double timeout_s) {
  auto r = run_command(argv, timeout_s);
  if (!r.ok()) return r.error();
  if (r.value().exit_code != 0) {
    std::string err = r.value().err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    return Error{fmt::format("'{}' exited {}: {}", joined(argv), r.value().exit_code, err)};
  }
  return std::move(r.value().out);
}

}  // namespace frugal
