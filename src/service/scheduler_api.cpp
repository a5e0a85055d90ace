// Scheduler: the API's commands and recovery (each runs on the decision loop).
#include <fmt/format.h>

#include <algorithm>

#include "service/cluster_record.h"
#include "service/scheduler.h"

namespace frugal {
namespace {

// The API does not act on jobs the service observes but did not start.
ApiReply refuse_external(const JobRecord& r) {
  return error_reply(409,
                     fmt::format("job {} was submitted to the backend directly; frugal observes "
                                 "and accounts for it but does not act on it",
                                 r.id),
                     "id");
}

bool pending_state(JobStatus s) {
  return s == JobStatus::kQueued || s == JobStatus::kDeferred || s == JobStatus::kPreempted;
}

}  // namespace

std::unique_ptr<JobSpec> Scheduler::make_job_spec(const JobRecord& r) const {
  auto s = make_spec(r, catalog_, static_cast<double>(cluster_.epoch_unix_s));
  if (!(r.request.estimate_s > 0)) s->duration = predictor_.predict(*s).seconds;
  return s;
}

void Scheduler::learn_runtime(const JobRecord& r, const JobSpec& spec) {
  // Only a run that went through in one piece says how long such a job takes: a restarted
  // job's wall time holds its waits and lost work.
  if (r.state != JobStatus::kCompleted || r.restart_count != 0 || r.started_at < 0 ||
      r.finished_at < r.started_at || r.team == kExternalTeam)
    return;
  predictor_.observe(spec, r.finished_at - r.started_at);
}

ApiReply Scheduler::not_in_memory(const Principal& who, int64_t id) const {
  Result<std::optional<JobRecord>> stored = store_->load_job(id);
  if (stored.ok() && stored.value() && who.may_access(stored.value()->team))
    return error_reply(409,
                       fmt::format("the job already ended: {}", to_string(stored.value()->state)));
  return error_reply(404, fmt::format("no job {}", id), "id");
}

nlohmann::json Scheduler::record_json(const JobRecord& rec, double now) const {
  Live l;
  l.rec = rec;
  l.spec = make_job_spec(l.rec);
  return job_json(l, now);
}

Scheduler::Live* Scheduler::find(const Principal& who, int64_t id) {
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || !who.may_access(it->second.rec.team)) return nullptr;
  return &it->second;
}

std::future<ApiReply> Scheduler::submit(const Principal& who, JobRequest request,
                                        std::optional<IdempotencyKey> key) {
  return enqueue([this, team = who.admin ? std::string("admin") : who.team,
                  request = std::move(request), key = std::move(key)]() mutable {
    const double now = wall_now();
    if (auto refused = refuse_change()) return *refused;
    if (key) {
      const auto seen = idempotency_.find({team, key->key});
      if (seen != idempotency_.end() && seen->second.at > now - kIdempotencyTtlS) {
        if (seen->second.body_sha256 != key->body_sha256)
          return error_reply(422,
                             fmt::format("this Idempotency-Key made job {} with another body",
                                         seen->second.job_id),
                             "Idempotency-Key");
        ApiReply again;
        again.body = {{"id", seen->second.job_id}};
        if (const auto it = jobs_.find(seen->second.job_id); it != jobs_.end())
          again.body["state"] = std::string(to_string(it->second.rec.state));
        return again;
      }
    }
    // A deadline already past cannot be met by any schedule: refuse it (the request's own
    // range check only bounds the number).
    if (request.deadline > 0 && request.deadline <= now)
      return error_reply(400, fmt::format("already past (it is {:.0f} now)", now), "deadline");
    if (auto refused = check_datasets(request)) return *refused;
    Live l;
    l.rec.id = next_id_++;
    l.rec.team = team;
    l.rec.request = std::move(request);
    l.rec.submitted_at = now;
    l.spec = make_job_spec(l.rec);
    const int64_t id = l.rec.id;
    Live& live = jobs_.emplace(id, std::move(l)).first->second;
    enter_engine(live, now);
    const JobRuntime& r = engine_->job(live.idx);
    if (r.state == JobState::kRejected) {
      // It can never run here: refuse it (the engine's queued kReject is then ignored).
      // The reply is built before the entry is erased (it reads the request), and the spec
      // outlives the entry: the engine keeps a pointer to it under this index.
      const JobRequest& q = live.rec.request;
      const std::string field = !q.gpu_model.empty() ? "gpu_model" : "gpus";
      ApiReply refused = error_reply(
          400,
          fmt::format("the job can never run on this cluster ({} gpus x "
                      "{} milli{})",
                      q.gpus, q.gpu_milli, q.gpu_model.empty() ? "" : " of " + q.gpu_model),
          field);
      rejected_specs_.push_back(std::move(live.spec));
      jobs_.erase(id);
      return refused;
    }
    ++accepted_;
    mark(live);
    record_birth(live, "submit", now);
    shadow_submit(live, now);
    if (key) {
      IdempotencyRow row{team, key->key, key->body_sha256, id, now};
      idempotency_[{team, key->key}] = row;
      idempotency_out_.push_back(std::move(row));
    }
    ApiReply reply;
    reply.status = 201;
    reply.body = {{"id", id}, {"state", std::string(to_string(live.rec.state))}};
    reply.after_cycle = [this, id](ApiReply& out) {
      if (const auto it = jobs_.find(id); it != jobs_.end())
        out.body["state"] = std::string(to_string(it->second.rec.state));
    };
    return reply;
  });
}

