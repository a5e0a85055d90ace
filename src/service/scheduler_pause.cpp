// Scheduler: the general-tier pause (config pause_general; policy/pause_general.h). At each
// telemetry sample the active alerts of the rules pause_general.on names become the engine's
// conditions (AlertBook::conditions): the pause plugin holds queued general-tier jobs while
// one is active (for every team, or for one team: its budget_burn), and they re-enter the
// queue when the alerts clear. The pause shows as the alert general_paused (subject
// "general tier", or "team T" for one team's), in GET /v1/policy and as gauges. With
// requeue_running, the running general-tier jobs it covers are checkpointed and requeued
// (Engine::checkpoint_requeue, as job_idle's reaction); held when their checkpoint is done.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "policy/pause_general.h"
#include "service/prom_text.h"
#include "service/scheduler.h"

namespace frugal {
namespace {

// "general tier paused while budget_burn is active: queued general-tier jobs wait".
std::string paused_message(const std::string& whose, const std::vector<std::string>& rules,
                           bool requeue) {
  return fmt::format("{} paused while {} {} active: queued general-tier jobs wait{}", whose,
                     fmt::join(rules, ", "), rules.size() == 1 ? "is" : "are",
                     requeue ? "; running ones are checkpointed and requeued" : "");
}

}  // namespace

void Scheduler::pause_turn(double now) {
  const PauseGeneralConfig& pg = config_.pause_general;
  if (!pg.enabled) return;
  const Seconds t = engine_time(now);
  std::set<std::string> conditions;
  for (const std::string& c : alerts_.conditions())
    if (std::find(pg.on.begin(), pg.on.end(), c.substr(0, c.find('@'))) != pg.on.end())
      conditions.insert(c);
  if (engine_->set_conditions(std::move(conditions), t)) engine_dirty_ = true;
  const std::set<std::string>& in_force = engine_->conditions();
  const std::vector<std::string> all = paused_by(pg.on, in_force);
  if (all.empty())
    alerts_.clear("general_paused", "general tier", now);
  else
    alerts_.raise("general_paused", "general tier",
                  paused_message("general tier", all, pg.requeue_running), now);
  bool any = !all.empty();
  for (const TeamConfig& team : config_.teams) {
    const std::vector<std::string> own = paused_by(pg.on, in_force, team.name);
    const std::string subject = "team " + team.name;
    if (own.empty()) {
      alerts_.clear("general_paused", subject, now);
      continue;
    }
    any = true;
    alerts_.raise("general_paused", subject,
                  paused_message("team " + team.name + "'s general tier", own, pg.requeue_running),
                  now, team.name);
  }
  if (!pg.requeue_running || !any) return;
  for (auto& [id, l] : jobs_) {
    if (l.rec.state != JobStatus::kRunning || l.spec->tier != Tier::kGeneral || l.draining ||
        l.move_to || l.guest_of > 0 || l.rec.team == kExternalTeam)
      continue;
    const std::string why = pause_reason(pg.on, in_force, l.rec.team);
    if (why.empty()) continue;
    const double grace =
        l.rec.request.grace_s >= 0 ? l.rec.request.grace_s : config_.checkpoint_grace_s;
    if (engine_->checkpoint_requeue(l.idx, t, grace, why)) {
      engine_dirty_ = true;
      log_(fmt::format("job {}: {}: checkpointed and requeued", id, why));
    }
  }
}

nlohmann::json Scheduler::pause_json(const Principal& who) const {
  const PauseGeneralConfig& pg = config_.pause_general;
  if (!pg.enabled) return nullptr;
  const std::set<std::string>& in_force = engine_->conditions();
  const std::vector<std::string> all = paused_by(pg.on, in_force);
  nlohmann::json teams = nlohmann::json::object();
  for (const TeamConfig& t : config_.teams)
    if (who.may_access(t.name))
      if (std::vector<std::string> own = paused_by(pg.on, in_force, t.name); !own.empty())
        teams[t.name] = own;
  return {{"on", pg.on},
          {"requeue_running", pg.requeue_running},
          {"paused", !all.empty()},
          {"paused_by", all},
          {"teams", teams},
          {"paused_jobs", engine_->held_count()}};
}

void Scheduler::render_pause_metrics(std::string& out) const {
  render_metric("frugal_general_paused_jobs", "gauge",
                "Waiting general-tier jobs the pause keeps out of the queue (pause_general)",
                static_cast<double>(engine_->held_count()), out);
  if (spend_rate_ >= 0)
    render_metric("frugal_spend_rate_usd_per_hour", "gauge",
                  "The cluster's spend rate at the last telemetry sample (budget_burn)",
                  spend_rate_, out);
  const PauseGeneralConfig& pg = config_.pause_general;
  if (!pg.enabled) return;
  const std::set<std::string>& in_force = engine_->conditions();
  render_metric("frugal_general_paused", "gauge",
                "1 while the general tier is paused for every team (pause_general)",
                paused_by(pg.on, in_force).empty() ? 0 : 1, out);
  render_header("frugal_general_paused_team", "gauge",
                "1 while a team's own alert (its budget_burn) pauses its general tier", out);
  for (const TeamConfig& t : config_.teams)
    render_sample("frugal_general_paused_team", {{"team", t.name}},
                  paused_by(pg.on, in_force, t.name).empty() ? 0 : 1, out);
}

}  // namespace frugal
