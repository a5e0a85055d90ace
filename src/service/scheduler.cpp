#include "service/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "policy/frugal_profile.h"
#include "policy/lend_idle.h"
#include "policy/node_health.h"
#include "policy/pause_general.h"
#include "policy/profile.h"
#include "service/live_profile.h"

namespace frugal {

ApiReply error_reply(int status, const std::string& message, const std::string& field) {
  ApiReply r;
  r.status = status;
  r.body = {{"error", message}};
  if (!field.empty()) r.body["field"] = field;
  return r;
}

Result<Profile> Scheduler::engine_profile(const std::string& policy, const ServiceConfig& c) {
  Result<Profile> made = live_profile(policy, c);
  if (!made.ok()) return made.error();
  Profile profile = std::move(made).value();
  // alerts.node_hot: its reaction is the node-health plugin (Health point).
  const AlertRules& ar = c.alerts;
  const NodeHealthLimits health{ar.node_hot_temperature_c, ar.node_hot_power_fraction,
                                ar.node_hot_minutes * 60, ar.node_hot_stop_general};
  if (health.any()) profile.plugins.push_back(make_node_health(health));
  // sharing: guests on measured idle (Lend point).
  if (const SharingConfig& sh = c.sharing; sh.enabled) {
    LendOptions lo;
    lo.lend_below = sh.lend_below;
    lo.memory_below = sh.memory_below;
    lo.window_s = sh.window_minutes * 60;
    lo.return_above = sh.return_above;
    lo.min_headroom = sh.min_headroom;
    lo.general_lends = sh.general_lends;
    profile.plugins.push_back(make_lend_idle(lo));
  }
  // pause_general: queued general-tier jobs held while its alerts are active (Hold point).
  if (c.pause_general.enabled) profile.plugins.push_back(make_pause_general(c.pause_general.on));
  return profile;
}

Result<std::unique_ptr<Scheduler>> Scheduler::create(Parts parts) {
  if (parts.config.policy.empty()) parts.config.policy = default_profile_name();
  // A policy set through the API (the last policy change stored) wins over the config's.
  auto changes = parts.store->load_policy_changes();
  if (!changes.ok()) return Error{"policy changes: " + changes.error().message};
  std::string source = "the config";
  if (!changes.value().empty()) {
    const PolicyChangeRow& last = changes.value().back();
    source = fmt::format("set by {} at {:.0f} ({}); the config says '{}'", last.by, last.at,
                         last.reason, parts.config.policy);
    parts.config.policy = last.to;
  }
  Result<Profile> made = engine_profile(parts.config.policy, parts.config);
  if (!made.ok()) return made.error();
  Profile profile = std::move(made).value();
  if (parts.log) parts.log(fmt::format("policy: {} ({})", parts.config.policy, source));
  std::vector<std::string> shadows = parts.config.shadow_policies;
  if (parts.config.policy_guard.enabled) shadows.push_back(parts.config.policy_guard.fallback);
  for (const std::string& p : shadows)
    if (auto shadow = live_profile(p, parts.config); !shadow.ok())
      return Error{fmt::format("shadow_policies: '{}': {}", p, shadow.error().message)};
  // Migrations (+consolidate) and resizes (+elastic) are carried out by stopping the run
  // segment with its checkpoint plan and restarting it (move()). Pack-down, soon-free and
  // autoscaling act only on on-demand pools the driver powers (scheduler_capacity.cpp);
  // on a static cluster (EngineOptions::static_capacity) those parts idle.
  return std::unique_ptr<Scheduler>(new Scheduler(std::move(parts), std::move(profile)));
}

Scheduler::Scheduler(Parts parts, Profile profile)
    : config_(std::move(parts.config)),
      clock_(parts.clock ? std::move(parts.clock) : std::make_shared<SystemClock>()),
      catalog_(std::move(parts.catalog)),
      cluster_(std::move(parts.cluster)),
      gpu_memory_mib_(std::move(parts.gpu_memory_mib)),
      driver_(std::move(parts.driver)),
      store_(std::move(parts.store)),
      log_(std::move(parts.log)),
      fault_(std::move(parts.fault)),
      engine_(std::make_unique<Engine>(
          cluster_, catalog_, std::move(profile),
          service_engine_options(catalog_, config_.max_jobs_per_cycle, driver_->powers_nodes()))),
      alerts_(config_.alerts, log_),
      calendar_(std::make_unique<LiveCalendar>(cluster_.regions, config_.price_fallback, log_)),
      usage_(config_.usage_interval_s, config_.usage_retention_s) {
  initial_power_ = std::move(parts.initial_power);
  storage_ = std::move(parts.storage);
  for (NodeId n = 0; n < cluster_.nodes.size(); ++n)
    node_by_name_.emplace(cluster_.nodes[n].name, n);
  std::map<std::string, int> node_gpus;
  for (const NodeSpec& n : cluster_.nodes) node_gpus[n.name] = n.gpus;
  pushed_ = std::make_unique<TelemetryBook>(std::move(node_gpus), config_.telemetry);
  if (!config_.shadow_policies.empty() || config_.policy_guard.enabled) {
    std::vector<std::string> policies{config_.policy};
    policies.insert(policies.end(), config_.shadow_policies.begin(), config_.shadow_policies.end());
    if (config_.policy_guard.enabled) {
      policies.push_back(config_.policy_guard.fallback);
      guard_ = std::make_unique<PolicyGuard>(config_.policy_guard);
    }
    // Checked in create(): every policy parses.
    ShadowSet::Options opts;
    opts.own_thread = config_.shadow_thread;
    if (guard_) opts.extra_window_s = config_.policy_guard.window_s;
    shadows_ =
        std::move(ShadowSet::create(policies, config_, cluster_, catalog_,
                                    service_engine_options(catalog_, config_.max_jobs_per_cycle,
                                                           driver_->powers_nodes()),
                                    opts)
                      .value());
  }
}

Scheduler::~Scheduler() {
  stop();
}

double Scheduler::wall_now() {
  const double t = clock_->now();
  last_now_ = std::max(last_now_, t);
  return last_now_;
}

void Scheduler::start() {
  started_at_ = wall_now();
  accounted_until_ = engine_time(started_at_);
  if (Status st = rebuild_accounting(); !st.ok()) fatal("ledger: " + st.error().message);
  calendar_->start();
  update_calendar(started_at_);
  publish_health(started_at_);
  thread_ = std::thread([this] { loop(); });
}

void Scheduler::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::future<ApiReply> Scheduler::enqueue(std::function<ApiReply()> fn, bool after_launches) {
  Command c{std::move(fn), {}, after_launches};
  std::future<ApiReply> f = c.done.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      c.done.set_value(error_reply(503, "the service is shutting down"));
      return f;
    }
    queue_.push_back(std::move(c));
  }
  cv_.notify_one();
  return f;
}

