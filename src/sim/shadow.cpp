#include "sim/shadow.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "sim/segment_stop.h"

namespace frugal {
namespace {

constexpr uint32_t kNodeEvent = std::numeric_limits<uint32_t>::max();
constexpr Seconds kMarkEvery = 3600;

double held_milli(const Placement& p) {
  double m = 0;
  for (const Slot& sl : p.slots) m += sl.gpu >= 0 ? sl.milli : 0;
  return m;
}

double sum(const std::vector<int64_t>& v) {
  return static_cast<double>(std::accumulate(v.begin(), v.end(), int64_t{0}));
}

}  // namespace

ShadowRun::ShadowRun(const ClusterSpec& cluster, const GpuCatalog& catalog, Profile profile,
                     EngineOptions options)
    : cluster_(cluster),
      policy_(profile.name),
      engine_(cluster, catalog, std::move(profile), options),
      accounting_(cluster, catalog, engine_.cluster(), options.reference_model) {}

std::optional<JobIdx> ShadowRun::index(int64_t id) const {
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  return it->second;
}

void ShadowRun::submit(int64_t id, const JobSpec& spec, Seconds now) {
  if (by_id_.contains(id)) return;
  catch_up(now);
  ++events_;
  const auto j = static_cast<JobIdx>(jobs_.size());
  specs_.push_back(spec);
  Job s;
  s.id = id;
  s.submit = now;
  jobs_.push_back(s);
  by_id_.emplace(id, j);
  engine_.submit(j, &specs_.back(), now);
  dirty_ = true;
}

bool ShadowRun::withdraw(int64_t id, Seconds now) {
  const auto j = index(id);
  if (!j || jobs_[*j].ended) return false;
  catch_up(now);
  ++events_;
  Job& s = jobs_[*j];
  if (engine_.withdraw(*j, now)) {
    s.ended = true;
    accounting_.job_ended(*j, specs_[*j], -1, now);
    return true;
  }
  s.work_ref = 0;  // started here, never in reality: it ends now
  if (s.running) schedule_end(*j, now);
  dirty_ = true;
  return true;
}

bool ShadowRun::work_known(int64_t id, Seconds work_ref_s, Seconds now) {
  const auto j = index(id);
  if (!j || jobs_[*j].ended) return false;
  catch_up(now);
  ++events_;
  Job& s = jobs_[*j];
  s.work_ref = std::max(0.0, work_ref_s);
  if (s.running) schedule_end(*j, now);
  dirty_ = true;
  return true;
}

void ShadowRun::node_down(NodeId n, Seconds now) {
  catch_up(now);
  ++events_;
  engine_.node_down(n, now);
  dirty_ = true;
}

void ShadowRun::node_up(NodeId n, Seconds now) {
  catch_up(now);
  ++events_;
  engine_.node_up(n, now);
  dirty_ = true;
}

void ShadowRun::advance(Seconds now) {
  catch_up(now, true);
  if (dirty_) cycle(now_);
}

void ShadowRun::clock_to(Seconds t) {
  if (!started_) {
    started_ = true;
    clock_ = now_ = t;
    marks_.push_back(mark(t));
    return;
  }
  t = std::max(t, clock_);
  if (t > clock_) {
    const auto& nodes = engine_.nodes();
    accounting_.capacity(clock_, t, engine_.fragmentation_block(), nodes.provisioned_gpus(),
                         nodes.booting_gpus(), nodes.provisioned_nodes());
    const double dt = t - clock_;
    alloc_gpu_s_ += alloc_milli_ * dt / kMilliPerGpu;
    capacity_gpu_s_ += sum(nodes.provisioned_gpus()) * dt;
    useful_gpu_s_ += useful_milli_ * dt / kMilliPerGpu;
    clock_ = t;
  }
  now_ = t;
  if (t - marks_.back().t >= kMarkEvery) add_mark(t);
}

void ShadowRun::catch_up(Seconds t, bool flush) {
  if (!started_) clock_to(t);
  t = std::max(t, now_);
  // Events taken at an earlier turn and not yet scheduled: their cycle comes first.
  if (flush && dirty_ && t > now_) cycle(now_);
  // Internal instants up to t: ends and provisioning first, then the engine's wake-ups.
  for (int guard = 0; guard < 1'000'000; ++guard) {
    Seconds next = engine_.next_wakeup();
    // A wake-up at t itself waits for t's events (the caller's, then advance()'s cycle): a
    // running job reaching its estimate as its real end arrives is not taken to outlive it,
    // as the live engine takes a turn's events before it decides.
    if (!flush && next >= t) next = kNever;
    if (!timed_.empty()) next = std::min(next, timed_.top().t);
    if (next > t || next == kNever) break;
    next = std::max(next, clock_);
    clock_to(next);
    while (!timed_.empty() && timed_.top().t <= next) {
      const Timed e = timed_.top();
      timed_.pop();
      if (e.epoch == kNodeEvent) {
        engine_.node_provisioned(e.id, next);
      } else if (jobs_[e.id].running && jobs_[e.id].epoch == e.epoch) {
        finish(e.id, next);
      }
    }
    cycle(next);
    if (next == t) break;
  }
  clock_to(t);
}

void ShadowRun::cycle(Seconds t) {
  for (const Decision& d : engine_.schedule(t)) apply(d, t);
  ++cycles_;
  dirty_ = false;
}

double ShadowRun::progress(const Job& s, Seconds t) const {
  if (!s.running) return s.done_ref;
  const Seconds worked = (s.signal_at >= 0 ? s.signal_at : t) - s.seg_start;
  return s.done_ref + std::max(0.0, worked - s.restart_s) * s.speed;
}

void ShadowRun::schedule_end(JobIdx j, Seconds t) {
  Job& s = jobs_[j];
  if (!s.running || s.work_ref < 0 || s.signal_at >= 0) return;
  const double left = s.work_ref - progress(s, t);
  Seconds at = t;
  if (left > 0) {
    at = std::max(t, s.seg_start + s.restart_s) + left / s.speed;
  } else {
    // The real work was done earlier than we learned it: the end is late.
    const Seconds due = s.seg_start + s.restart_s + (s.work_ref - s.done_ref) / s.speed;
    if (due < t) {
      ++late_ends_;
      late_end_s_ += t - due;
    }
  }
  ++s.epoch;
  timed_.push(Timed{at, seq_++, static_cast<uint32_t>(j), s.epoch});
}

void ShadowRun::begin_segment(JobIdx j, Seconds t, const Placement& p, Seconds restart_s) {
  Job& s = jobs_[j];
  s.running = true;
  s.seg_start = t;
  s.restart_s = restart_s;
  s.signal_at = -1;
  s.speed = engine_.job(j).speed;
  s.placement = p;
  accounting_.segment_started(j, p, t);
  alloc_milli_ += held_milli(p);
  useful_milli_ += held_milli(p) * std::clamp(specs_[j].utilization, 0.0, 1.0);
  schedule_end(j, t);
}

void ShadowRun::end_segment(JobIdx j, Seconds t, Seconds kept) {
  Job& s = jobs_[j];
  accounting_.segment_ended(j, specs_[j], t, kept);
  alloc_milli_ -= held_milli(s.placement);
  useful_milli_ -= held_milli(s.placement) * std::clamp(specs_[j].utilization, 0.0, 1.0);
  s.placement = Placement{};
  s.running = false;
  s.signal_at = -1;
  ++s.epoch;
}

void ShadowRun::stop_segment(JobIdx j, Seconds t, bool saved) {
  Job& s = jobs_[j];
  const auto [ran, worked, kept] =
      segment_stop(s.seg_start, s.restart_s, s.signal_at, t, specs_[j].checkpoint_interval, saved);
  s.done_ref += kept * s.speed;
  end_segment(j, t, ran - (worked - kept));
}

void ShadowRun::finish(JobIdx j, Seconds t) {
  Job& s = jobs_[j];
  end_segment(j, t, t - s.seg_start - s.restart_s);
  s.ended = true;
  s.finish = t;
  accounting_.job_ended(j, specs_[j], s.first_start, t);
  engine_.finish(j, t);
  dirty_ = true;
}

void ShadowRun::apply(const Decision& d, Seconds t) {
  const JobIdx j = d.job;
  switch (d.kind) {
    case Decision::Kind::kStart:
      if (jobs_[j].first_start < 0) jobs_[j].first_start = t;
      begin_segment(j, t, d.placement, 0);
      return;
    case Decision::Kind::kSignal:
      if (!jobs_[j].running || jobs_[j].signal_at >= 0) return;
      jobs_[j].signal_at = t;
      ++jobs_[j].epoch;  // its end waits for the stop
      return;
    case Decision::Kind::kPreempt:
      if (jobs_[j].running) stop_segment(j, t, d.saved);
      return;
    case Decision::Kind::kMigrate:
    case Decision::Kind::kResize:
      if (!jobs_[j].running) return;
      stop_segment(j, t, false);
      begin_segment(j, t, d.placement, d.until);
      return;
    case Decision::Kind::kReject:
      jobs_[j].ended = true;
      accounting_.job_ended(j, specs_[j], -1, t);
      return;
    case Decision::Kind::kProvision:
      timed_.push(Timed{t + cluster_.pools[cluster_.nodes[d.node].pool].provisioning_delay_s,
                        seq_++, d.node, kNodeEvent});
      return;
    case Decision::Kind::kDefer:
    case Decision::Kind::kRelease:
    case Decision::Kind::kPrefetch:
      return;
  }
}

// The ledger as if every open run segment ended at t (the ledger books a segment when it
// ends: without this, a window would take a days-long run's whole cost at its end).
ShadowRun::Mark ShadowRun::mark(Seconds t) const {
  const LedgerReport r = accounting_.report();
  Mark m{
      t, r.total.total_usd(), r.total.waste.total(), alloc_gpu_s_, capacity_gpu_s_, useful_gpu_s_};
  for (JobIdx j = 0; j < jobs_.size(); ++j) {
    if (!jobs_[j].running) continue;
    const double since = accounting_.open_since(j);
    if (since < 0 || t <= since) continue;
    const JobSpec& spec = specs_[j];
    const SpanCost c = accounting_.ledger().quote(spec, jobs_[j].placement, since, t);
    m.cost += c.total_usd();
    m.waste += c.rental_usd * (1.0 - spec.utilization);  // idle_allocated, as segment() books
  }
  return m;
}

void ShadowRun::add_mark(Seconds t) {
  marks_.push_back(mark(t));
}

ShadowFigures ShadowRun::figures(Seconds window_s) const {
  ShadowFigures f;
  f.to = now_;
  f.from = now_ - window_s;
  std::vector<double> wait, jct;
  std::array<std::vector<double>, kTierCount> wait_tier;
  for (size_t j = 0; j < jobs_.size(); ++j) {
    const Job& s = jobs_[j];
    const JobSpec& spec = specs_[j];
    if (s.running) ++f.running;
    if (!s.ended && !s.running) ++f.queued;
    if (s.first_start >= f.from && s.first_start >= 0) {
      ++f.started;
      wait.push_back(s.first_start - s.submit);
      wait_tier[static_cast<size_t>(spec.tier)].push_back(wait.back());
    } else if (s.first_start < 0 && !s.ended) {  // still waiting: its wait so far
      wait.push_back(f.to - s.submit);
      wait_tier[static_cast<size_t>(spec.tier)].push_back(wait.back());
    }
    if (s.finish >= f.from && s.finish >= 0) {
      ++f.completed;
      jct.push_back(s.finish - s.submit);
    }
    if (spec.deadline != kNever && spec.deadline >= f.from && spec.deadline <= f.to &&
        (s.finish < 0 || s.finish > spec.deadline))
      ++f.deadline_misses;
    else if (spec.deadline != kNever && spec.deadline < f.from && s.finish > spec.deadline &&
             s.finish >= f.from)
      ++f.deadline_misses;  // finished late within the window
  }
  f.wait_s = distribution(wait);
  f.jct_s = distribution(jct);
  for (size_t t = 0; t < wait_tier.size(); ++t) f.wait_by_tier_s[t] = distribution(wait_tier[t]);
  if (marks_.empty()) return f;
  // The newest mark at or before `from` (the first one when the window reaches further back).
  const auto it = std::upper_bound(marks_.begin(), marks_.end(), f.from,
                                   [](Seconds t, const Mark& m) { return t < m.t; });
  const Mark& a = it == marks_.begin() ? marks_.front() : *std::prev(it);
  const Mark b = mark(now_);
  f.cost_usd = b.cost - a.cost;
  f.waste_usd = b.waste - a.waste;
  const double capacity = b.capacity_gpu_s - a.capacity_gpu_s;
  f.gpu_utilization = capacity > 0 ? (b.alloc_gpu_s - a.alloc_gpu_s) / capacity : 0;
  const double useful_h = (b.useful_gpu_s - a.useful_gpu_s) / 3600;
  f.usd_per_useful_gpu_hour = useful_h > 0 ? f.cost_usd / useful_h : 0;
  return f;
}

}  // namespace frugal
