// Scheduler: JSON and Prometheus renderings (on the decision loop).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "cost/ledger.h"
#include "io/report.h"
#include "service/gpu_metrics.h"
#include "service/prom_text.h"
#include "service/scheduler.h"

namespace frugal {

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
  j["output_truncated"] = r.output_truncated;
  j["exit_code"] = r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json();
  j["reason"] = r.reason;
  j["utilization"] = r.utilization >= 0 ? nlohmann::json(r.utilization) : nlohmann::json();
  j[kDatasetsField] = r.request.datasets;
  // Storage: the last run's staging of its datasets and of its checkpoint back to the hot
  // tier (the restart's cost), seconds; null when none. Over all its runs: the staging's
  // seconds and what its held GPUs cost meanwhile (a part of its compute cost).
  j["stage_s"] = r.stage_s >= 0 ? nlohmann::json(r.stage_s) : nlohmann::json();
  j["restore_s"] = r.restore_s >= 0 ? nlohmann::json(r.restore_s) : nlohmann::json();
  j["staging_s"] = r.staging_s;
  j["staging_usd"] = r.staging_usd;
  if (r.state == JobStatus::kDeferred) j["deferred_until"] = r.deferred_until;
  // Why a queued job waits, from the plugins that said no (Engine::explain).
  if (state == "queued" && l.idx != Live::kNone) {
    if (const PluginStatus why = engine_->explain(l.idx); !why.ok())
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
    if (l.guest_of > 0) j["guest_of"] = l.guest_of;  // a guest on that job's measured idle
  }
  // The estimate the engine plans with: the request's, or predicted when it gave none.
  j["estimate_used_s"] = l.spec->runtime_estimate();
  j["estimate_predicted"] = !(r.request.estimate_s > 0);
  j["logs"] = {{"stdout", fmt::format("{}/{}.out", config_.log_dir, r.id)},
               {"stderr", fmt::format("{}/{}.err", config_.log_dir, r.id)}};
  return j;
}

nlohmann::json Scheduler::telemetry_json(const GpuTelemetry& t, const Principal& who) const {
  nlohmann::json j = {{"utilization", t.utilization},
                      {"memory_used_mib", t.memory_used_mib},
                      {"memory_total_mib", t.memory_total_mib},
                      {"power_w", t.power_w},
                      {"temperature_c", t.temperature_c}};
  // Processes on the card: the job of each where the principal may see it.
  nlohmann::json procs = nlohmann::json::array();
  for (const GpuProcess& p : t.processes) {
    nlohmann::json pj = {{"memory_mib", p.memory_mib}};
    if (p.utilization >= 0) pj["utilization"] = p.utilization;
    int64_t id = 0;
    std::from_chars(p.job.data(), p.job.data() + p.job.size(), id);
    if (const auto it = jobs_.find(id); it != jobs_.end() && who.may_access(it->second.rec.team))
      pj["job"] = it->first;
    procs.push_back(std::move(pj));
  }
  if (!procs.empty()) j["processes"] = std::move(procs);
  return j;
}

std::future<ApiReply> Scheduler::nodes(const Principal& who) {
  return enqueue([this, who] {
    const double now = wall_now();
    const ClusterState& st = engine_->cluster();
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
          gj["telemetry"] = telemetry_json(t, who);
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
      if (const NodeLimit& limit = engine_->node_limit(n); !limit.reason.empty())
        nj["placement_limit"] = {{"takes_up_to", to_string(limit.takes)}, {"reason", limit.reason}};
      if (const auto it = host_load_.find(spec.name); it != host_load_.end())
        nj["host"] = {{"cpu_busy", it->second.cpu_busy},
                      {"cpu_count", it->second.cpu_count},
                      {"memory_used_mib", it->second.memory_used_mib},
                      {"memory_total_mib", it->second.memory_total_mib}};
      out.push_back(std::move(nj));
    }
    ApiReply r;
    r.body = {{"nodes", out}};
    return r;
  });
}

// The live accounting as if every open segment ended now (kept whole) and capacity were
// priced up to now; the live one is not changed.
RunAccounting Scheduler::accounting_at(double now) const {
  RunAccounting at_now = *accounting_;
  const Seconds t = engine_time(now);
  if (t > accounted_until_)
    at_now.capacity(accounted_until_, t, engine_->fragmentation_block(),
                    engine_->nodes().provisioned_gpus(), engine_->nodes().booting_gpus(),
                    engine_->nodes().provisioned_nodes());
  for (const auto& [id, l] : jobs_)
    if (l.rec.state == JobStatus::kRunning && l.rec.segment_start >= 0)
      if (const auto p = parse_placement(l.rec.placement))
        account_segment(at_now, l, *p, engine_time(l.rec.segment_start), t,
                        t - engine_time(l.rec.segment_start));
  return at_now;
}