void Scheduler::fatal(const std::string& what) {
  log_(fmt::format("fatal: {}; stopping (the database is the truth: restart to recover)", what));
  std::_Exit(70);
}

void Scheduler::loop() {
  constexpr double kPollS = 0.05;
  while (true) {
    std::deque<Command> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      const double wake = engine_->next_wakeup();
      double wait_s = kPollS;
      if (wake != kNever) wait_s = std::clamp(unix_time(wake) - wall_now(), 0.0, kPollS);
      // Handles of just-started jobs: persist them now (unless commits fail: retried each
      // second, not in a spin).
      if (!dirty_.empty() && !commit_failing_) wait_s = 0;
      cv_.wait_for(lock, std::chrono::duration<double>(wait_s),
                   [&] { return stopping_ || !queue_.empty(); });
      if (stopping_ && queue_.empty()) break;
      batch.swap(queue_);
    }
    turn(batch);
    publish_health(wall_now());
    retention(wall_now());
  }
  const bool stored = pending_writes() == 0 || commit_group(true);
  if (!stored)
    log_(
        "stopping with the last changes not stored (the database cannot be written); no "
        "answer or launch depended on them");
  for (Held& h : held_)
    h.done.set_value(stored ? std::move(h.reply)
                            : error_reply(503, "not stored: the database could not be written"));
  held_.clear();
}

void Scheduler::update_calendar(double now) {
  const Result<bool> changed = calendar_->update(now, earliest_, cluster_.regions);
  if (!changed.ok()) {
    if (!calendar_error_logged_) log_("calendar: " + changed.error().message);
    calendar_error_logged_ = true;
  } else if (changed.value()) {
    for (uint32_t r = 0; r < cluster_.regions.size(); ++r) {
      const Region& region = cluster_.regions[r];
      engine_->prices_changed(r, region.electricity_usd_per_mwh, region.carbon_g_per_kwh,
                              region.offpeak);
    }
    engine_dirty_ = true;
    next_stale_check_ = 0;
  }
  if (now < next_stale_check_) return;
  next_stale_check_ = now + 30;
  std::set<std::string> stale;
  for (const auto& [region, message] : calendar_->stale(now)) {
    alerts_.raise("price_series_stale", "region " + region, message, now);
    stale.insert(region);
  }
  for (const Region& r : calendar_->configured())
    if (!stale.count(r.name)) alerts_.clear("price_series_stale", "region " + r.name, now);
}