std::future<ApiReply> Scheduler::get_job(const Principal& who, int64_t id) {
  return enqueue([this, who, id] {
    const double now = wall_now();
    ApiReply r;
    if (const Live* l = find(who, id)) {
      r.body = job_json(*l, now);
    } else {  // a finished job retention took out of memory: from the store
      Result<std::optional<JobRecord>> stored = store_->load_job(id);
      if (!stored.ok()) return error_reply(500, stored.error().message);
      if (!stored.value() || !who.may_access(stored.value()->team))
        return error_reply(404, fmt::format("no job {}", id), "id");
      r.body = record_json(*stored.value(), now);
    }
    // Its lifecycle so far: the stored transitions, then those of this turn not yet committed.
    Result<std::vector<TransitionRow>> stored = store_->load_transitions(id);
    if (!stored.ok()) return error_reply(500, stored.error().message);
    std::vector<TransitionRow> rows = std::move(stored).value();
    for (const TransitionRow& t : transitions_out_)
      if (t.job_id == id) rows.push_back(t);
    nlohmann::json history = nlohmann::json::array();
    for (const TransitionRow& t : rows)
      history.push_back({{"at", t.at},
                         {"from", t.from.empty() ? nlohmann::json() : nlohmann::json(t.from)},
                         {"to", t.to},
                         {"event", t.event},
                         {"reason", t.reason}});
    r.body["history"] = std::move(history);
    return r;
  });
}

std::future<ApiReply> Scheduler::list_jobs(const Principal& who, std::optional<JobStatus> state,
                                           size_t limit, std::optional<int64_t> cursor) {
  return enqueue([this, who, state, limit, cursor] {
    const double now = wall_now();
    // Paged from the store (indexed by id, team and state), so jobs retention took out of
    // memory are listed too; each shown as the loop knows it when it is in memory.
    const std::string state_name = state ? std::string(to_string(*state)) : "";
    Result<std::vector<JobRecord>> rows = store_->list_jobs(
        cursor, who.admin ? nullptr : &who.team, state ? &state_name : nullptr, limit + 1);
    if (!rows.ok()) return error_reply(500, rows.error().message);
    const std::vector<JobRecord>& found = rows.value();
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < found.size() && i < limit; ++i) {
      const auto it = jobs_.find(found[i].id);
      out.push_back(it != jobs_.end() ? job_json(it->second, now) : record_json(found[i], now));
    }
    ApiReply r;
    r.body = {{"jobs", out}};
    // More follow: pass next_cursor as `cursor` for the next page (jobs with smaller ids);
    // null when this page reached the oldest job.
    r.body["next_cursor"] =
        found.size() > limit ? nlohmann::json(found[limit - 1].id) : nlohmann::json();
    return r;
  });
}