nlohmann::json Scheduler::ledger_json(double now, std::vector<LedgerJobRow>& jobs) {
  jobs.clear();
  if (!accounting_) return nullptr;
  const RunAccounting at_now = accounting_at(now);
  const LedgerReport rep = at_now.report();
  for (const auto& [id, l] : jobs_) {
    if (l.rec.started_at < 0) continue;
    const JobIdx j = ledger_index(id);
    jobs.push_back(LedgerJobRow{
        id, l.rec.team, l.rec.request.name, std::string(to_string(l.rec.state)), at_now.run_time(j),
        at_now.ledger().job_compute(j).total_usd(), at_now.ledger().job_total_usd(j),
        l.rec.utilization, l.rec.staging_s, l.rec.staging_usd});
  }
  nlohmann::json body = to_json(rep);  // the shape `frugal simulate` reports (docs/REPORT.md)
  // Staging (with storage on): a part of each team's compute (rental + energy), not added
  // beside it. Without storage the body is exactly the simulator's (ledger_identity_test).
  if (storage_) {
    const std::map<std::string, double> staging = staging_by_team();
    double staging_usd = 0;
    for (auto& [team, account] : body["by_team"].items()) {
      const auto it = staging.find(team);
      account["staging_usd"] = it != staging.end() ? it->second : 0.0;
      staging_usd += account["staging_usd"].get<double>();
    }
    body["cost"]["staging_usd"] = staging_usd;
  }
  add_storage_bill(body, storage_.get(), now);  // the real-bytes bill (storage_bill.h)
  body["as_of"] = now;
  return body;
}

namespace {

nlohmann::json ledger_job_json(const LedgerJobRow& r) {
  return {{"id", r.id},
          {"team", r.team},
          {"name", r.name},
          {"state", r.state},
          {"run_s", r.run_s},
          {"compute_usd", r.compute_usd},
          {"utilization", r.utilization >= 0 ? nlohmann::json(r.utilization) : nlohmann::json()},
          {"staging_s", r.staging_s},
          {"staging_usd", r.staging_usd},
          {"total_usd", r.total_usd}};
}

}  // namespace

ApiReply ledger_view(const ReadSnapshot& snap, const Principal& who,
                     const std::set<int64_t>* only_jobs) {
  const nlohmann::json& admin = snap.ledger;
  if (admin.is_null()) return error_reply(503, "the ledger is not ready (the service is starting)");
  ApiReply r;
  if (who.admin) {
    r.body = admin;
  } else {
    nlohmann::json teams = nlohmann::json::object();
    if (const auto it = admin["by_team"].find(who.team); it != admin["by_team"].end()) {
      teams[who.team] = *it;
      r.body["waste"] = (*it)["waste"];
    }
    r.body["by_team"] = teams;
    if (admin.contains("storage")) r.body["storage"] = team_storage_bill(admin, who.team);
    r.body["as_of"] = admin["as_of"];
  }
  // The rows the principal may see and asked for, rendered for those alone.
  nlohmann::json jobs = nlohmann::json::array();
  const auto add = [&](const LedgerJobRow& j) {
    if (who.admin || j.team == who.team) jobs.push_back(ledger_job_json(j));
  };
  if (only_jobs) {
    for (const int64_t id : *only_jobs) {
      const auto it = std::lower_bound(snap.jobs.begin(), snap.jobs.end(), id,
                                       [](const LedgerJobRow& j, int64_t v) { return j.id < v; });
      if (it != snap.jobs.end() && it->id == id) add(*it);
    }
  } else {
    for (const LedgerJobRow& j : snap.jobs) add(j);
  }
  r.body["jobs"] = std::move(jobs);
  return r;
}

void Scheduler::render_telemetry_metrics(std::string& out) const {
  const ClusterState& st = engine_->cluster();
  std::map<std::pair<std::string, int>, const GpuTelemetry*> tel;
  for (const GpuTelemetry& g : telemetry_) tel[{g.node, g.gpu}] = &g;
  const auto model_name = [this](GpuModelId m) {
    return m == kNoGpuModel ? std::string() : catalog_.at(m).name;
  };
  // Cards with telemetry only: per-card series scale with what is measured, so a large
  // cluster without telemetry (dry-run, Slurm today) serves none.
  std::vector<GpuSample> gpus;
  if (!telemetry_.empty()) {
    std::map<std::string, NodeId> node_of;
    for (NodeId n = 0; n < cluster_.nodes.size(); ++n) node_of[cluster_.nodes[n].name] = n;
    for (const GpuTelemetry& t : telemetry_) {
      GpuSample s{t, "", "", -1};
      if (const auto it = node_of.find(t.node); it != node_of.end()) {
        const NodeSpec& spec = cluster_.nodes[it->second];
        s.model = model_name(spec.model);
        if (spec.pool < cluster_.pools.size()) s.pool = cluster_.pools[spec.pool].name;
        if (t.gpu >= 0 && t.gpu < spec.gpus)
          s.allocated =
              static_cast<double>(kMilliPerGpu - st.free_milli(it->second, t.gpu)) / kMilliPerGpu;
      }
      gpus.push_back(std::move(s));
    }
  }
  render_gpu_metrics(gpus, out);

  std::vector<JobUse> jobs;
  for (const auto& [id, l] : jobs_) {
    if (l.rec.state != JobStatus::kRunning) continue;
    JobUse j;
    j.id = id;
    j.team = l.rec.team;
    j.tier = std::string(to_string(l.rec.request.tier));
    j.model = model_name(l.placement.model);
    j.utilization = l.rec.utilization;
    int64_t memory = 0;  // known only when every slot is a whole card with a reading
    for (const Slot& s : l.placement.slots) {
      if (s.gpu < 0) continue;
      j.gpus += static_cast<double>(s.milli) / kMilliPerGpu;
      const auto it = tel.find({cluster_.nodes[s.node].name, s.gpu});
      if (memory < 0 || s.milli < kMilliPerGpu || it == tel.end() ||
          it->second->memory_used_mib < 0)
        memory = -1;
      else
        memory += it->second->memory_used_mib;
    }
    j.memory_used_mib = j.gpus > 0 ? memory : -1;
    // Its processes' own memory where an agent or NVML mapped them to it (shared cards too).
    if (l.gpu_memory_mib >= 0) j.memory_used_mib = l.gpu_memory_mib;
    jobs.push_back(std::move(j));
  }
  render_job_metrics(jobs, out);
  render_host_metrics(host_load_, out);
}