void Scheduler::transition(Live& l, JobEvent event, std::string reason, double now) {
  const std::optional<JobStatus> to = next_state(l.rec.state, event);
  if (!to) {
    const std::string what =
        fmt::format("job {}: {} while {} is not a transition of the job lifecycle ({})", l.rec.id,
                    to_string(event), to_string(l.rec.state), reason);
    log_(what);
    alerts_.raise("job_lifecycle", fmt::format("job {}", l.rec.id), what, now);
    return;
  }
  transitions_out_.push_back(TransitionRow{l.rec.id, now, std::string(to_string(l.rec.state)),
                                           std::string(to_string(*to)),
                                           std::string(to_string(event)), reason});
  l.rec.state = *to;
  l.rec.reason = std::move(reason);
  mark(l);
  if (is_final(l.rec.state)) {
    remove_empty_checkpoint_dir(l.rec.id);
    shadow_ended(l, now);
  }
  if (is_final(l.rec.state) && accounting_) {
    const double finish = l.rec.finished_at >= 0 ? l.rec.finished_at : now;
    accounting_->job_ended(ledger_index(l.rec.id), *l.spec,
                           l.rec.started_at >= 0 ? engine_time(l.rec.started_at) : -1,
                           engine_time(finish), measured_utilization(l));
  }
}

double Scheduler::measured_utilization(const Live& l) {
  return l.rec.utilization >= 0 ? std::clamp(l.rec.utilization, 0.0, 1.0) : -1.0;
}

void Scheduler::account_capacity(double now) {
  const Seconds t = engine_time(now);
  if (!accounting_ || !(t > accounted_until_)) return;
  accounting_->capacity(accounted_until_, t, engine_->fragmentation_block(),
                        engine_->nodes().provisioned_gpus(), engine_->nodes().booting_gpus(),
                        engine_->nodes().provisioned_nodes());
  accounted_until_ = t;
}

Status Scheduler::rebuild_accounting() {
  accounting_.emplace(cluster_, catalog_, engine_->cluster(),
                      service_engine_options(catalog_, 0, false).reference_model, jobs_.size());
  Result<std::vector<SegmentRow>> stored = store_->load_segments();
  if (!stored.ok()) return stored.error();
  for (const SegmentRow& row : stored.value()) {
    const auto it = jobs_.find(row.job_id);
    const auto p = parse_placement(row.placement);
    if (it == jobs_.end() || !p) continue;
    // A guest's stored segment names its host in its placement (account_segment).
    Live& l = it->second;
    const int64_t guest_of = l.guest_of;
    l.guest_of = guest_host(row.placement);
    account_segment(*accounting_, l, *p, engine_time(row.t0), engine_time(row.t1), row.kept_s);
    l.guest_of = guest_of;
  }
  for (const auto& [id, l] : jobs_)
    if (is_final(l.rec.state))
      accounting_->job_ended(ledger_index(id), *l.spec,
                             l.rec.started_at >= 0 ? engine_time(l.rec.started_at) : -1,
                             engine_time(l.rec.finished_at), measured_utilization(l));
  return Status::Ok();
}

void Scheduler::record_birth(const Live& l, const char* how, double now) {
  transitions_out_.push_back(
      TransitionRow{l.rec.id, now, "", std::string(to_string(l.rec.state)), how, l.rec.reason});
}

// Writes; flushed() forgets what was written once the commit succeeded (a failed commit is
// retried with the same rows).
Status Scheduler::flush() {
  std::sort(dirty_.begin(), dirty_.end());
  dirty_.erase(std::unique(dirty_.begin(), dirty_.end()), dirty_.end());
  for (int64_t id : dirty_) {
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    if (Status st = store_->put_job(it->second.rec); !st.ok()) return st;
  }
  for (const SegmentRow& s : segments_out_)
    if (Status st = store_->add_segment(s); !st.ok()) return st;
  for (const TransitionRow& t : transitions_out_)
    if (Status st = store_->add_transition(t); !st.ok()) return st;
  for (const IdempotencyRow& k : idempotency_out_)
    if (Status st = store_->add_idempotency(k); !st.ok()) return st;
  for (const PolicyChangeRow& c : policy_out_)
    if (Status st = store_->add_policy_change(c); !st.ok()) return st;
  for (const UsageSampleRow& u : usage_out_)
    if (Status st = store_->put_usage_sample(u); !st.ok()) return st;
  return purge_idempotency();
}

void Scheduler::flushed() {
  dirty_.clear();
  segments_out_.clear();
  transitions_out_.clear();
  idempotency_out_.clear();
  policy_out_.clear();
  usage_out_.clear();
}

