#include "service/alerts.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace frugal {

AlertBook::AlertBook(AlertRules rules, std::function<void(const std::string&)> log)
    : rules_(std::move(rules)), log_(std::move(log)) {
  if (!rules_.webhook.empty()) sender_ = std::thread([this] { webhook_loop(); });
}

AlertBook::~AlertBook() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (sender_.joinable()) sender_.join();
}

void AlertBook::evaluate(double now, const std::vector<GpuView>& gpus,
                         const std::map<std::string, double>& node_seen,
                         const std::vector<PendingView>& pending, const std::vector<JobView>& jobs,
                         const BurnRates& burn) {
  std::set<std::string> seen_keys;
  evaluate_jobs(now, jobs, seen_keys);
  evaluate_budget(now, burn, seen_keys);
  auto check = [&](const std::string& key, bool on, const std::string& rule,
                   const std::string& subject, const std::string& message,
                   const std::string& team = "") {
    seen_keys.insert(key);
    set(key, on, rule, subject, message, now, team);
  };
  for (const GpuView& g : gpus) {
    const std::string where = fmt::format("{}/gpu{}", g.node, g.gpu);
    if (rules_.low_utilization_minutes > 0) {
      const std::string key = "low_utilization:" + where;
      const bool low =
          g.allocated && g.utilization >= 0 && g.utilization < rules_.low_utilization_below;
      if (!low) {
        low_since_.erase(key);
      } else if (!low_since_.count(key)) {
        low_since_[key] = now;
      }
      const bool on = low && now - low_since_[key] >= rules_.low_utilization_minutes * 60;
      check(key, on, "low_utilization", where,
            fmt::format("allocated GPU {} busy {:.0f}% (< {:.0f}%) for {:g} min", where,
                        g.utilization * 100, rules_.low_utilization_below * 100,
                        rules_.low_utilization_minutes));
    }
    if (rules_.gpu_memory_above < 1 && g.memory_total_mib > 0 && g.memory_used_mib >= 0) {
      const double share = static_cast<double>(g.memory_used_mib) / g.memory_total_mib;
      check("gpu_memory_high:" + where, share > rules_.gpu_memory_above, "gpu_memory_high", where,
            fmt::format("GPU {} memory {:.1f}% used (> {:.0f}%)", where, share * 100,
                        rules_.gpu_memory_above * 100));
    }
  }
  if (rules_.node_silent_s > 0)
    for (const auto& [node, at] : node_seen)
      check("node_silent:" + node, now - at > rules_.node_silent_s, "node_silent", node,
            fmt::format("node {} has not reported for {:.0f} s", node, now - at));
  if (rules_.deadline_risk)
    for (const PendingView& p : pending) {
      if (p.deadline <= 0) continue;
      check(fmt::format("deadline_risk:{}", p.job), now + p.estimate_s > p.deadline,
            "deadline_risk", fmt::format("job {}", p.job),
            fmt::format("job {} is still pending and its estimate of {:.0f} s ends past its "
                        "deadline",
                        p.job, p.estimate_s),
            p.team);
    }
  // Conditions whose subject disappeared (a job started, a GPU vanished) resolve.
  std::vector<std::string> gone;
  for (const auto& [key, a] : active_)
    if (!seen_keys.count(key) && !raised_.count(key)) gone.push_back(key);
  for (const std::string& key : gone) set(key, false, "", "", "", now);
}

void AlertBook::evaluate_jobs(double now, const std::vector<JobView>& jobs,
                              std::set<std::string>& seen_keys) {
  if (!(rules_.job_idle_minutes > 0)) return;
  for (const JobView& j : jobs) {
    const std::string key = fmt::format("job_idle:{}", j.job);
    seen_keys.insert(key);
    const bool on = j.idle_since >= 0 && now - j.idle_since >= rules_.job_idle_minutes * 60;
    set(key, on, "job_idle", fmt::format("job {}", j.job),
        on ? fmt::format("job {} has been idle on all its GPUs (measured {:.0f}% busy, < {:.0f}%) "
                         "for {:g} min",
                         j.job, std::max(0.0, j.utilization) * 100, rules_.job_idle_below * 100,
                         rules_.job_idle_minutes)
           : "",
        now, j.team);
  }
}