std::string Scheduler::metrics_text(double now, const nlohmann::json& ledger) {
  std::string out;
  const ClusterState& st = engine_->cluster();
  const double allocated = static_cast<double>(st.allocated_milli()) / kMilliPerGpu;
  render_metric("frugal_queue_length", "gauge",
                "Jobs waiting in the engine's queue (incl. deferred)",
                static_cast<double>(engine_->pending_count()), out);
  render_metric("frugal_running_jobs", "gauge", "Jobs running",
                static_cast<double>(engine_->running_count()), out);
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
  render_metric("frugal_queue_max_wait_unexamined_seconds", "gauge",
                "The longest a job waited in the queue before a cycle first examined it",
                engine_->max_wait_unexamined(engine_time(now)), out);
  render_metric("frugal_jobs_retired_total", "counter",
                "Finished jobs taken out of memory by retention (still in the database)",
                static_cast<double>(evicted_), out);
  render_metric(
      "frugal_read_snapshots_total", "counter",
      "Read snapshots built for /metrics and /v1/ledger (at most one per read_snapshot_s)",
      static_cast<double>(snapshots_), out);
  decision_latency_.render("frugal_decision_latency_seconds",
                           "Time of one engine cycle: schedule() plus applying its decisions", out);
  submit_to_start_.render("frugal_submit_to_start_seconds", "From acceptance to the start decision",
                          out);
  commit_latency_.render("frugal_commit_latency_seconds",
                         "One group commit: the batch's commands plus the fsync", out);
  double cost = 0;
  if (!ledger.is_null()) cost = ledger["cost"]["total_usd"].get<double>();
  render_metric("frugal_cost_usd", "gauge",
                "Cost so far (USD): jobs' GPU time and the capacity nobody held", cost, out);
  render_storage_bill_metrics(ledger, out);  // with storage: (scheduler_storage_bill.cpp)
  render_metric("frugal_alerts_active", "gauge", "Alerts firing",
                static_cast<double>(alerts_.active_count()), out);
  render_pool_metrics(out);
  render_pause_metrics(out);
  render_shadow_metrics(now, out);
  // Node agents' reports (POST /v1/telemetry) by what became of them; refused batches.
  const TelemetryBook::Counters tc = pushed_->counters();
  render_header("frugal_telemetry_reports_total", "counter",
                "Node agents' reports by outcome: accepted, stale (too old or out of order), "
                "dropped (over the per-node bound before the loop took them)",
                out);
  for (const auto& [outcome, n] :
       {std::pair{"accepted", tc.accepted}, {"stale", tc.stale}, {"dropped", tc.dropped}})
    render_sample("frugal_telemetry_reports_total", {{"outcome", outcome}}, static_cast<double>(n),
                  out);
  render_header("frugal_telemetry_batches_refused_total", "counter",
                "Node agents' batches refused: bad (400/403: unknown node or GPU, clock skew, "
                "a node the token may not report for), rate_limited (429)",
                out);
  for (const auto& [reason, n] : {std::pair{"bad", tc.refused}, {"rate_limited", tc.rate_limited}})
    render_sample("frugal_telemetry_batches_refused_total", {{"reason", reason}},
                  static_cast<double>(n), out);
  render_telemetry_metrics(out);
  std::map<std::string, size_t> by_state;
  for (const auto& [id, l] : jobs_) ++by_state[std::string(to_string(l.rec.state))];
  render_header("frugal_jobs", "gauge", "Jobs known to the service by state", out);
  for (const char* s : {"queued", "deferred", "running", "preempted", "completed", "failed",
                        "cancelled", "unknown"})
    render_sample("frugal_jobs", {{"state", s}}, static_cast<double>(by_state[s]), out);
  return out;
}

}  // namespace frugal
