// Shadow policies in the service (service/shadows.h, docs/WHATIF.md "Shadow policies"): the
// live events the shadows are fed, the active policy's real figures beside theirs, and
// GET /v1/shadow.
#include <fmt/format.h>

#include <algorithm>

#include "service/prom_text.h"
#include "service/scheduler.h"

namespace frugal {

double Scheduler::reference_speed(GpuModelId m, JobClass c) const {
  // The engine's reference model (engine_options() in scheduler.cpp).
  const auto ref = catalog_.find("A100-80GB");
  if (!ref || m == kNoGpuModel) return 1;
  return catalog_.relative_speed(m, *ref, c);
}

void Scheduler::shadow_submit(Live& l, double now) {
  if (!shadows_ || l.in_shadow || l.rec.team == kExternalTeam) return;
  l.in_shadow = true;
  shadows_->submit(l.rec.id, *l.spec, engine_time(now));
}

void Scheduler::shadow_ended(Live& l, double now) {
  if (!shadows_ || !l.in_shadow) return;
  l.in_shadow = false;
  shadows_->ended(l.rec.id, l.rec.started_at >= 0, l.work_ref_s, engine_time(now));
}

void Scheduler::shadow_turn(double now) {
  if (!shadows_) return;
  shadows_->advance(engine_time(now));
  if (!shadows_->stopped().empty())  // for good: once raised, it stays
    alerts_.raise("shadows_stopped", "shadows",
                  shadows_->stopped() + (guard_ ? "; the policy guard no longer watches" : ""),
                  now);
  check_guard(now);
  // The live ledger's hourly marks, for the real figures' windows (a week and an hour kept).
  if (accounting_ && (real_marks_.empty() || now - real_marks_.back()[0] >= 3600)) {
    const LedgerReport rep = accounting_at(now).report();  // open runs so far included
    real_marks_.push_back({now, rep.total.total_usd(), rep.total.waste.total(), rep.total.gpu_hours,
                           rep.unattributed.gpu_hours});
    while (real_marks_.size() > 2 && now - real_marks_[1][0] > 7 * 86400 + 3600)
      real_marks_.erase(real_marks_.begin());
  }
}

// The live ledger's cost, waste and GPU utilisation since the hourly mark at or before `from`.
void Scheduler::real_ledger_window(ShadowFigures& f, double from,
                                   const LedgerReport& ledger) const {
  if (real_marks_.empty()) return;
  const auto it =
      std::upper_bound(real_marks_.begin(), real_marks_.end(), from,
                       [](double t, const std::array<double, 5>& m) { return t < m[0]; });
  const auto& a = it == real_marks_.begin() ? real_marks_.front() : *std::prev(it);
  f.cost_usd = ledger.total.total_usd() - a[1];
  f.waste_usd = ledger.total.waste.total() - a[2];
  const double all_h = ledger.total.gpu_hours - a[3];
  const double idle_h = ledger.unattributed.gpu_hours - a[4];
  f.gpu_utilization = all_h > 0 ? (all_h - idle_h) / all_h : 0;
}

// The jobs in memory as they really ran (retention keeps ended jobs retain_jobs_s: a window
// longer than that counts only those still held), and the live ledger over each window.
WindowFigures Scheduler::real_figures(double now) const {
  WindowFigures out;
  const LedgerReport ledger = accounting_ ? accounting_at(now).report() : LedgerReport{};
  for (size_t w = 0; w < kShadowWindows.size(); ++w) {
    ShadowFigures& f = out[w];
    f.to = engine_time(now);
    f.from = f.to - kShadowWindows[w].seconds;
    const double from = now - kShadowWindows[w].seconds;
    std::vector<double> wait, jct;
    std::array<std::vector<double>, kTierCount> by_tier;
    for (const auto& [id, l] : jobs_) {
      const JobRecord& r = l.rec;
      if (!l.in_shadow && !is_final(r.state)) continue;  // not a job the shadows know
      if (r.state == JobStatus::kRunning) ++f.running;
      if ((r.state == JobStatus::kQueued || r.state == JobStatus::kDeferred ||
           r.state == JobStatus::kPreempted) &&
          !r.held)
        ++f.queued;
      if (r.started_at >= from) {
        ++f.started;
        wait.push_back(r.started_at - r.submitted_at);
        by_tier[static_cast<size_t>(l.spec->tier)].push_back(wait.back());
      } else if (r.started_at < 0 && !is_final(r.state) && !r.held) {  // its wait so far
        wait.push_back(now - r.submitted_at);
        by_tier[static_cast<size_t>(l.spec->tier)].push_back(wait.back());
      }
      // Ended after running, whatever its exit (a shadow ends a job when its work is done).
      const bool ran_out = is_final(r.state) && r.started_at >= 0;
      if (ran_out && r.finished_at >= from) {
        ++f.completed;
        jct.push_back(r.finished_at - r.submitted_at);
      }
      const Seconds deadline = l.spec->deadline;
      if (deadline != kNever) {
        const double d = unix_time(deadline);
        if (d >= from && d <= now && (!ran_out || r.finished_at > d)) ++f.deadline_misses;
      }
    }
    f.wait_s = distribution(wait);
    f.jct_s = distribution(jct);
    for (size_t t = 0; t < by_tier.size(); ++t) f.wait_by_tier_s[t] = distribution(by_tier[t]);
    real_ledger_window(f, from, ledger);
  }
  return out;
}

std::future<ApiReply> Scheduler::shadow(const Principal&) {
  return enqueue([this] {
    if (!shadows_) return error_reply(404, "no shadow policies: set shadow_policies in the config");
    const double now = wall_now();
    ApiReply r;
    r.body = to_json(*shadows_->view(), real_figures(now), config_.policy, shadows_->events(),
                     engine_time(now));
    r.body["as_of"] = now;
    return r;
  });
}

void Scheduler::render_shadow_metrics(double now, std::string& out) const {
  if (!shadows_) return;
  render_metrics(*shadows_->view(), real_figures(now), config_.policy, engine_time(now), out);
}

}  // namespace frugal