std::future<ApiReply> Scheduler::act(const Principal& who, int64_t id, Action action) {
  return enqueue([this, who, id, action] {
    const double now = wall_now();
    Live* l = find(who, id);
    if (!l) return not_in_memory(who, id);
    JobRecord& rec = l->rec;
    if (rec.team == kExternalTeam) return refuse_external(rec);
    const std::string state(to_string(rec.state));
    switch (action) {
      case Action::kCancel:
        if (is_final(rec.state)) return error_reply(409, "the job already ended: " + state);
        if (rec.state == JobStatus::kRunning) {
          l->rec.cancel_requested = true;
          if (!rec.handle.empty() && !l->exited) (void)driver_->stop(rec.handle, kill_plan(*l));
          rec.reason = "cancel requested";
        } else {
          if (!rec.held) engine_->withdraw(l->idx, engine_time(now));
          rec.held = false;
          rec.finished_at = now;
          transition(*l, JobEvent::kCancel, "cancelled", now);
          engine_dirty_ = true;
          driver_->discard(std::to_string(rec.id));  // e.g. a Slurm job kept queued
        }
        break;
      case Action::kHold:
        if (rec.held) break;
        if (!pending_state(rec.state))
          return error_reply(409, "only a waiting job can be held; it is " + state);
        engine_->withdraw(l->idx, engine_time(now));
        engine_dirty_ = true;
        rec.held = true;
        rec.reason = "held";
        break;
      case Action::kRelease:
        if (!rec.held) return error_reply(409, "the job is not held");
        rec.held = false;
        transition(*l, JobEvent::kRequeue, "", now);
        enter_engine(*l, now);
        break;
    }
    mark(*l);
    ApiReply r;
    r.body = job_json(*l, now);
    return r;
  });
}

std::future<ApiReply> Scheduler::set_tier(const Principal& who, int64_t id, Tier tier) {
  return enqueue([this, who, id, tier] {
    const double now = wall_now();
    if (auto refused = refuse_change()) return *refused;
    Live* l = find(who, id);
    if (!l) return not_in_memory(who, id);
    JobRecord& rec = l->rec;
    if (rec.team == kExternalTeam) return refuse_external(rec);
    if (rec.state == JobStatus::kRunning) {
      // It keeps running; the new tier orders it for later preemption choices.
      JobRequest q = rec.request;
      rec.request.tier = tier;
      auto spec = make_job_spec(rec);
      if (!engine_->update_running(l->idx, spec.get())) {
        rec.request = std::move(q);
        return error_reply(409, "the job is not running in the engine", "tier");
      }
      l->spec = std::move(spec);  // the engine refers to the new one
      engine_dirty_ = true;
      mark(*l);
      ApiReply r;
      r.body = job_json(*l, now);
      return r;
    }
    if (!pending_state(rec.state))
      return error_reply(
          409, fmt::format("the priority of a {} job cannot change", to_string(rec.state)), "tier");
    rec.request.tier = tier;
    if (rec.held) {
      l->spec->tier = tier;  // not in the engine
    } else {
      // Re-enter the queue under the new tier (the engine keys its queue by tier).
      engine_->withdraw(l->idx, engine_time(now));
      l->spec = make_job_spec(rec);
      transition(*l, JobEvent::kRequeue, rec.reason, now);
      enter_engine(*l, now);
    }
    mark(*l);
    ApiReply r;
    r.body = job_json(*l, now);
    return r;
  });
}

namespace {

std::future<ApiReply> ready(ApiReply r) {
  std::promise<ApiReply> p;
  p.set_value(std::move(r));
  return p.get_future();
}

}  // namespace

