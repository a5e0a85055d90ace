#include "storage/plan/checkpoint_storage.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace frugal::storage {

namespace {

constexpr double kMonthHours = 30.0 * 24.0;  // prices are per 30-day month
constexpr double kInf = std::numeric_limits<double>::infinity();

size_t slot(Tier t) {
  return static_cast<size_t>(t);
}

// A checkpoint event: the writing of checkpoint k of series s begins, or it completes.
struct Event {
  double t = 0;
  bool completes = false;
  size_t series = 0;
  int64_t k = 0;
};

Status validate_series(const CheckpointSeries& s) {
  const bool finite = std::isfinite(s.start) && std::isfinite(s.run_s) &&
                      std::isfinite(s.interval_s) && std::isfinite(s.gb) &&
                      std::isfinite(s.write_s);
  if (!finite) return Error{fmt::format("series of job '{}': a number is not finite", s.job)};
  if (s.interval_s <= 0) return Error{fmt::format("series of job '{}': interval_s <= 0", s.job)};
  if (s.gb <= 0) return Error{fmt::format("series of job '{}': gb <= 0", s.job)};
  if (s.run_s < 0) return Error{fmt::format("series of job '{}': run_s < 0", s.job)};
  if (s.write_s < 0 || s.write_s > s.interval_s)
    return Error{fmt::format("series of job '{}': write_s outside [0, interval_s]", s.job)};
  return Status::Ok();
}

std::vector<Event> checkpoint_events(const std::vector<CheckpointSeries>& series) {
  std::vector<Event> out;
  for (size_t s = 0; s < series.size(); ++s) {
    const CheckpointSeries& c = series[s];
    const auto n = static_cast<int64_t>(std::floor(c.run_s / c.interval_s + 1e-9));
    for (int64_t k = 1; k <= n; ++k) {
      const double done = c.start + static_cast<double>(k) * c.interval_s;
      if (c.write_s > 0) out.push_back({done - c.write_s, false, s, k});
      out.push_back({done, true, s, k});
    }
  }
  // At one instant, completions before new writes; then by series and number.
  std::sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    return std::tuple(a.t, !a.completes, a.series, a.k) <
           std::tuple(b.t, !b.completes, b.series, b.k);
  });
  return out;
}

// The simulation's state: the checkpoints held, what each tier holds, the totals so far.
class StorageSim {
 public:
  StorageSim(const std::vector<CheckpointSeries>& series,
             const std::function<const LifecyclePolicy&(const std::string&)>& policy_for,
             const StorageSimOptions& options)
      : series_(series), policy_for_(policy_for), options_(options) {
    for (const CheckpointSeries& s : series) {
      double& end = job_end_[s.job];
      end = std::max(end, s.start + s.run_s);
    }
  }

  void integrate(double t0, double t1) {
    if (t1 <= t0) return;
    for (size_t i = 0; i < 3; ++i) result_.gb_hours[i] += held_[i] * (t1 - t0) / 3600.0;
  }

  void apply(const Event& e) {
    const CheckpointSeries& s = series_[e.series];
    auto key = std::pair(e.series, e.k);
    auto it = live_.find(key);
    if (it == live_.end()) {
      CheckpointInfo info;
      info.job = s.job;
      info.team = s.team;
      info.name = fmt::format("step-{:06d}", e.k);
      info.step = e.k;
      info.tier = Tier::hot;
      it = live_.emplace(key, info).first;
      held_[slot(Tier::hot)] += s.gb;
    }
    if (e.completes) {
      it->second.completed_at = e.t;
      ++result_.written;
    }
  }

  void sweep(double now) {
    std::vector<CheckpointInfo> infos;
    std::vector<std::pair<size_t, int64_t>> keys;
    for (const auto& [key, info] : live_) {
      infos.push_back(info);
      keys.push_back(key);
    }
    auto can_restart = [&](const std::string& job) { return now < job_end_.at(job); };
    for (const LifecycleAction& a : plan_lifecycle(infos, policy_for_, now, can_restart)) {
      auto it = live_.find(keys[a.index]);
      const double gb = series_[it->first.first].gb;
      held_[slot(it->second.tier)] -= gb;
      if (a.kind == ActionKind::remove) {
        live_.erase(it);
        ++result_.deleted;
        continue;
      }
      held_[slot(a.to)] += gb;
      result_.gb_moved_in[slot(a.to)] += gb;
      it->second.tier = a.to;
      ++result_.moves;
    }
  }