Status Scheduler::purge_idempotency() {
  const double now = wall_now();
  if (now - idempotency_purged_at_ < 3600) return Status::Ok();  // hourly
  const double before = now - kIdempotencyTtlS;
  if (Status st = store_->purge_idempotency(before); !st.ok()) return st;
  std::erase_if(idempotency_, [before](const auto& kv) { return kv.second.at < before; });
  idempotency_purged_at_ = now;
  return Status::Ok();
}

// One turn: the batch of commands, driver events, an engine cycle when something changed
// or the engine asked to be woken; then ONE group commit of everything (the commands'
// effects and the decisions: a job is durably "running" before its process starts); then
// the replies; then the starts. Handles of started jobs are persisted by the next turn,
// which comes at once (and a crash in between is covered by Driver::adopt with an empty
// handle).
void Scheduler::turn(std::deque<Command>& batch) {
  account_capacity(wall_now());
  check_disk(wall_now());
  std::vector<ApiReply> replies;
  std::vector<bool> wrote;  // the command changed something to store
  replies.reserve(batch.size());
  for (Command& c : batch) {
    const size_t before = pending_writes();
    replies.push_back(c.fn());
    wrote.push_back(pending_writes() != before);
  }
  const double now = wall_now();  // after the commands' own (engine times never decrease)
  std::vector<int64_t> starts;
  for (const DriverEvent& e : driver_->poll()) handle_event(e, now, starts);
  if (now - last_telemetry_ >= config_.telemetry_period_s) sample_telemetry(now);
  update_calendar(now);
  if (storage_) storage_turn(now);
  const Seconds t = engine_time(now);
  // A cycle on news, or when the engine asked for one (a timer, or a running job reaching its
  // estimated end while jobs wait: Engine::next_wakeup). Short of disk space, or commits
  // failing: no cycle, so nothing new is launched (running jobs go on).
  if (!read_only() && (engine_dirty_ || engine_->next_wakeup() <= t)) {
    engine_dirty_ = false;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<Decision>& ds = engine_->schedule(t);
    for (const Decision& d : ds) apply(d, now, starts);
    // Rules undoing each other: the engine decides nothing more; say so where operators look
    // (the alert also logs it). Jobs already running go on; nothing new starts.
    if (engine_->stalled()) alerts_.raise("engine_stalled", "engine", *engine_->stalled(), now);
    ++cycles_;
    decisions_ += ds.size();
    decision_latency_.record(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  shadow_turn(now);
  if (now - usage_sampled_at_ >= std::min(config_.telemetry_period_s, config_.usage_interval_s))
    sample_usage(now);
  // A deferral that ended: the engine queued the job (it may not have started yet).
  while (!deferrals_.empty() && deferrals_.begin()->first <= now) {
    const auto [until, id] = *deferrals_.begin();
    deferrals_.erase(deferrals_.begin());
    const auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second.rec.state != JobStatus::kDeferred ||
        it->second.rec.deferred_until != until)
      continue;
    transition(it->second, JobEvent::kDeferralEnd, "deferral ended; waiting for GPUs", now);
  }
  for (ApiReply& r : replies)
    if (r.after_cycle) {
      r.after_cycle(r);
      r.after_cycle = nullptr;
    }
  if (pending_writes() > 0 && !commit_group()) {
    // Not stored (a full disk): no answer or launch may depend on it. Answers of commands
    // that changed something wait for the commit that stores them (submissions and
    // priority changes are refused meanwhile: refuse_change()); the others go now.
    for (size_t i = 0; i < batch.size(); ++i) {
      if (wrote[i])
        held_.push_back(Held{std::move(batch[i].done), std::move(replies[i])});
      else
        batch[i].done.set_value(std::move(replies[i]));
    }
    blocked_launches_.insert(blocked_launches_.end(), starts.begin(), starts.end());
    return;
  }
  for (Held& h : held_) h.done.set_value(std::move(h.reply));
  held_.clear();
  std::vector<size_t> after_launches;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].after_launches)
      after_launches.push_back(i);
    else
      batch[i].done.set_value(std::move(replies[i]));
  }
  launch_started(starts, now);
  for (size_t i : after_launches) batch[i].done.set_value(std::move(replies[i]));
}

