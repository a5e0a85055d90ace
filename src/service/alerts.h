#pragma once
// Alert rules (config `alerts:`) evaluated by the decision loop on what it sees:
//   low_utilization   an allocated GPU busy less than `below` for `minutes`
//   gpu_memory_high   a GPU's memory used above `gpu_memory_above`
//   node_silent       no telemetry or heartbeat from a node for `node_silent_s`
//   deadline_risk     a pending job whose deadline is closer than its runtime estimate
//   job_idle          a running job measured below `job_idle.below` on all its GPUs for
//                     `job_idle.minutes` (its team sees it)
//   budget_burn       the cluster's spend rate (BurnRates) averaged over
//                     `budget_burn.minutes` above `budget_burn.usd_per_hour` (subject
//                     "cluster"), or a team's above its limit (subject "team T"; that team
//                     sees it); not before the samples cover the whole window
// and conditions the service reports itself with raise()/clear() (e.g. backend_unreachable:
// the Slurm controller or slurmrestd not answering; node_hot: a node the node-health plugin
// limits, service/scheduler_health.cpp; general_paused: the general tier paused,
// service/scheduler_pause.cpp), which evaluate() leaves alone.
// An alert fires once when its condition starts and resolves when it ends. Firing and
// resolving are logged and, with a webhook, POSTed as JSON from a background thread (a
// slow webhook never blocks the loop; at most 1,000 undelivered alerts are queued).
// evaluate()/to_json() are for the loop thread; the webhook thread is internal.

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "service/config.h"
#include "service/rate_window.h"

namespace frugal {

struct Alert {
  uint64_t id = 0;
  std::string rule;     // low_utilization, gpu_memory_high, node_silent, deadline_risk
  std::string subject;  // "node/gpu" or "job N" or "node"
  std::string message;
  std::string team;  // the team of the job it is about; "" for cluster alerts (any team sees)
  double fired_at = 0;
  double resolved_at = -1;  // < 0: still active
};

// Spend rates at one instant (service/scheduler_budget.cpp), USD per hour: the cluster's
// (< 0: not known, budget_burn is not evaluated) and each team's running jobs' (a team
// absent spends nothing).
struct BurnRates {
  double cluster_usd_h = -1;
  std::map<std::string, double> teams;
};

class AlertBook {
 public:
  struct GpuView {
    std::string node;
    int gpu = 0;
    bool allocated = false;
    double utilization = -1;  // < 0 unknown
    int64_t memory_used_mib = -1, memory_total_mib = -1;
  };
  struct PendingView {
    int64_t job = 0;
    std::string team;     // the job's owner: only it (and the admin) sees the alert
    double deadline = 0;  // Unix s; 0 none
    double estimate_s = 0;
  };

  // A running job's measured use (telemetry): since when it has been idle (< 0: it is not).
  struct JobView {
    int64_t job = 0;
    std::string team;
    double idle_since = -1;   // Unix s
    double utilization = -1;  // its latest measured utilisation
  };

  AlertBook(AlertRules rules, std::function<void(const std::string&)> log);
  ~AlertBook();
  AlertBook(const AlertBook&) = delete;
  AlertBook& operator=(const AlertBook&) = delete;

  // One evaluation at `now` (Unix s).
  void evaluate(double now, const std::vector<GpuView>& gpus,
                const std::map<std::string, double>& node_seen,
                const std::vector<PendingView>& pending, const std::vector<JobView>& jobs = {},
                const BurnRates& burn = {});
  // A condition the service observes itself, keyed by (rule, subject): fires once when
  // raised, resolves when cleared; raising it again while active changes nothing. Not
  // touched by evaluate(). `team`: the team that sees it ("" every team).
  void raise(const std::string& rule, const std::string& subject, const std::string& message,
             double now, const std::string& team = "");
  void clear(const std::string& rule, const std::string& subject, double now);
  // {"active": [...], "recent": [...]} (recent: the last 100 resolved).
  // Active and recent alerts; with `team`, only those about that team's jobs and the cluster
  // alerts (a team token must not learn another team's job ids; nullptr = all, the admin).
  nlohmann::json to_json(const std::string* team = nullptr) const;
  size_t active_count() const { return active_.size(); }
  // The active alerts as conditions (Engine::set_conditions): each one's rule, or
  // "rule@team" for an alert about one team (subject "team T": its budget_burn).
  std::set<std::string> conditions() const;

 private:
  void set(const std::string& key, bool on, const std::string& rule, const std::string& subject,
           const std::string& message, double now, const std::string& team = "");
  void evaluate_jobs(double now, const std::vector<JobView>& jobs,
                     std::set<std::string>& seen_keys);
  void evaluate_budget(double now, const BurnRates& burn, std::set<std::string>& seen_keys);
  void deliver(const Alert& a, const char* event);
  void webhook_loop();

  AlertRules rules_;
  std::function<void(const std::string&)> log_;
  std::map<std::string, Alert> active_;
  std::deque<Alert> resolved_;
  std::map<std::string, double> low_since_;
  std::set<std::string> raised_;            // keys of raise()d conditions (evaluate() leaves them)
  std::map<std::string, RateWindow> burn_;  // budget_burn: by team ("": the cluster)
  uint64_t next_id_ = 1;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> outbox_;
  bool stop_ = false;
  std::thread sender_;
};

}  // namespace frugal