  // The earliest instant after `now` at which a sweep could plan something new: a policy
  // threshold of a complete checkpoint, a completion, or a job's end.
  double next_interesting(double now, double next_event) const {
    double best = next_event;
    for (const auto& [key, info] : live_) {
      if (info.completed_at < 0) continue;
      const LifecyclePolicy& p = policy_for_(info.team);
      for (double after : {p.warm_after_s, p.cold_after_s, p.retain_age_s}) {
        const double t = info.completed_at + after;
        if (after >= 0 && t >= now && t < best) best = t;
      }
    }
    for (const auto& [job, end] : job_end_) {
      if (end >= now && end < best) best = end;
    }
    return best;
  }

  double next_sweep(double now, double next_event) const {
    const double sweep = options_.sweep_s;
    const double after_now = (std::floor(now / sweep) + 1) * sweep;
    const double want = next_interesting(now, next_event);
    if (want == kInf) return kInf;
    return std::max(after_now, std::ceil(want / sweep) * sweep);
  }

  void note(double t) {
    const double total = held_[0] + held_[1] + held_[2];
    result_.peak_gb = std::max(result_.peak_gb, total);
    if (!options_.record_samples) return;
    if (!result_.samples.empty() && result_.samples.back().t == t) {
      result_.samples.back().gb = held_;
    } else {
      result_.samples.push_back({t, held_});
    }
  }

  StorageSimResult finish(const TierPrices& prices) {
    result_.gb_at_end = held_;
    for (size_t i = 0; i < 3; ++i)
      result_.usd[i] = result_.gb_hours[i] * prices.usd_per_gb_month[i] / kMonthHours;
    return std::move(result_);
  }

 private:
  const std::vector<CheckpointSeries>& series_;
  const std::function<const LifecyclePolicy&(const std::string&)>& policy_for_;
  const StorageSimOptions& options_;
  std::map<std::string, double> job_end_;
  std::map<std::pair<size_t, int64_t>, CheckpointInfo> live_;
  std::array<double, 3> held_{};
  StorageSimResult result_;
};

}  // namespace

Result<TierPrices> tier_prices(const std::vector<StorageTier>& tiers) {
  const std::vector<StorageTier> defaults = default_storage_tiers();
  const std::vector<StorageTier>& list = tiers.empty() ? defaults : tiers;
  TierPrices out;
  for (Tier t : {Tier::hot, Tier::warm, Tier::cold}) {
    auto it = std::find_if(list.begin(), list.end(),
                           [&](const StorageTier& s) { return s.name == tier_name(t); });
    if (it == list.end())
      return Error{fmt::format("storage tier '{}' is not among the cluster's tiers", tier_name(t))};
    out.usd_per_gb_month[slot(t)] = it->usd_per_gb_month;
  }
  return out;
}

LifecyclePolicy keep_everything_policy() {
  LifecyclePolicy p;
  p.keep_hot = 0;
  p.warm_after_s = -1;
  p.cold_after_s = -1;
  p.retain_count = 0;
  p.retain_age_s = 0;
  return p;
}

Result<StorageSimResult> simulate_checkpoint_storage(
    const std::vector<CheckpointSeries>& series,
    const std::function<const LifecyclePolicy&(const std::string& team)>& policy_for,
    const TierPrices& prices, const StorageSimOptions& options) {
  if (!(options.sweep_s > 0 && std::isfinite(options.sweep_s)))
    return Error{"sweep_s must be a positive number"};
  double from = kInf, last_end = -kInf;
  for (const CheckpointSeries& s : series) {
    if (Status st = validate_series(s); !st.ok()) return st.error();
    from = std::min(from, s.start);
    last_end = std::max(last_end, s.start + s.run_s);
  }
  if (series.empty()) return StorageSimResult{};
  const double until = options.until < 0 ? last_end : options.until;
  if (!std::isfinite(until) || until < from) return Error{"until is before the earliest start"};

  const std::vector<Event> events = checkpoint_events(series);
  StorageSim sim(series, policy_for, options);
  size_t ei = 0;
  double now = from;
  double sweep_at = std::ceil(from / options.sweep_s) * options.sweep_s;
  // Each instant up to and including `until`: count what was held since the last one, apply
  // the checkpoint events, then the sweep when one is due.
  while (true) {
    const double next_event = ei < events.size() ? events[ei].t : kInf;
    const double t = std::min({next_event, sweep_at, until});
    sim.integrate(now, t);
    now = t;
    for (; ei < events.size() && events[ei].t <= now; ++ei) {
      sim.apply(events[ei]);
      // A completion changes the ranks: the next sweep plans anew.
      if (events[ei].completes)
        sweep_at = std::min(sweep_at, std::ceil(now / options.sweep_s) * options.sweep_s);
    }
    if (sweep_at <= now) {
      sim.sweep(now);
      sweep_at = sim.next_sweep(now, ei < events.size() ? events[ei].t : kInf);
    }
    sim.note(now);
    if (now >= until) break;
  }
  return sim.finish(prices);
}

}  // namespace frugal::storage