void Scheduler::launch_started(std::vector<int64_t>& starts, double now) {
  // A start on GPUs that a moved job's old segment still uses waits for its exit.
  if (!blocked_launches_.empty()) {
    starts.insert(starts.begin(), blocked_launches_.begin(), blocked_launches_.end());
    blocked_launches_.clear();
  }
  for (int64_t id : starts) {
    Live& l = jobs_.at(id);
    // Still decided and not yet launched (a blocked start may have been preempted or moved).
    if (l.rec.state != JobStatus::kRunning || !l.rec.handle.empty() || l.move_to) continue;
    if (l.rec.cancel_requested) {  // cancelled while its launch waited: it never runs
      close_segment(l, now);
      engine_->finish(l.idx, engine_time(now));
      engine_dirty_ = true;
      l.placement = Placement{};
      l.rec.placement.clear();
      l.rec.finished_at = now;
      transition(l, JobEvent::kCancel, "cancelled", now);
      continue;
    }
    // Its previous run (stopped by a preemption) has not exited: one copy at a time.
    if (!l.rec.stopping_handle.empty() || gpus_in_transit(l.placement))
      blocked_launches_.push_back(id);
    else if (storage_ready(l, now))
      launch(l, now);
  }
}

bool Scheduler::gpus_in_transit(const Placement& p) const {
  auto overlaps = [&p](const Placement& q) {
    for (const Slot& a : q.slots)
      for (const Slot& b : p.slots)
        if (a.node == b.node && a.gpu == b.gpu && a.gpu >= 0) return true;
    return false;
  };
  for (int64_t id : moving_)
    if (overlaps(jobs_.at(id).placement)) return true;
  for (const auto& [id, q] : stopping_runs_)
    if (overlaps(q)) return true;
  return false;
}

void Scheduler::enter_engine(Live& l, double now) {
  const JobIdx idx = next_idx_++;
  by_idx_.push_back(l.rec.id);
  l.idx = idx;
  l.draining = false;
  l.exited = false;
  engine_->submit(idx, l.spec.get(), engine_time(now));
  engine_dirty_ = true;
}

void Scheduler::close_segment(Live& l, double now) {
  if (l.rec.segment_start < 0) return;
  const double t0 = l.rec.segment_start;
  const double t1 = std::max(now, t0);
  // checkpoint_interval 0: jobs checkpoint when stopped, so a segment's work is kept.
  segments_out_.push_back(SegmentRow{l.rec.id, t0, t1, t1 - t0, l.rec.placement});
  l.rec.segment_start = -1;
  if (const auto p = parse_placement(l.rec.placement)) {
    if (accounting_)
      account_segment(*accounting_, l, *p, engine_time(t0), engine_time(t1), t1 - t0);
    l.work_ref_s += (t1 - t0) * reference_speed(p->model, l.spec->job_class);
  }
  l.guest_of = 0;  // a guest's run ends with its segment
  if (storage_) storage_run_ended(l, now);
}

StopPlan Scheduler::stop_plan(const Live& l, bool checkpoint_first) const {
  StopPlan p;
  p.checkpoint_signal = l.rec.request.checkpoint_signal;
  p.grace_s = l.rec.request.grace_s >= 0 ? l.rec.request.grace_s : config_.checkpoint_grace_s;
  if (!checkpoint_first) p.grace_s = std::min(p.grace_s, config_.term_grace_s);
  p.term_grace_s = config_.term_grace_s;
  p.requeue = !l.rec.cancel_requested;  // preempted jobs run again; cancelled ones do not
  return p;
}

StopPlan Scheduler::kill_plan(const Live& l) const {
  StopPlan p = stop_plan(l, false);
  p.checkpoint_signal = 0;  // no checkpoint: SIGTERM, then SIGKILL
  return p;
}

LaunchSpec Scheduler::launch_spec(const Live& l) const {
  LaunchSpec s;
  s.job_id = std::to_string(l.rec.id);
  s.team = l.rec.team;
  s.name = l.rec.request.name;
  s.command = l.rec.request.command;
  s.workdir = l.rec.request.workdir;
  s.env = l.rec.request.env;
  // What is left of the estimate after the work earlier segments kept (their checkpoints),
  // at this placement's speed: when the engine expects this run to end.
  if (l.rec.request.estimate_s > 0) {
    const double left_ref = std::max(0.0, l.spec->duration - l.work_ref_s);
    s.run_s = std::max(1.0, left_ref / reference_speed(l.placement.model, l.spec->job_class));
  }
  int gpus = 0;
  for (const Slot& slot : l.placement.slots) {
    s.slots.push_back(SlotAssignment{cluster_.nodes[slot.node].name, slot.gpu, slot.milli});
    gpus += slot.gpu >= 0 ? 1 : 0;
  }
  // This segment's GPU count (an elastic job's changes with each resize).
  s.env.emplace_back("FRUGAL_NUM_GPUS", std::to_string(gpus));
  if (l.spec->fractional() && l.placement.model != kNoGpuModel) {
    // The card's own memory where the backend reported it (a 24 GB card may have 23,034 MiB
    // usable: four quarters of the catalog's 24,576 would overcommit it), else the catalog's.
    int64_t card = catalog_.at(l.placement.model).memory_mib;
    for (const Slot& slot : l.placement.slots) {
      const auto it = gpu_memory_mib_.find(cluster_.nodes[slot.node].name);
      if (slot.gpu >= 0 && it != gpu_memory_mib_.end() &&
          static_cast<size_t>(slot.gpu) < it->second.size() && it->second[slot.gpu] > 0)
        card = it->second[slot.gpu];
    }
    s.gpu_memory_limit_mib = card * l.spec->gpu_milli / 1000;
  }
  if (l.guest_of > 0) guest_limits(l, s);
  s.checkpoint_signal = l.rec.request.checkpoint_signal;
  s.restart_count = l.rec.restart_count;
  s.tier = std::string(to_string(l.spec->tier));
  s.checkpoint_dir = fmt::format("{}/{}", config_.checkpoint_dir, l.rec.id);
  s.log_dir = config_.log_dir;
  if (storage_) storage_env(l, s);
  return s;
}