std::future<ApiReply> Scheduler::ledger(const Principal& who,
                                        std::optional<std::set<int64_t>> only_jobs) {
  const auto snap = fresh_snapshot();
  if (!snap) return ready(error_reply(503, "the decision loop did not answer within 30 s"));
  return ready(ledger_view(*snap, who, only_jobs ? &*only_jobs : nullptr));
}

std::shared_ptr<const ReadSnapshot> Scheduler::fresh_snapshot() {
  std::shared_future<ApiReply> pending;
  {
    const std::lock_guard<std::mutex> g(read_mu_);
    const double max_age = config_.read_snapshot_s;
    if (read_snapshot_ && max_age > 0 && clock_->now() - read_snapshot_->at < max_age)
      return read_snapshot_;
    if (!read_pending_.valid())
      read_pending_ = enqueue([this] {
                        publish_snapshot(wall_now());
                        return ApiReply{};
                      }).share();
    pending = read_pending_;
  }
  if (pending.wait_for(std::chrono::seconds(30)) != std::future_status::ready) return nullptr;
  const std::lock_guard<std::mutex> g(read_mu_);
  return read_snapshot_;
}

void Scheduler::publish_snapshot(double now) {
  auto snap = std::make_shared<ReadSnapshot>();
  snap->at = now;
  ++snapshots_;
  snap->ledger = ledger_json(now, snap->jobs);
  snap->metrics = metrics_text(now, snap->ledger);
  const std::lock_guard<std::mutex> g(read_mu_);
  read_snapshot_ = std::move(snap);
  read_pending_ = {};
}

void Scheduler::publish_health(double now) {
  nlohmann::json h = {{"status", "ok"},
                      {"backend", driver_->name()},
                      {"nodes", cluster_.nodes.size()},
                      {"gpus", engine_->cluster().up_gpus()},
                      {"jobs", jobs_.size()},
                      {"schema_version", kSchemaVersion},
                      {"uptime_s", now - started_at_}};
  const std::lock_guard<std::mutex> g(read_mu_);
  health_ = std::move(h);
  last_turn_at_ = now;
}

std::future<ApiReply> Scheduler::alerts(const Principal& who) {
  return enqueue([this, who] {
    ApiReply r;
    r.body = alerts_.to_json(who.admin ? nullptr : &who.team);
    return r;
  });
}

std::future<ApiReply> Scheduler::regions() {
  return enqueue([this] {
    const double now = wall_now();
    ApiReply r;
    r.body = {{"as_of", now}, {"regions", calendar_->status_json(now, cluster_.regions)}};
    return r;
  });
}

std::future<ApiReply> Scheduler::metrics() {
  const auto snap = fresh_snapshot();
  if (!snap) return ready(error_reply(503, "the decision loop did not answer within 30 s"));
  ApiReply r;
  r.text = snap->metrics;
  r.content_type = "text/plain; version=0.0.4";
  return ready(std::move(r));
}

std::future<ApiReply> Scheduler::barrier() {
  return enqueue([] { return ApiReply{}; }, true);
}

// Off the loop: what the loop published at its last turn, and how long ago that was (a loop
// stuck in one turn shows as a growing loop_age_s).
std::future<ApiReply> Scheduler::health() {
  ApiReply r;
  {
    const std::lock_guard<std::mutex> g(read_mu_);
    if (health_.is_null()) return ready(error_reply(503, "the service is starting"));
    r.body = health_;
    r.body["loop_age_s"] = std::max(0.0, clock_->now() - last_turn_at_);
  }
  return ready(std::move(r));
}

void Scheduler::resume_stop(Live& l) {
  JobRecord& r = l.rec;
  const std::string job = std::to_string(r.id);
  // The stopped run is the one before the job's current count (a preemption counts it).
  Result<bool> a = driver_->adopt(job, std::max(0, r.restart_count - 1), r.stopping_handle);
  if (a.ok() && a.value()) {
    // Still alive, or ended while the service was down (its exit is reported next poll):
    // either way it is waited for before the job runs again or its GPUs are used.
    (void)driver_->stop(r.stopping_handle, kill_plan(l));
    stopping_runs_[r.id] = parse_placement(r.stopping_placement).value_or(Placement{});
    log_(fmt::format("job {}: its stopped run {} may still be exiting; stopping it", r.id,
                     r.stopping_handle));
    return;
  }
  r.stopping_handle.clear();
  r.stopping_placement.clear();
  mark(l);
}

