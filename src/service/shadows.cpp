#include "service/shadows.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "io/report.h"
#include "service/live_profile.h"
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

Result<std::unique_ptr<ShadowSet>> ShadowSet::create(const std::vector<std::string>& policies,
                                                     const ServiceConfig& config,
                                                     const ClusterSpec& cluster,
                                                     const GpuCatalog& catalog,
                                                     const EngineOptions& options) {
  std::unique_ptr<ShadowSet> set(new ShadowSet(config, cluster, catalog, options));
  for (const std::string& p : policies)
    if (!set->index_of(p))
      if (Status st = set->add(p); !st.ok()) return st.error();
  return set;
}

Status ShadowSet::add(const std::string& policy) {
  auto profile = live_profile(policy, config_);
  if (!profile.ok())
    return Error{fmt::format("shadow_policies: '{}': {}", policy, profile.error().message)};
  Profile prof = std::move(profile).value();
  prof.name = policy;
  runs_.push_back(std::make_unique<ShadowRun>(cluster_, catalog_, std::move(prof), options_));
  advance_s_.push_back(0);
  advance_max_s_.push_back(0);
  return Status::Ok();
}

std::optional<size_t> ShadowSet::index_of(const std::string& policy) const {
  for (size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i]->policy() == policy) return i;
  return std::nullopt;
}

bool ShadowSet::set_active(const std::string& policy) {
  std::optional<size_t> i = index_of(policy);
  const bool made = !i;
  if (made) {
    if (!add(policy).ok()) return false;  // checked by the caller: the active policy parses
    i = runs_.size() - 1;
  }
  std::rotate(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(*i),
              runs_.begin() + static_cast<std::ptrdiff_t>(*i) + 1);
  std::rotate(advance_s_.begin(), advance_s_.begin() + static_cast<std::ptrdiff_t>(*i),
              advance_s_.begin() + static_cast<std::ptrdiff_t>(*i) + 1);
  std::rotate(advance_max_s_.begin(), advance_max_s_.begin() + static_cast<std::ptrdiff_t>(*i),
              advance_max_s_.begin() + static_cast<std::ptrdiff_t>(*i) + 1);
  return made;
}

template <class F>
void ShadowSet::each(F&& f) {
  for (size_t i = 0; i < runs_.size(); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f(*runs_[i]);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    advance_s_[i] += s;
    advance_max_s_[i] = std::max(advance_max_s_[i], s);
  }
}

void ShadowSet::submit(int64_t id, const JobSpec& spec, Seconds t) {
  ++fed_;
  each([&](ShadowRun& r) { r.submit(id, spec, t); });
}

void ShadowSet::ended(int64_t id, bool ran, double work_ref_s, Seconds t) {
  ++fed_;
  each([&](ShadowRun& r) {
    if (ran)
      r.work_known(id, work_ref_s, t);
    else
      r.withdraw(id, t);
  });
}

void ShadowSet::node(NodeId n, bool up, Seconds t) {
  ++fed_;
  each([&](ShadowRun& r) {
    if (up)
      r.node_up(n, t);
    else
      r.node_down(n, t);
  });
}

void ShadowSet::advance(Seconds t) {
  each([&](ShadowRun& r) { r.advance(t); });
}

nlohmann::json ShadowSet::to_json(const WindowFigures& real, const std::string& active_policy,
                                  Seconds now) const {
  nlohmann::json out;
  out["active_policy"] = active_policy;
  out["events"] = fed_;
  nlohmann::json shadows = nlohmann::json::array();
  for (size_t i = 0; i < runs_.size(); ++i) {
    const ShadowRun& r = *runs_[i];
    nlohmann::json windows = nlohmann::json::object();
    for (const ShadowWindow& w : kShadowWindows)
      windows[w.name] = frugal::to_json(r.figures(w.seconds));
    shadows.push_back({{"policy", r.policy()},
                       {"active", i == 0},
                       {"events", r.events()},
                       {"cycles", r.cycles()},
                       {"jobs", r.jobs()},
                       {"lag_s", std::max(0.0, now - r.now())},
                       {"advance_s", advance_s_[i]},
                       {"advance_max_s", advance_max_s_[i]},
                       {"late_ends", r.late_ends()},
                       {"late_end_s", r.late_end_s()},
                       {"windows", windows}});
  }
  out["shadows"] = shadows;
  nlohmann::json rw = nlohmann::json::object();
  for (size_t w = 0; w < kShadowWindows.size(); ++w)
    rw[kShadowWindows[w].name] = frugal::to_json(real[w]);
  out["real"] = {{"policy", active_policy}, {"windows", rw}};
  return out;
}

void ShadowSet::render_metrics(const WindowFigures& real, const std::string& active_policy,
                               Seconds now, std::string& out) const {
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
  std::vector<std::vector<ShadowFigures>> figures(runs_.size());
  for (size_t i = 0; i < runs_.size(); ++i)
    for (const ShadowWindow& w : kShadowWindows) figures[i].push_back(runs_[i]->figures(w.seconds));
  for (const Family& f : kFamilies) {
    render_header(f.name, "gauge",
                  fmt::format("{} over the window, per shadow policy (source=shadow) and for the "
                              "active policy as it really ran (source=real)",
                              f.help),
                  out);
    for (size_t w = 0; w < kShadowWindows.size(); ++w) {
      for (size_t i = 0; i < runs_.size(); ++i)
        render_sample(f.name,
                      {{"policy", runs_[i]->policy()},
                       {"source", "shadow"},
                       {"window", kShadowWindows[w].name}},
                      f.get(figures[i][w]), out);
      render_sample(
          f.name,
          {{"policy", active_policy}, {"source", "real"}, {"window", kShadowWindows[w].name}},
          f.get(real[w]), out);
    }
  }
  render_header("frugal_shadow_events_total", "counter",
                "Live events each shadow took (each equals the events fed to the set)", out);
  for (const auto& r : runs_)
    render_sample("frugal_shadow_events_total", {{"policy", r->policy()}},
                  static_cast<double>(r->events()), out);
  render_header("frugal_shadow_lag_seconds", "gauge",
                "How far behind the service's clock a shadow's clock is", out);
  for (const auto& r : runs_)
    render_sample("frugal_shadow_lag_seconds", {{"policy", r->policy()}},
                  std::max(0.0, now - r->now()), out);
  render_header("frugal_shadow_advance_seconds_total", "counter",
                "Compute time spent on each shadow (its events and advances)", out);
  for (size_t i = 0; i < runs_.size(); ++i)
    render_sample("frugal_shadow_advance_seconds_total", {{"policy", runs_[i]->policy()}},
                  advance_s_[i], out);
}

}  // namespace frugal