void Scheduler::launch(Live& l, double now) {
  // A new run segment is measured afresh (job_idle judges this run, not the last).
  l.last_utilization = -1;
  l.measured_at = -1;
  l.idle_since = -1;
  l.solo_use = -1;
  l.use.clear();
  const LaunchSpec s = launch_spec(l);
  if (fault_) fault_("decided", s.job_id);
  Result<std::string> h = driver_->start(s);
  if (h.ok()) {
    l.rec.handle = h.value();
    log_(fmt::format("job {} started ({}) on {}", l.rec.id, l.rec.handle,
                     s.slots.empty() ? "?" : s.slots[0].node));
  } else {
    fail_launch(l, now, h.error().message);
  }
  mark(l);
}

void Scheduler::fail_launch(Live& l, double now, const std::string& why) {
  log_(fmt::format("job {} failed to start: {}", l.rec.id, why));
  close_segment(l, now);
  engine_->finish(l.idx, engine_time(now));
  engine_dirty_ = true;
  l.rec.finished_at = now;
  l.rec.placement.clear();
  transition(l, JobEvent::kExitFail, "failed to start: " + why, now);
  mark(l);
}

void Scheduler::apply(const Decision& d, double now, std::vector<int64_t>& starts) {
  if (d.kind == Decision::Kind::kProvision || d.kind == Decision::Kind::kRelease) {
    apply_power_decision(d);
    return;
  }
  if (d.job >= by_idx_.size()) return;
  const auto it = jobs_.find(by_idx_[d.job]);
  if (it == jobs_.end()) return;
  Live& l = it->second;
  if (l.idx != d.job) return;  // a decision about a superseded engine entry
  switch (d.kind) {
    case Decision::Kind::kStart:
      l.placement = d.placement;
      l.draining = false;
      l.exited = false;
      l.guest_of = d.guest && d.host < by_idx_.size() ? by_idx_[d.host] : 0;
      transition(l, JobEvent::kStart, d.guest ? d.reason : "", now);
      l.rec.segment_start = now;
      if (l.rec.started_at < 0) l.rec.started_at = now;
      l.rec.placement = placement_json(d.placement, l.guest_of);
      l.rec.handle.clear();
      submit_to_start_.record(std::max(0.0, now - l.rec.submitted_at));
      starts.push_back(l.rec.id);
      break;
    case Decision::Kind::kSignal:
      l.draining = true;
      l.rec.reason = d.reason;
      if (!l.rec.handle.empty() && !l.exited) (void)driver_->stop(l.rec.handle, stop_plan(l, true));
      log_(fmt::format("job {}: checkpoint signal ({})", l.rec.id, d.reason));
      break;
    case Decision::Kind::kPreempt: {
      if (!l.draining && !l.rec.handle.empty() && !l.exited)
        (void)driver_->stop(l.rec.handle, preempt_plan(l));
      const bool outlived = !l.rec.handle.empty() && !l.exited;
      if (outlived) {
        // The engine frees its GPUs now, but the process is still in its stop sequence
        // (TERM, then KILL after term_grace_s): until it exits neither its GPUs nor the job's
        // next run may be used (both would run twice at once).
        l.rec.stopping_handle = l.rec.handle;
        l.rec.stopping_placement = l.rec.placement;
        stopping_runs_[l.rec.id] = l.placement;
      }
      close_segment(l, now);
      l.draining = false;
      l.move_to.reset();  // a move in progress ends in the queue instead
      moving_.erase(l.rec.id);
      l.placement = Placement{};
      l.rec.placement.clear();
      ++l.rec.restart_count;
      if (l.rec.cancel_requested) {
        // A cancelled job's preemption ends it: take it off the queue.
        engine_->withdraw(l.idx, engine_time(now));
        l.rec.finished_at = now;
        transition(l, JobEvent::kCancel, "cancelled", now);
      } else {
        std::string why = "preempted: " + d.reason;
        if (outlived)  // the engine assumed a checkpoint; say what happened
          why +=
              "; its process was still running when the grace ended (SIGTERM, then "
              "SIGKILL; its checkpoint may be incomplete)";
        transition(l, JobEvent::kPreempt, std::move(why), now);
      }
      log_(fmt::format("job {}: preempted ({})", l.rec.id, d.reason));
      break;
    }
    case Decision::Kind::kReject:
      l.rec.finished_at = now;
      transition(l, JobEvent::kReject, "rejected: " + d.reason, now);
      break;
    case Decision::Kind::kDefer:
      if (l.rec.state == JobStatus::kRunning) {  // the engine's internal-error report
        log_(fmt::format("job {}: {}", l.rec.id, d.reason));
        break;
      }
      deferrals_.emplace(unix_time(d.until), l.rec.id);
      transition(l, JobEvent::kDefer, d.reason, now);
      l.rec.deferred_until = unix_time(d.until);
      driver_->deferred(launch_spec(l), l.rec.deferred_until);
      break;
    case Decision::Kind::kMigrate:
    case Decision::Kind::kResize:
      move(l, d);
      break;
    case Decision::Kind::kPrefetch:
      if (storage_) storage_prefetch(l, d, now);
      return;  // a hint: the job's record does not change
    case Decision::Kind::kProvision:
    case Decision::Kind::kRelease:
      break;  // handled above
  }
  mark(l);
}

