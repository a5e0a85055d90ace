#include "service/shadow_view.h"

#include <fmt/format.h>

#include <algorithm>

#include "io/report.h"
#include "service/prom_text.h"

namespace frugal {
nlohmann::json to_json(const ShadowFigures& f) {
  nlohmann::json tiers = nlohmann::json::object();
  for (size_t t = 0; t < f.wait_by_tier_s.size(); ++t)
    tiers[std::string(kTierNames[t])] = dist_json(f.wait_by_tier_s[t]);
  return {{"from", f.from},
          {"to", f.to},
          {"started", f.started},
          {"completed", f.completed},
          {"queued", f.queued},
          {"running", f.running},
          {"wait_s", dist_json(f.wait_s)},
          {"jct_s", dist_json(f.jct_s)},
          {"wait_by_tier_s", tiers},
          {"deadline_misses", f.deadline_misses},
          {"cost_usd", f.cost_usd},
          {"waste_usd", f.waste_usd},
          {"gpu_utilization", f.gpu_utilization},
          {"usd_per_useful_gpu_hour", f.usd_per_useful_gpu_hour}};
}

nlohmann::json to_json(const ShadowView& v, const WindowFigures& real,
                       const std::string& active_policy, uint64_t events, Seconds now) {
  nlohmann::json out;
  out["active_policy"] = active_policy;
  out["events"] = events;
  out["applied"] = v.applied;
  out["queued"] = v.queued;
  out["own_thread"] = v.own_thread;
  if (!v.stopped.empty()) out["stopped"] = v.stopped;
  nlohmann::json shadows = nlohmann::json::array();
  for (size_t i = 0; i < v.shadows.size(); ++i) {
    const ShadowState& r = v.shadows[i];
    nlohmann::json windows = nlohmann::json::object();
    for (size_t w = 0; w < kShadowWindows.size(); ++w)
      windows[kShadowWindows[w].name] = to_json(r.windows[w]);
    shadows.push_back({{"policy", r.policy},
                       {"active", i == 0},
                       {"events", r.events},
                       {"cycles", r.cycles},
                       {"jobs", r.jobs},
                       {"lag_s", std::max(0.0, now - r.now)},
                       {"advance_s", r.compute_s},
                       {"advance_max_s", r.compute_max_s},
                       {"late_ends", r.late_ends},
                       {"late_end_s", r.late_end_s},
                       {"windows", windows}});
  }
  out["shadows"] = shadows;
  nlohmann::json rw = nlohmann::json::object();
  for (size_t w = 0; w < kShadowWindows.size(); ++w) rw[kShadowWindows[w].name] = to_json(real[w]);
  out["real"] = {{"policy", active_policy}, {"windows", rw}};
  return out;
}

void render_metrics(const ShadowView& v, const WindowFigures& real,
                    const std::string& active_policy, Seconds now, std::string& out) {
  struct Family {
    const char* name;
    const char* help;
    double (*get)(const ShadowFigures&);
  };
  static constexpr Family kFamilies[] = {
      {"frugal_shadow_wait_mean_seconds", "Mean wait (first start - submit) of jobs started",
       [](const ShadowFigures& f) { return f.wait_s.mean; }},
      {"frugal_shadow_wait_p99_seconds", "p99 wait of jobs started",
       [](const ShadowFigures& f) { return f.wait_s.p99; }},
      {"frugal_shadow_jct_mean_seconds", "Mean JCT of jobs completed",
       [](const ShadowFigures& f) { return f.jct_s.mean; }},
      {"frugal_shadow_completed_jobs", "Jobs completed",
       [](const ShadowFigures& f) { return static_cast<double>(f.completed); }},
      {"frugal_shadow_deadline_misses", "Deadlines passed unfinished or finished late",
       [](const ShadowFigures& f) { return static_cast<double>(f.deadline_misses); }},
      {"frugal_shadow_cost_usd", "Ledger total accrued (dollars)",
       [](const ShadowFigures& f) { return f.cost_usd; }},
      {"frugal_shadow_gpu_utilization", "Allocated over provisioned GPU-seconds",
       [](const ShadowFigures& f) { return f.gpu_utilization; }},
  };
  for (const Family& f : kFamilies) {
    render_header(f.name, "gauge",
                  fmt::format("{} over the window, per shadow policy (source=shadow) and for the "
                              "active policy as it really ran (source=real)",
                              f.help),
                  out);
    for (size_t w = 0; w < kShadowWindows.size(); ++w) {
      for (const ShadowState& r : v.shadows)
        render_sample(
            f.name,
            {{"policy", r.policy}, {"source", "shadow"}, {"window", kShadowWindows[w].name}},
            f.get(r.windows[w]), out);
      render_sample(
          f.name,
          {{"policy", active_policy}, {"source", "real"}, {"window", kShadowWindows[w].name}},
          f.get(real[w]), out);
    }
  }
  render_header("frugal_shadow_events_total", "counter",
                "Live events each shadow took (each equals the events fed to the set)", out);
  for (const ShadowState& r : v.shadows)
    render_sample("frugal_shadow_events_total", {{"policy", r.policy}},
                  static_cast<double>(r.events), out);
  render_header("frugal_shadow_lag_seconds", "gauge",
                "How far behind the service's clock a shadow's clock is", out);
  for (const ShadowState& r : v.shadows)
    render_sample("frugal_shadow_lag_seconds", {{"policy", r.policy}}, std::max(0.0, now - r.now),
                  out);
  render_header("frugal_shadow_advance_seconds_total", "counter",
                "Compute time spent on each shadow (its events and advances)", out);
  for (const ShadowState& r : v.shadows)
    render_sample("frugal_shadow_advance_seconds_total", {{"policy", r.policy}}, r.compute_s, out);
  render_header("frugal_shadow_queued_events", "gauge",
                "Live events and turns given to the shadows and not yet applied by their thread",
                out);
  render_sample("frugal_shadow_queued_events", {}, static_cast<double>(v.queued), out);
}

}  // namespace frugal
