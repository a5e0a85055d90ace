// Scheduler: the usage series (service/usage_series.h; GET /v1/usage, docs/API.md "Usage over
// time"): a reading of the cluster at most every min(telemetry_period_s, usage_interval_s),
// folded into time-weighted buckets that are stored with the next commit and kept for
// usage_retention_s.
#include <algorithm>
#include <utility>

#include "service/scheduler.h"

namespace frugal {

void Scheduler::sample_usage(double now) {
  if (!accounting_) return;
  usage_sampled_at_ = now;
  UsageReading r;
  for (const int64_t g : engine_->nodes().provisioned_gpus())
    r.provisioned_gpus += static_cast<double>(g);
  r.allocated_gpus =
      static_cast<double>(engine_->cluster().allocated_milli()) / static_cast<double>(kMilliPerGpu);
  for (const GpuTelemetry& g : telemetry_)
    if (g.utilization >= 0) r.busy_gpus = std::max(0.0, r.busy_gpus) + std::min(1.0, g.utilization);
  r.queued_jobs = static_cast<double>(engine_->pending_count());
  spend_rates(now, r);
  for (UsageSampleRow& row : usage_.observe(now, std::move(r)))
    usage_out_.push_back(std::move(row));
}

namespace {

nlohmann::json point_json(const UsageSampleRow& p, const Principal& who) {
  nlohmann::json j = {
      {"at", p.at},
      {"span_s", p.span_s},
      {"provisioned_gpus", p.provisioned_gpus},
      {"allocated_gpus", p.allocated_gpus},
      {"busy_gpus", p.busy_gpus >= 0 ? nlohmann::json(p.busy_gpus) : nlohmann::json()},
      {"queued_jobs", p.queued_jobs},
      {"idle_usd_h", p.idle_usd_h}};
  nlohmann::json teams = nlohmann::json::object();
  if (who.admin) {
    j["burn_usd_h"] = p.burn_usd_h;
    for (const auto& [team, rate] : p.teams_usd_h) teams[team] = rate;
  } else {
    const auto it = p.teams_usd_h.find(who.team);
    teams[who.team] = it == p.teams_usd_h.end() ? 0.0 : it->second;
  }
  j["teams"] = std::move(teams);
  return j;
}

}  // namespace

std::future<ApiReply> Scheduler::usage(const Principal& who, double window_s) {
  return enqueue([this, who, window_s] {
    const double now = wall_now();
    nlohmann::json points = nlohmann::json::array();
    for (const UsageSampleRow& p : usage_.since(now - window_s)) {
      nlohmann::json j = point_json(p, who);
      if (usage_.open() && p.at == usage_.open_at()) j["partial"] = true;
      points.push_back(std::move(j));
    }
    ApiReply r;
    r.body = {{"as_of", now},
              {"window_s", window_s},
              {"interval_s", usage_.interval_s()},
              {"scope", who.admin ? std::string("cluster") : "team " + who.team},
              {"points", std::move(points)}};
    return r;
  });
}

}  // namespace frugal