void Scheduler::learn_completed(const std::vector<JobRecord>& stored) {
  std::vector<const JobRecord*> done;
  for (const JobRecord& rec : stored)
    if (rec.state == JobStatus::kCompleted) done.push_back(&rec);
  std::stable_sort(done.begin(), done.end(), [](const JobRecord* a, const JobRecord* b) {
    return a->finished_at < b->finished_at;
  });
  for (const JobRecord* rec : done)
    learn_runtime(*rec, *make_spec(*rec, catalog_, static_cast<double>(cluster_.epoch_unix_s)));
}

bool Scheduler::find_run(JobRecord& r) {
  const int64_t id = r.id;
  Result<bool> a = driver_->adopt(std::to_string(id), r.restart_count, r.handle);
  bool found = a.ok() && a.value();
  if (!a.ok()) log_(fmt::format("job {}: {}", id, a.error().message));
  if (found && r.handle.empty()) {
    r.handle = driver_->adopted_handle(std::to_string(id));
    // The process the driver found for this job is its stopped run, not a new one (the
    // new run was waiting for it to exit and never launched).
    if (!r.stopping_handle.empty() && r.handle == r.stopping_handle) r.handle.clear();
    found = !r.handle.empty();
  }
  return found;
}

std::optional<Scheduler::Recovered> Scheduler::adopt_run(Live& live, const Placement& placement,
                                                         double now) {
  JobRecord& r = live.rec;
  const int64_t id = r.id;
  const JobIdx idx = next_idx_++;
  by_idx_.push_back(id);
  live.idx = idx;
  Status st = engine_->adopt(idx, live.spec.get(), placement, engine_time(r.segment_start),
                             engine_time(now));
  if (st.ok()) {
    live.placement = placement;
    // A cancel under way when the service stopped goes on (TERM, then KILL).
    if (r.cancel_requested) (void)driver_->stop(r.handle, kill_plan(live));
    mark(live);
    return Recovered::kAdopted;
  }
  if (r.team == kExternalTeam) {  // not ours to stop: recorded, not counted
    log_(fmt::format("job {} ({}): its GPUs are taken in the engine ({})", id, r.team,
                     st.error().message));
    live.idx = Live::kNone;
    live.placement = placement;
    return Recovered::kObserved;
  }
  log_(fmt::format("job {}: its placement no longer fits ({}); stopping it", id,
                   st.error().message));
  stop_found_run(live, placement);
  return std::nullopt;
}

void Scheduler::stop_found_run(Live& live, const Placement& placement) {
  JobRecord& r = live.rec;
  (void)driver_->stop(r.handle, stop_plan(live, false));
  // The run is in its stop sequence until it exits: as after a preemption, neither its GPUs
  // nor the job's next run may be used before then (both would run twice at once).
  r.stopping_handle = r.handle;
  r.stopping_placement = r.placement;
  stopping_runs_[r.id] = placement;
}

