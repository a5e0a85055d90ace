#include "service/shadows.h"

#include <fmt/format.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "service/live_profile.h"

namespace frugal {

struct ShadowSet::Command {
  enum class Kind { kSubmit, kEnded, kNode, kAdvance, kActivate } kind = Kind::kAdvance;
  Seconds t = 0;
  int64_t id = 0;
  std::shared_ptr<const JobSpec> spec;
  bool flag = false;  // ended: ran; node: up
  double work_ref_s = 0;
  NodeId node = 0;
  std::string policy;
  std::vector<std::pair<int64_t, std::shared_ptr<const JobSpec>>> jobs;
};

namespace {
constexpr double kPublishEvery_s = 0.5;  // while behind, a view at least this often
}  // namespace

ShadowSet::ShadowSet(const ServiceConfig& config, const ClusterSpec& cluster,
                     const GpuCatalog& catalog, const EngineOptions& options, Options opts)
    : config_(config),
      cluster_(cluster),
      catalog_(catalog),
      options_(options),
      opts_(opts),
      view_(std::make_shared<const ShadowView>()) {}

Result<std::unique_ptr<ShadowSet>> ShadowSet::create(const std::vector<std::string>& policies,
                                                     const ServiceConfig& config,
                                                     const ClusterSpec& cluster,
                                                     const GpuCatalog& catalog,
                                                     const EngineOptions& options, Options opts) {
  std::unique_ptr<ShadowSet> set(new ShadowSet(config, cluster, catalog, options, opts));
  for (const std::string& p : policies) {
    if (set->index_of(p)) continue;
    auto run = set->make(p);
    if (!run.ok()) return run.error();
    set->policies_.push_back(p);
    set->runs_.push_back(std::move(run).value());
    set->compute_s_.push_back(0);
    set->compute_max_s_.push_back(0);
  }
  set->view_ = set->take_view(0, 0);
  if (opts.own_thread) set->thread_ = std::thread([s = set.get()] { s->work(); });
  return set;
}

ShadowSet::~ShadowSet() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Result<std::unique_ptr<ShadowRun>> ShadowSet::make(const std::string& policy) const {
  auto profile = live_profile(policy, config_);
  if (!profile.ok())
    return Error{fmt::format("shadow_policies: '{}': {}", policy, profile.error().message)};
  Profile prof = std::move(profile).value();
  prof.name = policy;
  return std::make_unique<ShadowRun>(cluster_, catalog_, std::move(prof), options_);
}

std::optional<size_t> ShadowSet::index_of(const std::string& policy) const {
  for (size_t i = 0; i < policies_.size(); ++i)
    if (policies_[i] == policy) return i;
  return std::nullopt;
}

void ShadowSet::submit(int64_t id, const JobSpec& spec, Seconds t) {
  ++fed_;
  Command c{.kind = Command::Kind::kSubmit, .t = t, .id = id};
  c.spec = std::make_shared<const JobSpec>(spec);
  give(std::move(c));
}

void ShadowSet::ended(int64_t id, bool ran, double work_ref_s, Seconds t) {
  ++fed_;
  give(Command{
      .kind = Command::Kind::kEnded, .t = t, .id = id, .flag = ran, .work_ref_s = work_ref_s});
}

void ShadowSet::node(NodeId n, bool up, Seconds t) {
  ++fed_;
  give(Command{.kind = Command::Kind::kNode, .t = t, .flag = up, .node = n});
}

void ShadowSet::advance(Seconds t) {
  give(Command{.kind = Command::Kind::kAdvance, .t = t});
}

void ShadowSet::set_active(const std::string& policy,
                           std::vector<std::pair<int64_t, std::shared_ptr<const JobSpec>>> jobs_now,
                           Seconds t) {
  std::optional<size_t> i = index_of(policy);
  if (!i) {
    policies_.push_back(policy);
    i = policies_.size() - 1;
  } else {
    jobs_now.clear();  // its shadow has seen them all
  }
  std::rotate(policies_.begin(), policies_.begin() + static_cast<std::ptrdiff_t>(*i),
              policies_.begin() + static_cast<std::ptrdiff_t>(*i) + 1);
  Command c{.kind = Command::Kind::kActivate, .t = t, .policy = policy};
  c.jobs = std::move(jobs_now);
  give(std::move(c));
}

void ShadowSet::give(Command c) {
  if (!stopped_.empty()) return;
  if (!thread_.joinable()) {
    apply(c);
    ++applied_;
    return;
  }
  // The thread is woken once a turn (at its advance), not per event: the events of a turn
  // are applied together anyway, and a wake-up per event would cost the loop a system call.
  const bool wake = c.kind == Command::Kind::kAdvance || c.kind == Command::Kind::kActivate;
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= opts_.queue_max) {  // never wait for the shadows: stop them
      stopped_ = fmt::format(
          "the shadows fell {} events behind (the machine gave them no idle CPU) and were stopped; "
          "restart the service to start them again",
          queue_.size());
      stop_ = true;
      queue_.clear();
      queue_.shrink_to_fit();
    } else {
      queue_.push_back(std::move(c));
      if (wake) ++turns_;
    }
  }
  if (wake || !stopped_.empty()) wake_.notify_one();
}