void Scheduler::move(Live& l, const Decision& d) {
  const bool resize = d.kind == Decision::Kind::kResize;
  l.rec.reason = fmt::format("{}: {}", resize ? "resizing" : "migrating", d.reason);
  if (l.rec.handle.empty() || l.exited) {
    // Its segment has not been launched yet (decided this turn, or waiting for GPUs in
    // transit), or already ended while draining (a kPreempt follows): nothing runs to stop.
    l.placement = d.placement;
    l.rec.placement = placement_json(d.placement);
    return;
  }
  // Stop the old segment as for a preemption: checkpoint signal, grace, TERM, KILL. A
  // second move before its exit only changes the destination (the stop is under way).
  if (!l.move_to && !l.draining) (void)driver_->stop(l.rec.handle, stop_plan(l, true));
  l.move_to = d.placement;
  moving_.insert(l.rec.id);
  log_(fmt::format("job {}: {} ({}); stopping its run segment to restart it on {} GPU(s)", l.rec.id,
                   resize ? "resize" : "migration", d.reason, d.placement.slots.size()));
}

void Scheduler::begin_moved_segment(Live& l, double now, std::vector<int64_t>& starts) {
  close_segment(l, now);  // the old placement's segment (its work was checkpointed)
  l.placement = *l.move_to;
  l.move_to.reset();
  moving_.erase(l.rec.id);
  l.rec.placement = placement_json(l.placement);
  l.rec.segment_start = now;
  ++l.rec.restart_count;
  // Recorded (placement, segment start, no handle) in this turn's commit, before the launch:
  // a crash in between is a start whose handle was not persisted (adopt by job id).
  starts.push_back(l.rec.id);
}

void Scheduler::node_event(const DriverEvent& e, double now) {
  const bool up = e.kind == DriverEvent::Kind::kNodeUp;
  log_(fmt::format("node {} {}: {}", e.node, up ? "up" : "down", e.message));
  for (NodeId n = 0; n < cluster_.nodes.size(); ++n)
    if (cluster_.nodes[n].name == e.node) {
      if (up)
        engine_->node_up(n, engine_time(now));
      else
        engine_->node_down(n, engine_time(now));
      if (shadows_) shadows_->node(n, up, engine_time(now));
      engine_dirty_ = true;
    }
}

int64_t Scheduler::event_job(const DriverEvent& e) const {
  if (e.job_id.empty()) {  // a foreign run's end: known by its handle
    int64_t id = 0;
    for (const auto& [jid, j] : jobs_)
      if (j.rec.team == kExternalTeam && j.rec.handle == e.handle) id = jid;
    return id;
  }
  try {
    return std::stoll(e.job_id);
  } catch (...) {
    return 0;
  }
}