Scheduler::Recovered Scheduler::recover_running(Live& live, double now) {
  JobRecord& r = live.rec;
  const bool found = find_run(r);
  const auto placement = found ? parse_placement(r.placement) : std::nullopt;
  // A guest on measured idle (scheduler_guests.cpp) is not adopted: its host's use is
  // judged afresh, so its run is stopped and it waits for a lend like any other.
  const bool guest = found && placement && guest_host(r.placement) > 0;
  if (guest) {
    log_(fmt::format("job {}: a guest's run is not adopted after a restart; stopping it", r.id));
    stop_found_run(live, *placement);
  } else if (found && placement) {
    if (const auto adopted = adopt_run(live, *placement, now)) return *adopted;
  }
  if (r.team == kExternalTeam) {
    // Ended while the service was down; it is not frugal's to run again.
    close_segment(live, now);
    r.handle.clear();
    r.placement.clear();
    r.finished_at = now;
    transition(live, JobEvent::kExitFail,
               "ended in the backend while the service was down (exit status unknown)", now);
    return Recovered::kEnded;
  }
  // Gone while the service was down (or never started), or found on GPUs the cluster no
  // longer has (then stopped, above): its run ends now, it restarts.
  const bool stopped = found && !r.stopping_handle.empty() && r.stopping_handle == r.handle;
  close_segment(live, now);
  r.handle.clear();
  r.placement.clear();
  ++r.restart_count;
  transition(live, JobEvent::kRunLost,
             guest     ? "a guest on another job's idle GPU: its run was stopped at the "
                         "service's restart and it is requeued"
             : stopped ? "its GPUs are no longer in the cluster; its run was stopped and it is "
                         "requeued"
                       : "its run was lost while the service was down; requeued",
             now);
  return Recovered::kRequeued;
}

Scheduler::Recovered Scheduler::recover_job(JobRecord rec, double now) {
  next_id_ = std::max(next_id_, rec.id + 1);
  for (double t : {rec.submitted_at, rec.started_at})
    if (t > 0) earliest_ = std::min(earliest_, t);
  Live l;
  l.rec = std::move(rec);
  l.spec = make_job_spec(l.rec);
  const int64_t id = l.rec.id;
  Live& live = jobs_.emplace(id, std::move(l)).first->second;
  const JobRecord& r = live.rec;
  if (!r.stopping_handle.empty()) resume_stop(live);
  if (is_final(r.state) || r.held) return Recovered::kKept;
  const Recovered what =
      r.state == JobStatus::kRunning ? recover_running(live, now) : Recovered::kQueued;
  if (what == Recovered::kQueued || what == Recovered::kRequeued) {
    enter_engine(live, now);
    mark(live);
  }
  if (what == Recovered::kQueued || what == Recovered::kRequeued || what == Recovered::kAdopted)
    shadow_submit(live, now);
  return what;
}

Status Scheduler::recover() {
  Result<std::vector<JobRecord>> stored = store_->load_jobs();
  if (!stored.ok()) return stored.error();
  const double now = wall_now();
  // The cluster this service runs on, for replays of its history (service/cluster_record.h).
  Result<std::string> recorded =
      record_cluster_spec(*store_, cluster_, catalog_, cluster_source(config_), now);
  if (!recorded.ok()) return recorded.error();
  log_(recorded.value());
  apply_initial_power(now);  // runs on powered nodes are adopted below
  size_t adopted = 0, requeued = 0, queued = 0;
  // The runtime predictor learns from every job completed before, in completion order.
  learn_completed(stored.value());
  Result<std::vector<IdempotencyRow>> keys = store_->load_idempotency(now - kIdempotencyTtlS);
  if (!keys.ok()) return keys.error();
  for (IdempotencyRow& k : keys.value()) idempotency_[{k.team, k.key}] = std::move(k);
  // The usage series' stored buckets (GET /v1/usage): the history before this start.
  Result<std::vector<UsageSampleRow>> usage =
      store_->load_usage_samples(now - config_.usage_retention_s);
  if (!usage.ok()) return usage.error();
  usage_.restore(std::move(usage).value());
  if (Status st = store_->begin(); !st.ok()) return st;
  for (JobRecord& rec : stored.value()) {
    const Recovered what = recover_job(std::move(rec), now);
    if (what == Recovered::kAdopted) ++adopted;
    if (what == Recovered::kRequeued) ++requeued;
    if (what == Recovered::kQueued) ++queued;
  }
  if (Status st = flush(); !st.ok()) {
    store_->rollback();
    return st;
  }
  if (Status st = store_->commit(); !st.ok()) return st;
  flushed();
  log_(
      fmt::format("recovered {} job(s): {} running adopted, {} requeued after a lost run, {} "
                  "waiting",
                  jobs_.size(), adopted, requeued, queued));
  return Status::Ok();
}

}  // namespace frugal