void ShadowSet::apply(const Command& c) {
  using K = Command::Kind;
  if (c.kind == K::kActivate) {
    auto it = std::find_if(runs_.begin(), runs_.end(),
                           [&](const auto& r) { return r->policy() == c.policy; });
    if (it == runs_.end()) {
      auto made = make(c.policy);
      if (!made.ok()) return;  // checked by the caller: the active policy parses
      runs_.push_back(std::move(made).value());
      compute_s_.push_back(0);
      compute_max_s_.push_back(0);
      for (const auto& [id, spec] : c.jobs) runs_.back()->submit(id, *spec, c.t);
      it = runs_.end() - 1;
    }
    const auto i = it - runs_.begin();
    std::rotate(runs_.begin(), it, it + 1);
    std::rotate(compute_s_.begin(), compute_s_.begin() + i, compute_s_.begin() + i + 1);
    std::rotate(compute_max_s_.begin(), compute_max_s_.begin() + i, compute_max_s_.begin() + i + 1);
    return;
  }
  for (size_t i = 0; i < runs_.size(); ++i) {
    ShadowRun& r = *runs_[i];
    const auto t0 = std::chrono::steady_clock::now();
    switch (c.kind) {
      case K::kSubmit:
        r.submit(c.id, *c.spec, c.t);
        break;
      case K::kEnded:
        if (c.flag)
          r.work_known(c.id, c.work_ref_s, c.t);
        else
          r.withdraw(c.id, c.t);
        break;
      case K::kNode:
        if (c.flag)
          r.node_up(c.node, c.t);
        else
          r.node_down(c.node, c.t);
        break;
      case K::kAdvance:
        r.advance(c.t);
        break;
      case K::kActivate:
        break;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    compute_s_[i] += s;
    compute_max_s_[i] = std::max(compute_max_s_[i], s);
  }
}

std::shared_ptr<const ShadowView> ShadowSet::take_view(uint64_t applied, uint64_t queued) const {
  auto v = std::make_shared<ShadowView>();
  v->extra_window_s = opts_.extra_window_s;
  v->applied = applied;
  v->queued = queued;
  v->own_thread = opts_.own_thread;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const ShadowRun& r = *runs_[i];
    ShadowState& s = v->shadows.emplace_back();
    s.policy = r.policy();
    s.events = r.events();
    s.cycles = r.cycles();
    s.jobs = r.jobs();
    s.now = r.now();
    s.compute_s = compute_s_[i];
    s.compute_max_s = compute_max_s_[i];
    s.late_ends = r.late_ends();
    s.late_end_s = r.late_end_s();
    for (size_t w = 0; w < kShadowWindows.size(); ++w)
      s.windows[w] = r.figures(kShadowWindows[w].seconds);
    if (opts_.extra_window_s > 0) s.extra = r.figures(opts_.extra_window_s);
  }
  return v;
}

std::shared_ptr<const ShadowView> ShadowSet::view() const {
  if (!thread_.joinable()) return take_view(applied_, 0);
  std::lock_guard lock(mu_);
  if (stopped_.empty() || view_->stopped == stopped_) return view_;
  auto v = std::make_shared<ShadowView>(*view_);  // the last figures, and why they stopped
  v->stopped = stopped_;
  view_ = v;
  return view_;
}

void ShadowSet::work() {
  // The lowest priority: the shadows take only CPU nothing else on the machine wants
  // (SCHED_IDLE, per thread on Linux; where refused, nice 19).
  sched_param idle{};
  if (sched_setscheduler(0, SCHED_IDLE, &idle) != 0)
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
  std::vector<Command> batch;
  auto last_view = std::chrono::steady_clock::now();
  std::unique_lock lock(mu_);
  for (;;) {
    // Whole turns: events wait for their turn's advance.
    wake_.wait(lock, [&] { return stop_ || turns_ > 0; });
    if (stop_) return;
    batch.swap(queue_);
    turns_ = 0;
    lock.unlock();
    for (const Command& c : batch) {
      apply(c);
      ++applied_;
      const auto now = std::chrono::steady_clock::now();
      if (now - last_view < std::chrono::duration<double>(kPublishEvery_s)) continue;
      last_view = now;
      lock.lock();
      const uint64_t queued = queue_.size();
      lock.unlock();
      auto v = take_view(applied_, queued + static_cast<uint64_t>(&batch.back() - &c));
      lock.lock();
      view_ = std::move(v);
      lock.unlock();
    }
    batch.clear();
    lock.lock();
    if (queue_.empty()) {  // caught up: what readers see is now
      lock.unlock();
      auto v = take_view(applied_, 0);
      last_view = std::chrono::steady_clock::now();
      lock.lock();
      view_ = std::move(v);
    }
  }
}

}  // namespace frugal