void Scheduler::handle_event(const DriverEvent& e, double now, std::vector<int64_t>& starts) {
  switch (e.kind) {
    case DriverEvent::Kind::kNodeUp:
    case DriverEvent::Kind::kNodeDown:
      node_event(e, now);
      return;
    case DriverEvent::Kind::kBackendDown:
      alerts_.raise("backend_unreachable", driver_->name(), e.message, now);
      return;
    case DriverEvent::Kind::kBackendUp:
      alerts_.clear("backend_unreachable", driver_->name(), now);
      return;
    case DriverEvent::Kind::kForeign:
      observe_foreign(e, now);
      return;
    case DriverEvent::Kind::kPower:
      power_event(e, now);
      return;
    case DriverEvent::Kind::kExited:
    case DriverEvent::Kind::kLost:
    case DriverEvent::Kind::kEndedUnseen:
      break;
  }
  const int64_t id = event_job(e);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  Live& l = it->second;
  if (!l.rec.stopping_handle.empty() && e.handle == l.rec.stopping_handle) {
    // The stopped run's process is gone: its GPUs and the job's next launch are free.
    l.rec.stopping_handle.clear();
    l.rec.stopping_placement.clear();
    stopping_runs_.erase(l.rec.id);
    mark(l);
    if (l.rec.handle != e.handle) {  // started again since (its launch was waiting for this)
      log_(fmt::format("job {}: its stopped run ended ({})", id, e.message));
      return;
    }
  }
  if (l.rec.handle != e.handle) return;  // an earlier run's late report
  l.rec.handle.clear();
  if (e.output_truncated) l.rec.output_truncated = true;
  mark(l);
  log_(fmt::format("job {}: {}", id, e.message));
  if (l.rec.state != JobStatus::kRunning) return;  // already preempted or cancelled
  if (l.draining && !l.rec.cancel_requested) {
    // It stopped while writing its checkpoint: its GPUs are free now, so the drain ends now
    // (the engine requeues it and the preemptor may start) instead of at the grace's end.
    l.exited = true;
    if (engine_->end_drain(l.idx, engine_time(now))) engine_dirty_ = true;
    return;
  }
  if (l.move_to && !l.rec.cancel_requested) {
    // The old segment of a migration or resize ended (whatever its status): not the job's
    // end; the engine already holds its new placement.
    begin_moved_segment(l, now, starts);
    return;
  }
  l.move_to.reset();
  moving_.erase(l.rec.id);
  // A job that ended while the service was down ended then, not at this report: its run
  // segment and finish time say so (the engine, on its own clock, frees the GPUs now).
  const double ended =
      e.ended_unix > 0 && e.ended_unix < now ? std::max(e.ended_unix, l.rec.segment_start) : now;
  close_segment(l, ended);
  if (l.idx != Live::kNone) engine_->finish(l.idx, engine_time(now));
  engine_dirty_ = true;
  l.placement = Placement{};
  l.rec.placement.clear();
  l.rec.finished_at = ended;
  if (l.rec.cancel_requested) {
    transition(l, JobEvent::kCancel, "cancelled", now);
  } else if (e.kind == DriverEvent::Kind::kEndedUnseen) {
    transition(l, JobEvent::kRunUnknown,
               e.message + "; not run again (it may have done its work): resubmit it if not", now);
  } else if (e.kind == DriverEvent::Kind::kExited && e.exit_code == 0) {
    l.rec.exit_code = 0;
    transition(l, JobEvent::kExitOk, "", now);
    learn_runtime(l.rec, *l.spec);
  } else {
    if (e.kind == DriverEvent::Kind::kExited && e.exit_code >= 0) l.rec.exit_code = e.exit_code;
    transition(l, JobEvent::kExitFail, e.message, now);
  }
}

std::string Scheduler::placement_json(const Placement& p, int64_t guest_of) const {
  nlohmann::json slots = nlohmann::json::array();
  for (const Slot& s : p.slots) slots.push_back({s.node, s.gpu, s.milli});
  nlohmann::json j = {{"model", p.model == kNoGpuModel ? "" : catalog_.at(p.model).name},
                      {"slots", slots}};
  if (guest_of > 0) j["guest_of"] = guest_of;
  return j.dump();
}

std::optional<Placement> Scheduler::parse_placement(const std::string& text) const {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    Placement p;
    const std::string model = j.at("model").get<std::string>();
    if (!model.empty()) {
      const auto m = catalog_.find(model);
      if (!m) return std::nullopt;
      p.model = *m;
    }
    for (const auto& s : j.at("slots")) {
      Slot slot;
      slot.node = s.at(0).get<NodeId>();
      slot.gpu = s.at(1).get<int16_t>();
      slot.milli = s.at(2).get<Milli>();
      if (slot.node >= cluster_.nodes.size()) return std::nullopt;
      p.slots.push_back(slot);
    }
    return p;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace frugal
