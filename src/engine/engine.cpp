#include "engine/engine.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/decision_util.h"

namespace frugal {

using decision_util::job_decision;
using decision_util::whole_slots;

Engine::Engine(const ClusterSpec& spec, const GpuCatalog& catalog, Profile profile,
               EngineOptions options)
    : catalog_(catalog),
      profile_(std::move(profile)),
      options_(options),
      state_(spec, catalog),
      pool_(state_.spec(), state_, options.static_capacity),
      thresholds_(profile_.sort->service_thresholds()),
      node_jobs_(spec.nodes.size()),
      on_demand_(spec, catalog.size()) {
  pool_.set_prompt_release(profile_.prompt_release());
  for (const auto& plugin : profile_.plugins) {
    if (auto guard = plugin->node_guard(state_.spec(), catalog_)) {
      state_.set_guard(std::move(guard));
      break;
    }
  }
}

void Engine::leave_pending(JobIdx j) {
  pending_.erase(key_of(j));
  if (small_job(*jobs_[j].spec)) --pending_small_;
  unwatch_starvation(j);
}

QueueKey Engine::key_of(JobIdx j) const {
  QueueKey k = profile_.sort->key(jobs_[j]);
  k.seq = jobs_[j].seq;
  k.job = j;
  return k;
}

std::optional<Placement> Engine::try_place(const ClusterState& state, const JobSpec& job) const {
  const Candidates c = profile_.filter->filter(*this, job);
  if (c.models.empty() && job.gpus != 0) return std::nullopt;
  return profile_.placer->place(state, job, c);
}

GpuModelId Engine::overflow_model(const JobSpec& job) const {
  if (!pool_.autoscaled() || job.gpus == 0) return kNoGpuModel;
  // As unmet_demand(): the first candidate model that on-demand capacity could add.
  for (GpuModelId m : profile_.filter->filter(*this, job).models)
    if (pool_.has_on_demand(m)) return m;
  return kNoGpuModel;
}

bool Engine::can_add_capacity(const JobSpec& job) const {
  const GpuModelId m = overflow_model(job);
  return m != kNoGpuModel && pool_.unprovisioned_gpus(m) >= job.gpus;
}

double Engine::speed(const JobSpec& job, GpuModelId m) const {
  return catalog_.relative_speed(m, options_.reference_model, job.job_class);
}

double Engine::speed_on(const JobRuntime& r, const Placement& p) const {
  const double base = speed(*r.spec, p.model);
  if (!r.elastic()) return base;
  const int n = whole_slots(p);
  return base * std::pow(static_cast<double>(n) / r.spec->gpus, options_.elastic_alpha);
}

std::optional<Placement> Engine::place_sized(const JobRuntime& r, int n, GpuModelId model) const {
  JobSpec sized = *r.spec;
  sized.gpus = n;
  Candidates c;
  if (model != kNoGpuModel) {
    c.models = {model};
  } else {
    c = profile_.filter->filter(*this, sized);
    if (c.models.empty()) return std::nullopt;
  }
  return profile_.placer->place(state_, sized, c);
}

JobRuntime& Engine::fresh_runtime(JobIdx j, const JobSpec* spec, Seconds now) {
  if (jobs_.size() <= j) {
    jobs_.resize(j + 1);
    end_key_.resize(j + 1, kNever);
    demote_at_.resize(j + 1, kNever);
    starve_at_.resize(j + 1, kNever);
  }
  JobRuntime& r = jobs_[j];
  r = JobRuntime{};
  r.spec = spec;
  r.seq = next_seq_++;
  r.las_enter = now;
  return r;
}

void Engine::submit(JobIdx j, const JobSpec* spec, Seconds now) {
  now_ = now;
  JobRuntime& r = fresh_runtime(j, spec, now);
  const AdmitVerdict v = profile_.admit->admit(*this, r);
  switch (v.kind) {
    case AdmitVerdict::Kind::kReject:
      r.state = JobState::kRejected;
      queued_.push_back(job_decision(Decision::Kind::kReject, j, {}, kNever, v.reason));
      return;
    case AdmitVerdict::Kind::kDefer:
      r.state = JobState::kPending;
      deferred_.emplace(v.until, j);
      queued_.push_back(job_decision(Decision::Kind::kDefer, j, {}, v.until, v.reason));
      return;
    case AdmitVerdict::Kind::kAdmit:
      enter_queue(j, now);
      return;
  }
}

void Engine::enqueue(JobIdx j, Seconds now) {
  JobRuntime& r = jobs_[j];
  r.state = JobState::kPending;
  r.queued_since = now;
  r.first_examined = -1;
  unexamined_.emplace(now, j);
  pending_.insert(key_of(j));
  if (small_job(*r.spec)) ++pending_small_;
  if (!r.starved) {
    const Seconds at = profile_.sort->starve_at(r, now);
    if (at != kNever) {
      starve_at_[j] = std::max(at, now);
      starvations_.emplace(starve_at_[j], j);
    }
  }
}

void Engine::unwatch_starvation(JobIdx j) {
  if (starve_at_[j] != kNever) starvations_.erase({starve_at_[j], j});
  starve_at_[j] = kNever;
}

void Engine::apply_starvations(Seconds now) {
  while (!starvations_.empty() && starvations_.begin()->first <= now) {
    const JobIdx j = starvations_.begin()->second;
    starvations_.erase(starvations_.begin());
    starve_at_[j] = kNever;
    pending_.erase(key_of(j));
    jobs_[j].starved = true;
    pending_.insert(key_of(j));
  }
}

void Engine::signal(JobIdx j, Seconds now, Seconds grace, std::vector<Decision>& into,
                    std::string reason) {
  JobRuntime& r = jobs_[j];
  if (r.state != JobState::kRunning || r.signalled()) return;
  requeue_holds_.erase(j);  // a hold belongs to the checkpoint_requeue that sets it next
  r.signalled_at = now;
  // A job that needs less time to checkpoint than the profile allows frees its GPUs sooner.
  const Seconds own = r.spec->checkpoint_grace;
  r.stop_at = now + std::max(0.0, own >= 0 ? std::min(own, grace) : grace);
  running_by_end_.erase({end_key_[j], j});
  end_key_[j] = r.expected_end(now);
  running_by_end_.emplace(end_key_[j], j);
  drains_.emplace(r.stop_at, j);
  into.push_back(
      job_decision(Decision::Kind::kSignal, j, r.placement, r.stop_at, "checkpoint: " + reason));
  drain_reasons_[j] = std::move(reason);
}

std::string Engine::take_drain_reason(JobIdx j) {
  const auto it = drain_reasons_.find(j);
  if (it == drain_reasons_.end()) return kPreemptedForTier;
  std::string why = std::move(it->second);
  drain_reasons_.erase(it);
  return why;
}

bool Engine::checkpoint_requeue(JobIdx j, Seconds now, Seconds grace, std::string reason,
                                Seconds hold) {
  now_ = now;
  if (j >= jobs_.size() || jobs_[j].state != JobState::kRunning || jobs_[j].signalled() ||
      jobs_[j].spec->pinned || is_guest(j))
    return false;
  signal(j, now, std::max(0.0, grace), queued_, std::move(reason));
  if (hold > 0) requeue_holds_[j] = hold;
  return true;
}

void Engine::requeue_drained(JobIdx j, Seconds now, const char* how, std::vector<Decision>& into) {
  Placement held = jobs_[j].placement;
  stop(j, now, true);  // erases the drains_ entry
  ++jobs_[j].preemptions;
  Seconds hold = 0;
  if (const auto it = requeue_holds_.find(j); it != requeue_holds_.end()) {
    hold = it->second;
    requeue_holds_.erase(it);
  }
  Decision d = job_decision(Decision::Kind::kPreempt, j, std::move(held), kNever,
                            take_drain_reason(j) + how);
  d.saved = true;
  into.push_back(std::move(d));
  if (hold <= 0) {
    enter_queue(j, now);
    return;
  }
  // Held back: the jobs waiting for its GPUs go first.
  jobs_[j].state = JobState::kPending;
  deferred_.emplace(now + hold, j);
  into.push_back(job_decision(Decision::Kind::kDefer, j, {}, now + hold,
                              "requeued after a checkpoint; held back so that waiting jobs go "
                              "first"));
}

void Engine::complete_drains(Seconds now) {
  while (!drains_.empty() && drains_.begin()->first <= now)
    requeue_drained(drains_.begin()->second, now, " (checkpointed)", out_);
}

bool Engine::end_drain(JobIdx j, Seconds now) {
  if (j >= jobs_.size() || jobs_[j].state != JobState::kRunning || !jobs_[j].signalled())
    return false;
  now_ = now;
  requeue_drained(j, now, " (checkpointed; it ended before its grace did)", queued_);
  return true;
}

void Engine::start(JobIdx j, Placement p, Seconds now) {
  JobRuntime& r = jobs_[j];
  leave_pending(j);
  r.state = JobState::kRunning;
  r.placement = std::move(p);
  r.size = whole_slots(r.placement);
  r.speed = speed_on(r, r.placement);
  r.run_start = now;
  r.restart_s = 0;
  r.service_from = now;
  running_.insert(key_of(j));
  if (r.spec->movable) ++running_movable_;
  if (r.elastic()) ++running_elastic_;
  end_key_[j] = r.expected_end(now);
  running_by_end_.emplace(end_key_[j], j);
  for (NodeId n : r.placement.nodes()) {
    node_jobs_[n].push_back(j);
    pool_.busy(n);
  }
  schedule_demotion(j, now);
}

void Engine::stop(JobIdx j, Seconds now, bool saved) {
  if (!guests_.empty()) drop_guests(j, "its host stopped");
  JobRuntime& r = jobs_[j];
  state_.release(r.placement, *r.spec);
  running_.erase(key_of(j));
  if (r.spec->movable) --running_movable_;
  if (r.elastic()) --running_elastic_;
  running_by_end_.erase({end_key_[j], j});
  if (demote_at_[j] != kNever) demotions_.erase({demote_at_[j], j});
  demote_at_[j] = kNever;
  for (NodeId n : r.placement.nodes()) {
    auto& v = node_jobs_[n];
    v.erase(std::find(v.begin(), v.end(), j));
    pool_.idle(n, now);
  }
  r.attained_gpu_s += (now - r.service_from) * r.gpus();
  r.service_from = now;
  // The engine's view of progress: work up to the last checkpoint survives a stop. A
  // signalled job computed only until its signal; its checkpoint then saved all of it.
  const bool signalled = r.signalled();
  const Seconds end = signalled ? r.signalled_at : now;
  const Seconds kept = saved ? std::max(0.0, end - r.run_start - r.restart_s) : r.kept_at(end);
  r.progress_ref_s += kept * r.speed;
  r.restart_s = 0;
  r.placement = Placement{};
  r.size = 0;
  if (signalled) drains_.erase({r.stop_at, j});
  r.signalled_at = -1;
  r.stop_at = kNever;
  r.starved = false;
}

Status Engine::migrate(JobIdx j, Placement to, Seconds now, Seconds cost) {
  JobRuntime& r = jobs_[j];
  if (r.state != JobState::kRunning) return Error{"migrate: job is not running"};
  if (is_guest(j)) return Error{"migrate: job is a guest"};
  if (!guests_.empty()) drop_guests(j, "its host moved");
  const JobSpec& s = *r.spec;
  state_.release(r.placement, s);
  if (Status st = state_.allocate(to, s); !st.ok()) {
    // Put the job back where it was (its resources were free a moment ago).
    (void)state_.allocate(r.placement, s);
    return st;
  }
  for (NodeId n : r.placement.nodes()) {
    auto& v = node_jobs_[n];
    v.erase(std::find(v.begin(), v.end(), j));
    pool_.idle(n, now);
  }
  for (NodeId n : to.nodes()) {
    node_jobs_[n].push_back(j);
    pool_.busy(n);
  }
  // The segment ends: work up to its last checkpoint is kept; the new one restarts.
  r.progress_ref_s += r.kept_at(now) * r.speed;
  r.run_start = now;
  r.restart_s = cost;
  r.placement = std::move(to);
  r.size = whole_slots(r.placement);
  r.speed = speed_on(r, r.placement);
  running_by_end_.erase({end_key_[j], j});
  end_key_[j] = r.expected_end(now);
  running_by_end_.emplace(end_key_[j], j);
  return Status::Ok();
}

void Engine::consolidate(Seconds now) {
  // The first few queued whole-GPU jobs still waiting after the walk.
  std::vector<JobIdx> blocked;
  size_t seen = 0;
  for (auto it = pending_.begin(); it != pending_.end() && seen < options_.consolidate_examined &&
                                   blocked.size() < options_.consolidate_jobs;
       ++it, ++seen) {
    const JobIdx j = it->job;
    const JobSpec& s = *jobs_[j].spec;
    if (s.gpus <= 0 || s.fractional()) continue;
    if (cycle_.stopped_now(j)) continue;  // stopped this very cycle
    blocked.push_back(j);
  }
  for (JobIdx j : blocked) {
    const JobSpec& s = *jobs_[j].spec;
    const Candidates c = profile_.filter->filter(*this, s);
    if (c.models.empty()) continue;
    std::optional<ConsolidationPlan> plan = profile_.consolidate->plan(*this, j, c);
    if (!plan) continue;
    if (std::any_of(plan->moves.begin(), plan->moves.end(),
                    [&](const Move& m) { return jobs_[m.job].spec->pinned; }))
      continue;  // a pinned job does not move
    bool ok = true;
    for (Move& m : plan->moves) {
      Placement to = m.to;
      if (Status st = migrate(m.job, std::move(to), now, options_.migration_cost_s); !st.ok()) {
        queued_.push_back(job_decision(Decision::Kind::kDefer, j, {}, now,
                                       "internal: migration rejected: " + st.error().message));
        ok = false;
        break;
      }
      ++jobs_[m.job].migrations;
      out_.push_back(job_decision(Decision::Kind::kMigrate, m.job, std::move(m.to),
                                  options_.migration_cost_s,
                                  fmt::format("consolidation for job {}", s.id)));
    }
    if (!ok) break;
    if (Status st = state_.allocate(plan->placement, s); !st.ok()) {
      queued_.push_back(job_decision(Decision::Kind::kDefer, j, {}, now,
                                     "internal: placement rejected: " + st.error().message));
      break;
    }
    out_.push_back(job_decision(Decision::Kind::kStart, j, plan->placement, kNever, {}));
    start(j, std::move(plan->placement), now);
  }
}

void Engine::resume(JobIdx j, const JobRuntime& before) {
  JobRuntime& r = jobs_[j];
  leave_pending(j);
  r = before;
  running_.insert(key_of(j));  // keyed as it ran (a stop clears `starved`)
  if (r.spec->movable) ++running_movable_;
  if (r.elastic()) ++running_elastic_;
  end_key_[j] = r.expected_end(now_);
  running_by_end_.emplace(end_key_[j], j);
  for (NodeId n : r.placement.nodes()) {
    node_jobs_[n].push_back(j);
    pool_.busy(n);
  }
  schedule_demotion(j, now_);
}

void Engine::finish(JobIdx j, Seconds now) {
  now_ = now;
  if (j >= jobs_.size() || jobs_[j].state != JobState::kRunning) return;
  if (is_guest(j)) {
    end_guest(j);
    return;
  }
  stop(j, now);
  jobs_[j].state = JobState::kFinished;
  job_use_.erase(j);
  churn_.progress();
}

bool Engine::withdraw(JobIdx j, Seconds now) {
  now_ = now;
  if (j >= jobs_.size() || jobs_[j].state != JobState::kPending) return false;
  if (pending_.count(key_of(j)) != 0) {
    leave_pending(j);
  } else if (held_.erase(j) == 0) {
    const auto it = std::find_if(deferred_.begin(), deferred_.end(),
                                 [j](const auto& e) { return e.second == j; });
    if (it == deferred_.end()) return false;
    deferred_.erase(it);
  }
  jobs_[j].state = JobState::kFinished;
  return true;
}

bool Engine::update_running(JobIdx j, const JobSpec* spec) {
  if (j >= jobs_.size() || jobs_[j].state != JobState::kRunning) return false;
  if (is_guest(j)) {
    jobs_[j].spec = spec;
    return true;
  }
  running_.erase(key_of(j));
  jobs_[j].spec = spec;
  running_.insert(key_of(j));
  return true;
}

Status Engine::adopt(JobIdx j, const JobSpec* spec, const Placement& p, Seconds run_start,
                     Seconds now) {
  now_ = now;
  if (j < jobs_.size() && jobs_[j].state != JobState::kUnknown)
    return Error{fmt::format("adopt: job index {} is in use", j)};
  for (NodeId n : p.nodes())
    if (n >= state_.node_count()) return Error{fmt::format("adopt: no node {}", n)};
  if (Status st = state_.allocate(p, *spec); !st.ok()) return st;
  fresh_runtime(j, spec, now);
  enqueue(j, now);  // start() takes it off the queue again
  start(j, p, std::min(run_start, now));
  return Status::Ok();
}

void Engine::node_down(NodeId n, Seconds now) {
  now_ = now;
  if (n >= state_.node_count() || !pool_.fail(n)) return;
  evict(n, now, "node down");
}

void Engine::evict(NodeId n, Seconds now, const char* reason, Seconds notice) {
  const std::vector<JobIdx> victims = node_jobs_[n];
  for (JobIdx j : victims) {
    if (jobs_[j].spec->pinned) continue;  // holds its GPUs until it is reported ended
    const bool saved = notice >= 0 && jobs_[j].spec->checkpoint_grace <= notice;
    Placement held = jobs_[j].placement;
    stop(j, now, saved);
    ++jobs_[j].preemptions;
    enter_queue(j, now);
    Decision d = job_decision(Decision::Kind::kPreempt, j, std::move(held), kNever,
                              saved ? fmt::format("{} (checkpointed)", reason) : reason);
    d.saved = saved;
    queued_.push_back(std::move(d));
  }
}

bool Engine::node_power(NodeId n, NodePower p, Seconds now) {
  now_ = now;
  if (n >= state_.node_count() || !pool_.on_demand(n) || !pool_.autoscaled()) return false;
  const NodeLife l = pool_.life(n);
  const bool holds = l == NodeLife::kUp || l == NodeLife::kFailed;
  if (holds && (p == NodePower::kOff || p == NodePower::kFailed))
    evict(n, now, p == NodePower::kOff ? "node powered down" : "node failed");
  return pool_.observe_power(n, p, now);
}

void Engine::node_up(NodeId n, Seconds now) {
  now_ = now;
  if (n < state_.node_count()) pool_.repair(n, now);
}

void Engine::node_provisioned(NodeId n, Seconds now) {
  now_ = now;
  if (n < state_.node_count()) pool_.provisioned(n, now);
}

void Engine::reclaim_notice(NodeId n, Seconds now, Seconds notice) {
  now_ = now;
  if (n >= state_.node_count() || !pool_.spot(n) || !pool_.autoscaled() || !pool_.fail(n)) return;
  evict(n, now, "spot reclaim notice", std::max(0.0, notice));
}

void Engine::node_reclaimed(NodeId n, Seconds now) {
  now_ = now;
  if (n >= state_.node_count() || !pool_.spot(n)) return;
  evict(n, now, "spot reclaim");
  pool_.reclaim(n);
}

std::vector<double> Engine::unmet_demand() {
  std::vector<double> demand(catalog_.size(), 0.0);
  size_t seen = 0;
  for (auto it = pending_.begin(); it != pending_.end() && seen < options_.autoscale_lookahead;
       ++it, ++seen) {
    const JobRuntime& r = jobs_[it->job];
    if (r.spec->gpus == 0) continue;
    const Candidates c = profile_.filter->filter(*this, *r.spec);
    // The first candidate model that on-demand capacity could add (overflow_model()).
    for (GpuModelId m : c.models) {
      if (pool_.has_on_demand(m)) {
        double gpus = static_cast<double>(r.spec->total_milli()) / kMilliPerGpu;
        for (const auto& plugin : profile_.plugins) gpus = plugin->queued_gpus(*this, r, m, gpus);
        demand[m] += gpus;
        break;
      }
    }
  }
  for (size_t m = 0; m < demand.size(); ++m)
    if (demand[m] > 0)
      demand[m] = std::max(
          0.0, demand[m] - static_cast<double>(state_.free_whole_of(static_cast<GpuModelId>(m))));
  for (const auto& plugin : profile_.plugins) plugin->adjust_demand(*this, demand);
  return demand;
}

void Engine::schedule_demotion(JobIdx j, Seconds now) {
  JobRuntime& r = jobs_[j];
  if (static_cast<size_t>(r.las_level) >= thresholds_.size() || r.gpus() <= 0) return;
  const double left = thresholds_[r.las_level] - r.attained_gpu_s;
  demote_at_[j] = std::max(now, r.service_from + std::max(0.0, left / r.gpus()));
  demotions_.emplace(demote_at_[j], j);
}

void Engine::apply_demotions(Seconds now) {
  while (!demotions_.empty() && demotions_.begin()->first <= now) {
    const auto [at, j] = *demotions_.begin();
    demotions_.erase(demotions_.begin());
    demote_at_[j] = kNever;
    JobRuntime& r = jobs_[j];
    running_.erase(key_of(j));
    // Service is accounted up to the crossing. The run segment goes on: run_start and
    // progress_ref_s stay, so a later stop loses only the work since the last checkpoint.
    r.attained_gpu_s += (at - r.service_from) * r.gpus();
    r.service_from = at;
    ++r.las_level;
    r.las_enter = at;
    running_.insert(key_of(j));
    schedule_demotion(j, at);
  }
}

Seconds Engine::next_timer() const {
  Seconds t = kNever;
  if (!deferred_.empty()) t = std::min(t, deferred_.begin()->first);
  if (!demotions_.empty()) t = std::min(t, demotions_.begin()->first);
  if (!drains_.empty()) t = std::min(t, drains_.begin()->first);
  if (!starvations_.empty()) t = std::min(t, starvations_.begin()->first);
  for (const auto& plugin : profile_.plugins) t = std::min(t, plugin->next_wakeup(*this));
  return std::min(t, pool_.next_wakeup());
}

Seconds Engine::next_wakeup() const {
  const Seconds t = next_timer();
  if (!options_.wake_at_expected_ends || pending_count() == 0) return t;
  return std::min(t, next_expected_end(now_));
}

Seconds Engine::next_expected_end(Seconds t) const {
  const auto it = running_by_end_.upper_bound({t, std::numeric_limits<JobIdx>::max()});
  return it == running_by_end_.end() ? kNever : it->first;
}

Status Engine::move(JobIdx j, Placement to, Decision::Kind kind, Seconds cost, std::string reason) {
  Placement copy = to;
  if (Status st = migrate(j, std::move(copy), now_, cost); !st.ok()) return st;
  if (kind == Decision::Kind::kResize)
    ++jobs_[j].resizes;
  else
    ++jobs_[j].migrations;
  out_.push_back(job_decision(kind, j, std::move(to), cost, std::move(reason)));
  return Status::Ok();
}

Status Engine::start_job(JobIdx j, Placement p) {
  if (j >= jobs_.size() || jobs_[j].state != JobState::kPending)
    return Error{fmt::format("start: job index {} is not pending", j)};
  if (Status st = state_.allocate(p, *jobs_[j].spec); !st.ok()) return st;
  out_.push_back(job_decision(Decision::Kind::kStart, j, p, kNever, {}));
  start(j, std::move(p), now_);
  return Status::Ok();
}

void Engine::report_internal(JobIdx j, std::string message) {
  queued_.push_back(job_decision(Decision::Kind::kDefer, j, {}, now_, std::move(message)));
}

void Engine::release_due(Seconds now) {
  while (!deferred_.empty() && deferred_.begin()->first <= now) {
    const JobIdx j = deferred_.begin()->second;
    deferred_.erase(deferred_.begin());
    enter_queue(j, now);
  }
  apply_demotions(now);
  apply_starvations(now);
}

std::vector<std::pair<JobIdx, JobRuntime>> Engine::preempt_point(Seconds now) {
  std::vector<std::pair<JobIdx, JobRuntime>> victims;
  if (!profile_.preempt || pending_.empty()) return victims;
  const Seconds grace = profile_.preempt->checkpoint_grace();
  for (JobIdx j : profile_.preempt->victims(*this, pending_, running_)) {
    if (jobs_[j].spec->pinned) continue;
    if (grace >= 0) {
      signal(j, now, grace, out_, kPreemptedForTier);
      continue;
    }
    JobRuntime before = jobs_[j];
    stop(j, now);
    enqueue(j, now);
    victims.emplace_back(j, std::move(before));
  }
  return victims;
}

std::optional<Placement> Engine::placement_for(const JobRuntime& r, Candidates& c) {
  const JobSpec& s = *r.spec;
  const bool whole = s.gpus > 0 && !s.fractional();
  std::optional<Placement> p;
  c = profile_.filter->filter(*this, s);
  if (!(whole && s.gpus > state_.free_whole_total()) && (!c.models.empty() || s.gpus == 0))
    p = profile_.placer->place(state_, s, c);
  for (const auto& plugin : profile_.plugins) p = plugin->size(*this, r, std::move(p), c);
  if (!p && whole && s.gpus <= state_.free_whole_total() && !c.models.empty() &&
      s.gpus <= state_.max_gpus_per_node(c.models.front()) &&
      (fragmentation_block_ == 0 || s.gpus < fragmentation_block_))
    fragmentation_block_ = s.gpus;
  return p;
}

bool Engine::unexamined_stale(const std::pair<Seconds, JobIdx>& e) const {
  const JobRuntime& r = jobs_[e.second];
  return r.state != JobState::kPending || r.first_examined >= 0 || r.queued_since != e.first;
}

Seconds Engine::max_wait_unexamined(Seconds now) const {
  for (const auto& e : unexamined_)
    if (!unexamined_stale(e)) return std::max(max_wait_unexamined_, now - e.first);
  return max_wait_unexamined_;
}

bool Engine::WalkWindow::next(const std::set<QueueKey>& pending,
                              std::set<QueueKey>::const_iterator& it, size_t examined) {
  if (limit_ == 0) return true;
  if (examined >= limit_) return false;  // the next cycle's tail goes on from `it`
  if (examined == std::max<size_t>(1, limit_ / 2)) {
    // The head is done: skip to where the previous cycle's tail stopped, if the queue is
    // longer than the limit and that point is still ahead (past the end: wrap round).
    in_tail_ = true;
    if (resume_ && pending.size() > limit_ && *it < *resume_) {
      const auto ahead = pending.lower_bound(*resume_);
      if (ahead != pending.end()) it = ahead;
    }
  }
  return true;
}

std::optional<QueueKey> Engine::WalkWindow::resume(const std::set<QueueKey>& pending,
                                                   std::set<QueueKey>::const_iterator stop) const {
  if (limit_ == 0) return std::nullopt;
  if (!in_tail_) return resume_;  // the walk ended within the head: the tail waits its turn
  if (stop == pending.end()) return std::nullopt;  // it reached the end: round again
  return *stop;
}

void Engine::walk(Seconds now, std::vector<std::pair<JobIdx, JobRuntime>>& victims) {
  fragmentation_block_ = 0;
  PostFilter& post = *profile_.post_filter;
  post.begin_cycle(*this);
  // Without walk_limit the PostFilter's own bound (e.g. EASY's depth) ends the walk; with
  // it the smaller of the two is the window's size (WalkWindow).
  const size_t post_limit = post.max_examined();
  const size_t limit = options_.walk_limit == 0 ? 0
                       : post_limit == 0        ? options_.walk_limit
                                                : std::min(options_.walk_limit, post_limit);
  size_t examined = 0;
  std::vector<Decision> starts;
  WalkWindow window(limit, walk_resume_);
  auto it = pending_.begin();
  for (; it != pending_.end();) {
    if (state_.free_whole_total() == 0 && pending_small_ == 0 && victims.empty()) break;
    if (limit == 0 && post_limit && examined >= post_limit) break;
    if (!window.next(pending_, it, examined)) break;
    ++examined;
    const JobIdx j = it->job;
    JobRuntime& r = jobs_[j];
    if (r.first_examined < 0) {
      r.first_examined = now;
      max_wait_unexamined_ = std::max(max_wait_unexamined_, now - r.queued_since);
      unexamined_.erase({r.queued_since, j});
    }
    ++it;  // `it` stays valid: start() erases only j's entry
    if (cycle_.stopped_now(j)) {
      // A tentative victim only ever returns to where it was.
      auto v =
          std::find_if(victims.begin(), victims.end(), [j](const auto& x) { return x.first == j; });
      if (state_.allocate(v->second.placement, *r.spec).ok()) {
        resume(j, v->second);
        cycle_.stopped[j] = 0;
      }
      continue;
    }
    Candidates c;
    std::optional<Placement> p = placement_for(r, c);
    if (!p) {
      if (post.blocked(*this, r, c) == PostFilter::Flow::kStop) break;
      continue;
    }
    if (!post.may_start(*this, r, *p)) continue;
    if (Status st = state_.allocate(*p, *r.spec); !st.ok()) {
      // A placer bug must not corrupt state: report it and leave the job queued.
      report_internal(j, "internal: placement rejected: " + st.error().message);
      continue;
    }
    starts.push_back(job_decision(Decision::Kind::kStart, j, *p, kNever, {}));
    start(j, std::move(*p), now);
  }
  walk_resume_ = window.resume(pending_, it);
  while (!unexamined_.empty() && unexamined_stale(*unexamined_.begin()))
    unexamined_.erase(unexamined_.begin());
  for (auto& [j, old] : victims) {
    if (!cycle_.stopped[j]) continue;
    // A tentative victim a bounded walk did not reach resumes where its GPUs are still free
    // (the jobs it examined had their turn first).
    if (limit > 0 && state_.allocate(old.placement, *jobs_[j].spec).ok()) {
      resume(j, old);
      cycle_.stopped[j] = 0;
      continue;
    }
    ++jobs_[j].preemptions;
    out_.push_back(job_decision(Decision::Kind::kPreempt, j, std::move(old.placement), kNever,
                                "preempted for higher-priority work"));
  }
  for (auto& d : starts) out_.push_back(std::move(d));
}

void Engine::autoscale(Seconds now) {
  if (pending_.empty())
    for (const auto& plugin : profile_.plugins) plugin->queue_empty(*this);
  if (!pool_.autoscaled()) return;
  std::vector<double> growth;
  if (pending_.empty()) {
    for (const auto& plugin : profile_.plugins) {
      const std::vector<double> more = plugin->idle_demand(*this);
      growth.resize(std::max(growth.size(), more.size()), 0.0);
      for (size_t m = 0; m < more.size(); ++m) growth[m] += more[m];
    }
  }
  const bool grow = std::any_of(growth.begin(), growth.end(), [](double g) { return g > 0; });
  if (pending_.empty() && !grow && pool_.next_wakeup() > now) return;
  std::function<double(NodeId)> rank;
  for (const auto& plugin : profile_.plugins) {
    if (!plugin->ranks_provisioning(*this)) continue;
    const CyclePlugin* ranker = plugin.get();
    rank = [this, ranker](NodeId n) { return ranker->provision_rank(*this, n); };
    break;
  }
  pool_.plan(now, pending_.empty() ? growth : unmet_demand(), out_, rank,
             deferred_.empty() ? kNever : deferred_.begin()->first);
}

const std::vector<Decision>& Engine::schedule(Seconds now) {
  now_ = now;
  out_.clear();
  if (churn_.tripped()) return out_;
  out_.swap(queued_);
  in_cycle_ = true;
  release_due(now);
  std::vector<std::pair<JobIdx, JobRuntime>> victims = preempt_point(now);
  complete_drains(now);
  cycle_.stopped.clear();
  if (!victims.empty()) {
    cycle_.stopped.assign(jobs_.size(), 0);
    for (const auto& v : victims) cycle_.stopped[v.first] = 1;
  }
  walk(now, victims);
  if (profile_.consolidate && !pending_.empty()) consolidate(now);
  for (const auto& plugin : profile_.plugins) plugin->resize(*this);
  for (const auto& plugin : profile_.plugins) plugin->relay(*this);
  for (const auto& plugin : profile_.plugins) plugin->compact(*this);
  for (const auto& plugin : profile_.plugins) plugin->lend(*this);
  for (const auto& plugin : profile_.plugins) plugin->prefetch(*this);
  autoscale(now);
  in_cycle_ = false;
  churn_.record(now, out_, ChurnGuard::bound_for(jobs_.size()),
                [this](JobIdx j) { return j < jobs_.size() ? jobs_[j].spec->id : "?"; });
  return out_;
}

PluginStatus Engine::explain(JobIdx j) const {
  using Code = PluginStatus::Code;
  if (j >= jobs_.size() || jobs_[j].state != JobState::kPending) return {};
  if (const auto h = held_.find(j); h != held_.end())
    return PluginStatus::no(Code::kUnschedulable, "hold", h->second);
  for (const auto& [until, d] : deferred_)
    if (d == j)
      return PluginStatus::no(
          Code::kUnschedulable, "admit",
          fmt::format("{}: deferred until t={:.0f} s", profile_.admit->name(), until));
  const JobSpec& s = *jobs_[j].spec;
  if (PluginStatus f = profile_.filter->explain(*this, s); !f.ok()) return f;
  const Candidates c = profile_.filter->filter(*this, s);
  if (PluginStatus h = explain_limits(s, c); !h.ok()) return h;
  if (PluginStatus p = profile_.placer->explain(state_, s, c, catalog_); !p.ok()) {
    if (can_add_capacity(s)) p.reason += "; the autoscaler can add on-demand capacity for it";
    return p;
  }
  return PluginStatus::no(Code::kUnschedulable, "postfilter",
                          fmt::format("{}: it fits now but the queue discipline holds it behind "
                                      "earlier jobs (a later cycle may start it)",
                                      profile_.post_filter->name()));
}

std::string Engine::check_invariants() const {
  if (std::string s = state_.check_invariants(); !s.empty()) return s;
  size_t pending = 0, running = 0;
  int64_t milli = 0;
  if (std::string s = check_guests(); !s.empty()) return s;
  for (JobIdx j = 0; j < jobs_.size(); ++j) {
    const JobRuntime& r = jobs_[j];
    if (r.state == JobState::kRunning && is_guest(j)) continue;
    if (r.state == JobState::kRunning) {
      ++running;
      int64_t held = 0;
      for (const Slot& s : r.placement.slots) held += s.gpu >= 0 ? s.milli : 0;
      if (r.elastic()) {
        if (held != int64_t{r.size} * kMilliPerGpu || r.size < r.min_size() ||
            r.size > r.spec->max_gpus)
          return fmt::format("elastic job {} holds {} milli-GPU at size {} (bounds {}..{})",
                             r.spec->id, held, r.size, r.min_size(), r.spec->max_gpus);
      } else if (held != r.spec->total_milli())
        return fmt::format("job {} holds {} milli-GPU, asked for {}", r.spec->id, held,
                           r.spec->total_milli());
      milli += held;
    } else if (r.state == JobState::kPending) {
      ++pending;
      if (!r.placement.empty()) return fmt::format("pending job {} holds GPUs", r.spec->id);
    }
  }
  if (running != running_.size() || running != running_by_end_.size())
    return "running index size mismatch";
  if (pending != pending_.size() + deferred_.size() + held_.size())
    return "pending index size mismatch";
  size_t elastic_running = 0;
  for (const QueueKey& k : running_) elastic_running += jobs_[k.job].elastic() ? 1 : 0;
  if (elastic_running != running_elastic_) return "running elastic count mismatch";
  if (milli != state_.allocated_milli())
    return fmt::format("jobs hold {} milli-GPU, cluster counts {}", milli,
                       state_.allocated_milli());
  return {};
}

}  // namespace frugal