void AlertBook::evaluate_budget(double now, const BurnRates& burn,
                                std::set<std::string>& seen_keys) {
  if (!rules_.budget_burn_on() || burn.cluster_usd_h < 0) return;
  const double span_s = rules_.budget_burn_minutes * 60;
  auto check = [&](const std::string& team, double limit, double rate) {
    RateWindow& w = burn_.try_emplace(team, span_s).first->second;
    w.add(now, rate);
    const std::optional<double> mean = w.mean(now);
    const std::string subject = team.empty() ? "cluster" : "team " + team;
    const std::string key = "budget_burn:" + subject;
    seen_keys.insert(key);
    set(key, mean && *mean > limit, "budget_burn", subject,
        fmt::format("{} spent ${:.2f}/h over the last {:g} min (limit ${:g}/h)",
                    team.empty() ? "the cluster" : subject, mean.value_or(0),
                    rules_.budget_burn_minutes, limit),
        now, team);
  };
  if (rules_.budget_burn_usd_per_hour > 0)
    check("", rules_.budget_burn_usd_per_hour, burn.cluster_usd_h);
  for (const auto& [team, limit] : rules_.budget_burn_teams) {
    const auto it = burn.teams.find(team);
    check(team, limit, it == burn.teams.end() ? 0.0 : it->second);
  }
}

void AlertBook::raise(const std::string& rule, const std::string& subject,
                      const std::string& message, double now, const std::string& team) {
  const std::string key = rule + ":" + subject;
  raised_.insert(key);
  set(key, true, rule, subject, message, now, team);
}

std::set<std::string> AlertBook::conditions() const {
  std::set<std::string> out;
  for (const auto& [key, a] : active_)
    out.insert(!a.team.empty() && a.subject == "team " + a.team ? a.rule + "@" + a.team : a.rule);
  return out;
}

void AlertBook::clear(const std::string& rule, const std::string& subject, double now) {
  const std::string key = rule + ":" + subject;
  if (raised_.erase(key) > 0) set(key, false, rule, subject, "", now);
}

void AlertBook::set(const std::string& key, bool on, const std::string& rule,
                    const std::string& subject, const std::string& message, double now,
                    const std::string& team) {
  const auto it = active_.find(key);
  if (on && it == active_.end()) {
    Alert a{next_id_++, rule, subject, message, team, now, -1};
    deliver(a, "firing");
    active_.emplace(key, std::move(a));
  } else if (!on && it != active_.end()) {
    Alert a = it->second;
    a.resolved_at = now;
    active_.erase(it);
    deliver(a, "resolved");
    resolved_.push_back(std::move(a));
    if (resolved_.size() > 100) resolved_.pop_front();
  }
}

namespace {
nlohmann::json alert_json(const Alert& a) {
  nlohmann::json j = {{"id", a.id},
                      {"rule", a.rule},
                      {"subject", a.subject},
                      {"message", a.message},
                      {"fired_at", a.fired_at}};
  if (a.resolved_at >= 0) j["resolved_at"] = a.resolved_at;
  return j;
}
}  // namespace

void AlertBook::deliver(const Alert& a, const char* event) {
  log_(fmt::format("alert {}: [{}] {}", event, a.rule, a.message));
  if (rules_.webhook.empty()) return;
  nlohmann::json j = alert_json(a);
  j["event"] = event;
  std::lock_guard<std::mutex> lock(mu_);
  if (outbox_.size() < 1000) outbox_.push_back(j.dump());
  cv_.notify_one();
}

nlohmann::json AlertBook::to_json(const std::string* team) const {
  nlohmann::json active = nlohmann::json::array(), recent = nlohmann::json::array();
  auto shown = [team](const Alert& a) { return !team || a.team.empty() || a.team == *team; };
  for (const auto& [key, a] : active_)
    if (shown(a)) active.push_back(alert_json(a));
  for (const Alert& a : resolved_)
    if (shown(a)) recent.push_back(alert_json(a));
  return {{"active", active}, {"recent", recent}};
}

void AlertBook::webhook_loop() {
  // http://host[:port]/path
  const std::string url = rules_.webhook.substr(7);
  const size_t slash = url.find('/');
  const std::string host_port = url.substr(0, slash);
  const std::string path = slash == std::string::npos ? "/" : url.substr(slash);
  httplib::Client client("http://" + host_port);
  client.set_connection_timeout(2);
  client.set_read_timeout(5);
  for (;;) {
    std::string body;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !outbox_.empty(); });
      if (stop_) return;
      body = std::move(outbox_.front());
      outbox_.pop_front();
    }
    const auto res = client.Post(path, body, "application/json");
    if (!res || res->status >= 300)
      log_(fmt::format("alert webhook {}: delivery failed ({})", rules_.webhook,
                       res ? std::to_string(res->status) : httplib::to_string(res.error())));
  }
}

}  // namespace frugal
