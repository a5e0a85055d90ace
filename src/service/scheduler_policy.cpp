// Changing the active policy without a restart (POST /v1/policy, the policy guard; docs/API.md
// "Policy changes", docs/WHATIF.md "Guarded policy changes").
#include <fmt/format.h>

#include "service/live_profile.h"
#include "service/scheduler.h"

namespace frugal {
namespace {

std::optional<NodePower> power_of(NodeLife life) {
  switch (life) {
    case NodeLife::kUp:
    case NodeLife::kUnavailable:
      return NodePower::kOn;
    case NodeLife::kProvisioning:
      return NodePower::kBooting;
    case NodeLife::kUnprovisioned:
      return NodePower::kOff;
    case NodeLife::kFailed:
      return NodePower::kFailed;
  }
  return std::nullopt;
}

nlohmann::json change_json(const PolicyChangeRow& c) {
  return {{"at", c.at}, {"from", c.from}, {"to", c.to}, {"by", c.by}, {"reason", c.reason}};
}

}  // namespace

void Scheduler::carry_nodes(const Engine& old, Engine& next, Seconds t) const {
  for (NodeId n = 0; n < cluster_.nodes.size(); ++n) {
    const NodeLife life = old.nodes().life(n);
    if (driver_->powers_nodes() && old.nodes().on_demand(n)) {
      if (const auto p = power_of(life)) next.node_power(n, *p, t);
      if (reclaiming_.contains(n))
        next.reclaim_notice(n, t, cluster_.pools[cluster_.nodes[n].pool].spot.reclaim_notice_s);
    } else if (life == NodeLife::kFailed) {
      next.node_down(n, t);
    }
  }
}

std::pair<size_t, size_t> Scheduler::carry_jobs(const std::string& to, double now) {
  const Seconds t = engine_time(now);
  size_t adopted = 0, queued = 0;
  for (auto& [id, l] : jobs_) {
    if (is_final(l.rec.state) || l.rec.held || l.idx == Live::kNone) continue;
    if (l.rec.state == JobStatus::kRunning) {
      const Placement p = l.move_to ? *l.move_to : l.placement;
      const JobIdx idx = next_idx_++;
      by_idx_.push_back(l.rec.id);
      l.idx = idx;
      const double since = l.rec.segment_start >= 0 ? l.rec.segment_start : l.rec.started_at;
      if (Status st = engine_->adopt(idx, l.spec.get(), p, engine_time(since), t); st.ok()) {
        ++adopted;
        continue;
      }
      log_(fmt::format("job {}: its run does not fit the new engine; stopping it", l.rec.id));
      stop_found_run(l, p);
      close_segment(l, now);
      l.placement = Placement{};
      l.rec.placement.clear();
      transition(l, JobEvent::kPreempt, "the active policy changed to " + to, now);
    }
    if (l.rec.state == JobStatus::kDeferred)
      transition(l, JobEvent::kRequeue, "the active policy changed to " + to, now);
    enter_engine(l, now);
    mark(l);
    ++queued;
  }
  return {adopted, queued};
}

Status Scheduler::switch_policy(const std::string& to, const std::string& by,
                                const std::string& reason, double now) {
  Result<Profile> made = engine_profile(to, config_);
  if (!made.ok()) return made.error();
  const Seconds t = engine_time(now);
  account_capacity(now);  // idle capacity up to now, as the old engine holds it
  // Guests and jobs writing their checkpoint: their stop completes now (as the old engine's
  // kPreempt would) and they wait again under the new policy.
  std::vector<int64_t> starts;
  for (auto& [id, l] : jobs_) {
    if (l.rec.state != JobStatus::kRunning || l.idx == Live::kNone) continue;
    if (l.guest_of == 0 && !l.draining) continue;
    Decision d;
    d.kind = Decision::Kind::kPreempt;
    d.job = l.idx;
    d.saved = l.draining;
    d.reason = "the active policy changed to " + to;
    apply(d, now, starts);
  }
  const Engine& old = *engine_;
  auto next = std::make_unique<Engine>(
      cluster_, catalog_, std::move(made).value(),
      service_engine_options(catalog_, config_.max_jobs_per_cycle, driver_->powers_nodes()));
  carry_nodes(old, *next, t);
  next->set_conditions(old.conditions(), t);  // the general-tier pause goes on
  const std::string from = config_.policy;
  engine_ = std::move(next);
  if (accounting_) accounting_->rebind(engine_->cluster());
  config_.policy = to;
  const auto [adopted, queued] = carry_jobs(to, now);
  engine_dirty_ = true;
  if (shadows_) {  // a shadow made for the change starts with the jobs of now
    std::vector<std::pair<int64_t, std::shared_ptr<const JobSpec>>> now_jobs;
    if (!shadows_->index_of(to))
      for (const auto& [id, l] : jobs_)
        if (l.in_shadow) now_jobs.emplace_back(l.rec.id, std::make_shared<const JobSpec>(*l.spec));
    shadows_->set_active(to, std::move(now_jobs), t);
  }
  policy_out_.push_back(PolicyChangeRow{now, from, to, by, reason});
  const std::string what = fmt::format(
      "active policy {} -> {} by {}: {} ({} running adopted, {} "
      "waiting queued again)",
      from, to, by, reason, adopted, queued);
  log_(what);
  alerts_.raise("policy_changed", "policy", what, now);
  alerts_.clear("policy_changed", "policy", now);
  return Status::Ok();
}

std::future<ApiReply> Scheduler::set_policy(const Principal& who, std::string policy,
                                            std::string reason) {
  return enqueue([this, who, policy = std::move(policy), reason = std::move(reason)] {
    if (!who.admin) return error_reply(403, "only the admin may change the active policy");
    if (auto refused = refuse_change()) return *refused;
    const double now = wall_now();
    const std::string previous = config_.policy;
    if (policy == previous) {
      if (guard_ && !guard_->armed()) {  // a person confirms the fallback: watch again
        guard_->rearm();
        alerts_.clear("policy_guard", "policy", now);
      }
      return error_reply(409, "'" + policy + "' is already the active policy", "policy");
    }
    if (Status st = switch_policy(policy, "admin", reason, now); !st.ok())
      return error_reply(400, st.error().message, "policy");
    if (guard_) {
      guard_->rearm();
      alerts_.clear("policy_guard", "policy", now);
    }
    ApiReply r;
    r.body = {{"policy", policy}, {"previous", previous}, {"at", now}};
    return r;
  });
}

std::future<ApiReply> Scheduler::get_policy(const Principal& who) {
  return enqueue([this, who] {
    ApiReply r;
    auto changes = store_->load_policy_changes();
    if (!changes.ok()) return error_reply(500, "policy changes: " + changes.error().message);
    nlohmann::json list = nlohmann::json::array();
    const auto& all = changes.value();
    for (size_t i = all.size() > 100 ? all.size() - 100 : 0; i < all.size(); ++i)
      list.push_back(change_json(all[i]));
    for (const PolicyChangeRow& c : policy_out_) list.push_back(change_json(c));
    r.body = {
        {"policy", config_.policy}, {"source", list.empty() ? "config" : "api"}, {"changes", list}};
    if (guard_) {
      const PolicyGuardConfig& g = guard_->config();
      r.body["guard"] = {{"fallback", g.fallback},
                         {"armed", guard_->armed()},
                         {"worse_since", guard_->worse_since()},
                         {"window_s", g.window_s}};
    }
    if (config_.pause_general.enabled) r.body["pause_general"] = pause_json(who);
    return r;
  });
}

void Scheduler::check_guard(double now) {
  if (!guard_ || !shadows_ || !shadows_->stopped().empty() || !guard_->due(now)) return;
  const PolicyGuardConfig& g = guard_->config();
  const auto fallback = shadows_->index_of(g.fallback);
  if (!fallback || *fallback == 0) return;  // the fallback is the active policy
  // The shadows' latest snapshot (with their own thread, it may lag the loop a little; one
  // taken before the latest policy change is skipped).
  const std::shared_ptr<const ShadowView> v = shadows_->view();
  if (v->shadows.size() <= *fallback || v->shadows[0].policy != config_.policy ||
      v->shadows[*fallback].policy != g.fallback)
    return;
  const std::optional<std::string> why =
      guard_->check(v->shadows[0].extra, v->shadows[*fallback].extra, now);
  if (!why) return;
  const std::string from = config_.policy;
  if (Status st = switch_policy(g.fallback, "policy_guard", *why, now); !st.ok()) {
    log_("policy_guard: cannot switch to " + g.fallback + ": " + st.error().message);
    return;
  }
  alerts_.raise("policy_guard", "policy",
                fmt::format("fell back from {} to {}: {} (it will not switch back by itself; "
                            "POST /v1/policy to choose again)",
                            from, g.fallback, *why),
                now);
}

}  // namespace frugal
