#include "agent/agent.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include "agent/host_load.h"
#include "agent/process_jobs.h"
#include "drivers/nvml.h"

namespace frugal {
namespace {

// The next multiple of `period` after `due`, past `now` (no burst of catch-up steps after
// a stall).
double next_due(double due, double period, double now) {
  due += period;
  return due <= now ? now + period : due;
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Agent::Agent(AgentOptions options, Sample sample, Post post,
             std::function<void(const std::string&)> log)
    : o_(std::move(options)),
      sample_(std::move(sample)),
      post_(std::move(post)),
      log_(std::move(log)),
      window_(o_.node) {}

void Agent::enqueue(NodeReport r) {
  outbox_.push_back(std::move(r));
  while (outbox_.size() > std::max<size_t>(1, o_.outbox_reports)) {
    outbox_.pop_front();
    if (dropped_++ == 0)
      log_(fmt::format("outbox full ({} reports): dropping the oldest until the server answers",
                       o_.outbox_reports));
  }
}

Status Agent::post(double now) {
  const size_t n = std::min(outbox_.size(), std::max<size_t>(1, o_.batch_reports));
  const std::vector<NodeReport> batch(outbox_.begin(),
                                      outbox_.begin() + static_cast<std::ptrdiff_t>(n));
  const Result<ApiResponse> r = post_(batch_json(batch, now));
  const auto back_off = [&](const std::string& why) {
    if (backoff_s_ == 0) log_(fmt::format("{}; keeping reports and retrying", why));
    backoff_s_ =
        backoff_s_ == 0 ? o_.report_interval_s : std::min(2 * backoff_s_, o_.max_backoff_s);
    next_post_ = now + backoff_s_;
  };
  if (!r.ok()) {
    back_off(r.error().message);
    return Status::Ok();
  }
  const ApiResponse& a = r.value();
  const std::string said =
      a.body.is_object() && a.body.contains("error")
          ? fmt::format("{} ({})", a.body["error"].dump(), a.body.value("field", std::string()))
          : fmt::format("HTTP {}", a.status);
  if (a.status == 401 || a.status == 403)
    return Error{fmt::format("the server refused the node token: {}", said)};
  if (a.status == 429 || a.status >= 500) {
    back_off(fmt::format("the server did not take the reports (HTTP {}: {})", a.status, said));
    return Status::Ok();
  }
  outbox_.erase(outbox_.begin(), outbox_.begin() + static_cast<std::ptrdiff_t>(n));
  if (a.status >= 200 && a.status < 300) {
    if (backoff_s_ > 0)
      log_(fmt::format("the server takes reports again ({} queued)", outbox_.size()));
    delivered_ += n;
  } else {
    refused_ += n;
    log_(fmt::format("the server refused {} report(s) as bad, dropped: {}", n, said));
  }
  backoff_s_ = 0;
  next_post_ = outbox_.empty() ? next_report_ : now + 1;  // a backlog: a batch a second
  return Status::Ok();
}

Result<double> Agent::step(double now) {
  if (!started_) {
    started_ = true;
    next_sample_ = now;
    next_report_ = now + o_.report_interval_s;
    next_post_ = next_report_;
  }
  // A window closes before the sample due at its end, which opens the next window.
  if (now >= next_report_) {
    if (!window_.empty()) enqueue(window_.take(now));
    next_report_ = next_due(next_report_, o_.report_interval_s, now);
  }
  if (now >= next_sample_) {
    auto [gpus, host] = sample_();
    window_.add(now, gpus, host);
    next_sample_ = next_due(next_sample_, o_.sample_interval_s, now);
  }
  if (!outbox_.empty() && now >= next_post_)
    if (Status s = post(now); !s.ok()) return s.error();
  double next = std::min(next_sample_, next_report_);
  if (!outbox_.empty()) next = std::min(next, std::max(now, next_post_));
  return next;
}

Status Agent::flush(double now) {
  if (!window_.empty()) enqueue(window_.take(now));
  if (outbox_.empty()) return Status::Ok();
  return post(now);
}

// The options completed (the node's name) and checked; an error says what to give.
Result<AgentOptions> checked_options(AgentOptions o) {
  if (!o.print && (o.server.empty() || o.token.empty()))
    return Error{
        "give --server and a node token (--token-file, or FRUGAL_AGENT_TOKEN), or --print"};
  if (!(o.sample_interval_s > 0) || !(o.report_interval_s >= o.sample_interval_s) ||
      !(o.max_backoff_s >= o.report_interval_s))
    return Error{"need 0 < --sample-interval <= --interval <= --max-backoff"};
  if (o.node.empty()) {
    std::array<char, 256> host{};
    if (gethostname(host.data(), host.size() - 1) != 0)
      return Error{"cannot read this host's name; give --node"};
    o.node = host.data();
  }
  return o;
}

// Steps the agent until a signal (then a last flush) or, with `once`, one report. Exit code
// as run_agent's.
int agent_loop(Agent& agent, bool once, const std::function<void(const std::string&)>& log) {
  // SIGINT/SIGTERM end the wait (a signalfd polled with the wait as its timeout).
  sigset_t stop_set;
  sigemptyset(&stop_set);
  sigaddset(&stop_set, SIGINT);
  sigaddset(&stop_set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_set, nullptr);
  const int sfd = signalfd(-1, &stop_set, SFD_CLOEXEC);
  int rc = 0;
  for (;;) {
    Result<double> next = agent.step(unix_now());
    if (!next.ok()) {
      log(next.error().message);
      rc = 2;
      break;
    }
    if (once && agent.delivered() + agent.refused() > 0) break;
    const double wait_s = std::max(0.0, next.value() - unix_now());
    pollfd p{sfd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::ceil(wait_s * 1000))) > 0) {
      signalfd_siginfo si{};
      (void)!read(sfd, &si, sizeof si);
      log(fmt::format("signal {}: sending what is left and stopping", si.ssi_signo));
      if (Status s = agent.flush(unix_now()); !s.ok()) {
        log(s.error().message);
        rc = 2;
      }
      break;
    }
  }
  if (sfd >= 0) close(sfd);
  return rc;
}

int run_agent(const AgentOptions& options) {
  const auto log = [](const std::string& line) { fmt::print(stderr, "frugal agent: {}\n", line); };
  Result<AgentOptions> checked = checked_options(options);
  if (!checked.ok()) {
    log(checked.error().message);
    return 2;
  }
  const AgentOptions& o = checked.value();
  std::unique_ptr<Nvml> nvml;
  if (auto loaded = Nvml::load(o.nvml_library); loaded.ok()) {
    nvml = std::move(loaded).value();
  } else if (!o.allow_no_gpu) {
    log(
        fmt::format("{}. Is the NVIDIA driver installed on this node? (--allow-no-gpu reports "
                    "the host's load only)",
                    loaded.error().message));
    return 2;
  } else {
    log(fmt::format("{}; reporting the host's load only", loaded.error().message));
  }
  HostLoadReader host(o.proc);
  ProcessJobs jobs(o.proc);
  std::string host_error;
  const auto sample = [&]() {
    std::vector<GpuTelemetry> gpus;
    if (nvml) {
      gpus = nvml->sample(o.node);
      jobs.map(gpus);
      jobs.prune();
    }
    Result<HostLoad> h = host.read();
    if (!h.ok() && h.error().message != host_error) log(h.error().message);
    host_error = h.ok() ? "" : h.error().message;
    return std::make_pair(std::move(gpus), h.ok() ? h.value() : HostLoad{});
  };
  std::unique_ptr<ApiClient> client;
  if (!o.print) client = std::make_unique<ApiClient>(o.server, o.token);
  const auto post = [&](const nlohmann::json& body) -> Result<ApiResponse> {
    if (o.print) {
      for (const auto& r : body["reports"]) fmt::print("{}\n", r.dump());
      std::fflush(stdout);
      return ApiResponse{202, nlohmann::json::object()};
    }
    return client->post("/v1/telemetry", body);
  };
  Agent agent(o, sample, post, log);

  log(fmt::format("node {}: {} GPU(s), a report every {} s{}", o.node,
                  nvml ? nvml->gpus().size() : 0, o.report_interval_s,
                  o.print ? " (printed)" : " to " + o.server));
  const int rc = agent_loop(agent, o.once, log);
  if (agent.dropped() > 0 || agent.queued() > 0)
    log(fmt::format("{} report(s) dropped while the server was away, {} undelivered at exit",
                    agent.dropped(), agent.queued()));
  return rc;
}

}  // namespace frugal
