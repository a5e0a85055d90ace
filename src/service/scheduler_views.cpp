// Scheduler: JSON and Prometheus renderings (on the decision loop).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "cost/ledger.h"
#include "service/scheduler.h"

namespace frugal {
namespace {

nlohmann::json account_json(const CostAccount& a) {
  const Waste& w = a.waste;
  return {{"total_usd", a.total_usd()},
          {"compute_usd", a.compute.total_usd()},
          {"rental_usd", a.compute.rental_usd},
          {"energy_usd", a.compute.energy_usd},
          {"energy_kwh", a.compute.energy_kwh},
          {"co2_kg", a.compute.co2_kg},
          {"storage_usd", a.storage_usd},
          {"gpu_hours", a.gpu_hours},
          {"waste",
           {{"idle_allocated_usd", w.idle_allocated_usd},
            {"rework_usd", w.rework_usd},
            {"peak_premium_usd", w.peak_premium_usd},
            {"oversized_usd", w.oversized_usd},
            {"storage_tier_usd", w.storage_tier_usd},
            {"duplicate_storage_usd", w.duplicate_storage_usd},
            {"total_usd", w.total()}}}};
}

}  // namespace

nlohmann::json Scheduler::job_json(const Live& l, double now) const {
  const JobRecord& r = l.rec;
  std::string state(to_string(r.state));
  if (r.state == JobStatus::kDeferred && now >= r.deferred_until) state = "queued";
  nlohmann::json j = to_json(r.request);
  j["id"] = r.id;
  j["team"] = r.team;
  j["state"] = state;
  j["held"] = r.held;
  j["submitted_at"] = r.submitted_at;
  j["started_at"] = r.started_at >= 0 ? nlohmann::json(r.started_at) : nlohmann::json();
  j["finished_at"] = r.finished_at >= 0 ? nlohmann::json(r.finished_at) : nlohmann::json();
  j["restart_count"] = r.restart_count;
  j["exit_code"] = r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json();
  j["reason"] = r.reason;
  j["utilization"] = r.utilization >= 0 ? nlohmann::json(r.utilization) : nlohmann::json();
  if (r.state == JobStatus::kDeferred) j["deferred_until"] = r.deferred_until;
  // Why a queued job waits, from the plugins that said no (Engine::explain).
  if (state == "queued" && l.idx != Live::kNone) {
    if (const PluginStatus why = engine_.explain(l.idx); !why.ok())
      j["waiting"] = {{"code", to_string(why.code)}, {"point", why.point}, {"reason", why.reason}};
  }
  if (l.rec.cancel_requested) j["cancel_requested"] = true;
  if (r.state == JobStatus::kRunning) {
    nlohmann::json gpus = nlohmann::json::array();
    std::string node;
    for (const Slot& s : l.placement.slots) {
      node = cluster_.nodes[s.node].name;
      if (s.gpu >= 0) gpus.push_back({{"node", node}, {"gpu", s.gpu}, {"milli", s.milli}});
    }
    j["placement"] = {
        {"node", node},
        {"gpu_model", l.placement.model == kNoGpuModel ? "" : catalog_.at(l.placement.model).name},
        {"gpus", gpus}};
    j["handle"] = r.handle;
  }
  // The estimate the engine plans with: the request's, or predicted when it gave none.
  j["estimate_used_s"] = l.spec->runtime_estimate();
  j["estimate_predicted"] = !(r.request.estimate_s > 0);
  j["logs"] = {{"stdout", fmt::format("{}/{}.out", config_.log_dir, r.id)},
               {"stderr", fmt::format("{}/{}.err", config_.log_dir, r.id)}};
  return j;
}

std::future<ApiReply> Scheduler::nodes(const Principal& who) {
  return enqueue([this, who] {
    const double now = wall_now();
    const ClusterState& st = engine_.cluster();
    std::map<std::pair<NodeId, int>, std::vector<int64_t>> holders;
    std::set<std::pair<NodeId, int>> external;  // held by jobs frugal did not start
    for (const auto& [id, l] : jobs_)
      if (l.rec.state == JobStatus::kRunning)
        for (const Slot& s : l.placement.slots) {
          if (who.may_access(l.rec.team)) holders[{s.node, s.gpu}].push_back(id);
          if (l.rec.team == kExternalTeam) external.insert({s.node, s.gpu});
        }
    std::map<std::pair<std::string, int>, const GpuTelemetry*> tel;
    for (const GpuTelemetry& g : telemetry_) tel[{g.node, g.gpu}] = &g;
    nlohmann::json out = nlohmann::json::array();
    for (NodeId n = 0; n < cluster_.nodes.size(); ++n) {
      const NodeSpec& spec = cluster_.nodes[n];
      nlohmann::json gpus = nlohmann::json::array();
      for (int g = 0; g < spec.gpus; ++g) {
        nlohmann::json gj = {{"index", g},
                             {"allocated_milli", kMilliPerGpu - st.free_milli(n, g)},
                             {"jobs", holders[{n, g}]},
                             {"external", external.count({n, g}) > 0}};
        if (const auto it = tel.find({spec.name, g}); it != tel.end()) {
          const GpuTelemetry& t = *it->second;
          gj["telemetry"] = {{"utilization", t.utilization},
                             {"memory_used_mib", t.memory_used_mib},
                             {"memory_total_mib", t.memory_total_mib},
                             {"power_w", t.power_w}};
        }
        gpus.push_back(std::move(gj));
      }
      nlohmann::json nj = {
          {"name", spec.name},
          {"up", st.up(n)},
          {"gpu_model", spec.model == kNoGpuModel ? "" : catalog_.at(spec.model).name},
          {"gpus", gpus},
          {"cpu_jobs", holders[{n, -1}]}};
      if (const auto it = node_seen_.find(spec.name); it != node_seen_.end())
        nj["last_seen_s_ago"] = now - it->second;
      out.push_back(std::move(nj));
    }
    ApiReply r;
    r.body = {{"nodes", out}};
    return r;
  });
}

ApiReply Scheduler::ledger_reply(const Principal& who, double now) {
  Result<std::vector<SegmentRow>> stored = store_->load_segments();
  if (!stored.ok()) return error_reply(500, stored.error().message);
  std::vector<SegmentRow> segments = std::move(stored).value();
  segments.insert(segments.end(), segments_out_.begin(), segments_out_.end());
  // Dense ledger indices in job-id order.
  std::map<int64_t, JobIdx> index;
  for (const auto& [id, l] : jobs_) index.emplace(id, static_cast<JobIdx>(index.size()));
  // Jobs with measured utilisation are priced with it (the rest: 1.0, nothing claimed).
  std::map<int64_t, JobSpec> measured;
  for (const auto& [id, l] : jobs_)
    if (l.rec.utilization >= 0) {
      JobSpec s = *l.spec;
      s.utilization = std::clamp(l.rec.utilization, 0.0, 1.0);
      measured.emplace(id, std::move(s));
    }
  auto spec_of = [&](int64_t id) -> const JobSpec& {
    const auto m = measured.find(id);
    return m != measured.end() ? m->second : *jobs_.at(id).spec;
  };
  Ledger ledger(cluster_, catalog_, engine_.cluster(), kNoGpuModel, index.size());
  std::map<int64_t, double> run_time;
  auto add = [&](int64_t id, double t0, double t1, double kept, const std::string& pj) {
    const auto p = parse_placement(pj);
    if (!jobs_.count(id) || !p) return;
    ledger.segment(index[id], spec_of(id), *p, engine_time(t0), engine_time(t1), kept);
    run_time[id] += t1 - t0;
  };
  for (const SegmentRow& s : segments) add(s.job_id, s.t0, s.t1, s.kept_s, s.placement);
  for (const auto& [id, l] : jobs_)
    if (l.rec.state == JobStatus::kRunning && l.rec.segment_start >= 0)
      add(id, l.rec.segment_start, now, now - l.rec.segment_start, l.rec.placement);
  for (const auto& [id, l] : jobs_)
    if (is_final(l.rec.state))
      ledger.job_ended(index[id], spec_of(id),
                       l.rec.started_at >= 0 ? engine_time(l.rec.started_at) : -1,
                       engine_time(l.rec.finished_at), run_time[id]);
  const LedgerReport rep = ledger.report();
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& [id, l] : jobs_) {
    if (!who.may_access(l.rec.team) || !run_time.count(id)) continue;
    const SpanCost c = ledger.job_compute(index[id]);
    jobs.push_back({{"id", id},
                    {"team", l.rec.team},
                    {"name", l.rec.request.name},
                    {"state", std::string(to_string(l.rec.state))},
                    {"run_s", run_time[id]},
                    {"compute_usd", c.total_usd()},
                    {"utilization",
                     l.rec.utilization >= 0 ? nlohmann::json(l.rec.utilization) : nlohmann::json()},
                    {"total_usd", ledger.job_total_usd(index[id])}});
  }
  nlohmann::json teams = nlohmann::json::object();
  for (const auto& [team, a] : rep.by_team)
    if (who.may_access(team)) teams[team] = account_json(a);
  ApiReply r;
  r.body = {{"as_of", now}, {"jobs", jobs}, {"by_team", teams}};
  if (who.admin) {
    nlohmann::json classes = nlohmann::json::object();
    for (const auto& [c, a] : rep.by_class) classes[c] = account_json(a);
    r.body["total"] = account_json(rep.total);
    r.body["by_class"] = classes;
    r.body["waste"] = account_json(rep.total)["waste"];
    r.body["note"] =
        "attributed cost of jobs' GPU time; idle capacity nobody held is not priced live";
  } else if (const auto it = rep.by_team.find(who.team); it != rep.by_team.end()) {
    r.body["waste"] = account_json(it->second)["waste"];
  }
  return r;
}

std::string Scheduler::metrics_text(double now) {
  std::string out;
  const ClusterState& st = engine_.cluster();
  const double allocated = static_cast<double>(st.allocated_milli()) / kMilliPerGpu;
  render_metric("frugal_queue_length", "gauge",
                "Jobs waiting in the engine's queue (incl. deferred)",
                static_cast<double>(engine_.pending_count()), out);
  render_metric("frugal_running_jobs", "gauge", "Jobs running",
                static_cast<double>(engine_.running_count()), out);
  render_metric("frugal_gpus_allocated", "gauge", "GPUs allocated to jobs (fractions summed)",
                allocated, out);
  render_metric("frugal_gpus_idle", "gauge", "GPUs up and not allocated",
                static_cast<double>(st.up_gpus()) - allocated, out);
  render_metric("frugal_submissions_accepted_total", "counter", "Submissions accepted (201)",
                static_cast<double>(accepted_), out);
  render_metric("frugal_decisions_total", "counter", "Engine decisions carried out",
                static_cast<double>(decisions_), out);
  render_metric("frugal_decision_cycles_total", "counter", "Engine scheduling cycles",
                static_cast<double>(cycles_), out);
  double rate = 0;
  decision_marks_.emplace_back(now, decisions_);
  while (decision_marks_.size() > 2 && now - decision_marks_.front().first > 60)
    decision_marks_.pop_front();
  if (decision_marks_.size() >= 2 && now > decision_marks_.front().first)
    rate = static_cast<double>(decisions_ - decision_marks_.front().second) /
           (now - decision_marks_.front().first);
  render_metric("frugal_decisions_per_second", "gauge",
                "Decisions per second since the previous scrape (up to 60 s back)", rate, out);
  render_metric("frugal_group_commits_total", "counter", "SQLite group commits of API commands",
                static_cast<double>(commits_), out);
  decision_latency_.render("frugal_decision_latency_seconds",
                           "Time of one engine cycle: schedule() plus applying its decisions", out);
  submit_to_start_.render("frugal_submit_to_start_seconds", "From acceptance to the start decision",
                          out);
  commit_latency_.render("frugal_commit_latency_seconds",
                         "One group commit: the batch's commands plus the fsync", out);
  const ApiReply led = ledger_reply(Principal{"", true}, now);
  double cost = 0;
  if (led.status == 200) cost = led.body["total"]["total_usd"].get<double>();
  render_metric("frugal_cost_usd", "gauge", "Attributed cost of jobs' GPU time so far (USD)", cost,
                out);
  render_metric("frugal_alerts_active", "gauge", "Alerts firing",
                static_cast<double>(alerts_.active_count()), out);
  std::map<std::string, size_t> by_state;
  for (const auto& [id, l] : jobs_) ++by_state[std::string(to_string(l.rec.state))];
  out += "# HELP frugal_jobs Jobs known to the service by state\n# TYPE frugal_jobs gauge\n";
  for (const char* s :
       {"queued", "deferred", "running", "preempted", "completed", "failed", "cancelled"})
    out += fmt::format("frugal_jobs{{state=\"{}\"}} {}\n", s, by_state[s]);
  return out;
}

}  // namespace frugal
