#include "policy/hetero.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "policy/admit_filter.h"

namespace frugal {

std::vector<double> model_rates(const ClusterSpec& spec, const GpuCatalog& catalog) {
  std::vector<double> rates(catalog.size(), -1.0);
  for (const NodeSpec& n : spec.nodes) {
    if (n.model == kNoGpuModel || n.gpus == 0) continue;
    const double rate = rental_rate_usd_h(spec.pools[n.pool], catalog.at(n.model), n.model);
    double& r = rates[static_cast<size_t>(n.model)];
    if (r < 0 || rate < r) r = rate;
  }
  return rates;
}

bool is_core_work(const JobSpec& job) {
  return job.job_class == JobClass::kPretrain || job.tier == Tier::kCore;
}

std::vector<GpuModelId> hetero_order(const JobSpec& job, std::vector<GpuModelId> models,
                                     const std::vector<double>& speeds,
                                     const std::vector<double>& rates, Seconds now) {
  const auto sp = [&](GpuModelId m) { return std::max(speeds[m], 1e-9); };
  const auto rate = [&](GpuModelId m) { return std::max(rates[m], 0.0); };
  if (is_core_work(job)) {
    std::stable_sort(models.begin(), models.end(), [&](GpuModelId a, GpuModelId b) {
      if (sp(a) != sp(b)) return sp(a) > sp(b);
      if (rate(a) != rate(b)) return rate(a) < rate(b);
      return a < b;
    });
    return models;
  }
  const auto misses = [&](GpuModelId m) {
    return job.deadline != kNever && now + job.runtime_estimate() / sp(m) > job.deadline;
  };
  std::stable_sort(models.begin(), models.end(), [&](GpuModelId a, GpuModelId b) {
    const bool ma = misses(a), mb = misses(b);
    if (ma != mb) return !ma;
    if (ma) {  // both miss: fastest first, so the job is as little late as possible
      if (sp(a) != sp(b)) return sp(a) > sp(b);
      return a < b;
    }
    const double ca = rate(a) / sp(a), cb = rate(b) / sp(b);
    if (ca != cb) return ca < cb;
    if (sp(a) != sp(b)) return sp(a) > sp(b);
    return a < b;
  });
  return models;
}

namespace {

class HeteroFilter final : public Filter {
 public:
  explicit HeteroFilter(AuxOrder aux) : aux_(aux) {}
  std::string name() const override {
    return aux_ == AuxOrder::kFastest ? "hetero-fast" : "hetero";
  }
  Candidates filter(const CycleView& v, const JobSpec& job) const override {
    Candidates c = base_->filter(v, job);
    if (c.models.size() < 2) return c;
    State& s = v.plugin_state().of<State>(this);
    if (s.rates.empty()) s.rates = model_rates(v.cluster().spec(), v.catalog());
    s.speeds.assign(v.catalog().size(), 0.0);
    for (GpuModelId m : c.models) s.speeds[m] = v.speed(job, m);
    c.models = hetero_order(job, std::move(c.models), s.speeds, s.rates, v.now());
    if (is_core_work(job)) {
      if (job.gpus > 0) drop_slower_fallbacks(v, s, job, c);
    } else if (aux_ == AuxOrder::kFastest) {
      // Fastest first; the cost-per-work order breaks ties.
      std::stable_sort(c.models.begin(), c.models.end(),
                       [&](GpuModelId a, GpuModelId b) { return s.speeds[a] > s.speeds[b]; });
    }
    if (!is_core_work(job) && job.deadline != kNever && job.gpus > 0)
      drop_deadline_misses(v, s, job, c);
    return c;
  }

 private:
  // Kept in the view (framework/plugin_state.h): the models' rates (built on first use) and
  // the release profile of running jobs (rebuilt when the view's time moves on).
  struct State final : PluginState {
    std::vector<double> rates;
    std::vector<double> speeds;  // scratch
    bool built = false;
    Seconds built_at = 0;
    // Per model, by time: the GPUs running jobs release at their expected ends (+), and
    // those that the core jobs examined at this time and left waiting take at their
    // expected start (−): see drop_slower_fallbacks.
    std::vector<std::multimap<Seconds, double>> profile;
    std::vector<Seconds> last_claim;  // per model: the latest expected start claimed
    struct Claim {
      GpuModelId model;
      Seconds start;
      double gpus;
    };
    std::unordered_map<const JobSpec*, Claim> claims;
  };

  // Core work: a slower model stays a fallback only if starting there now finishes no later
  // than waiting for a faster one, or, within kCoreFallbackSpeedFraction of the best speed, no
  // later than that plus one best-model run. The wait for a model without room now is
  // estimated from running jobs' expected ends, which the core jobs examined before this one
  // at this time and left waiting take first, in queue order: each claims its GPUs on the
  // model it would finish soonest on, from its expected start there. A job whose claimants
  // take all the releases the running jobs' ends bring has no estimated start on that model
  // (as when those releases are too few for it), and falls back as the rules above allow.
  static void drop_slower_fallbacks(const CycleView& v, State& s, const JobSpec& job,
                                    Candidates& c) {
    if (!s.built || s.built_at != v.now()) build_release_profile(v, s);
    const std::vector<double>& speed = s.speeds;
    const double need = static_cast<double>(job.total_milli()) / kMilliPerGpu;
    const Seconds est = job.runtime_estimate();
    if (const auto own = s.claims.find(&job); own != s.claims.end()) {
      const State::Claim& c0 = own->second;  // re-examined at the same time: claims afresh
      unclaim(s.profile[c0.model], c0.start, -c0.gpus);
      s.claims.erase(own);
    }
    std::vector<GpuModelId> kept;
    Seconds best = kNever;
    GpuModelId best_model = kNoGpuModel;
    Seconds best_start = kNever;
    bool room_now = false;
    for (GpuModelId m : c.models) {
      const bool fits_now = static_cast<double>(v.cluster().free_whole_of(m)) >= need;
      const Seconds start = fits_now ? v.now() : earliest_start(v.cluster(), s, m, need, v.now());
      const Seconds finish = start == kNever ? kNever : start + est / std::max(speed[m], 1e-9);
      const Seconds best_run = est / std::max(speed[c.models.front()], 1e-9);
      if (kept.empty() || finish <= best ||
          (speed[m] >= kCoreFallbackSpeedFraction * speed[c.models.front()] &&
           finish <= best + best_run)) {
        kept.push_back(m);
        room_now = room_now || fits_now;
        if (finish < best) {
          best_model = m;
          best_start = start;
        }
        best = std::min(best, finish);
      }
    }
    c.models = std::move(kept);
    if (!room_now && best != kNever) {
      s.profile[best_model].emplace(best_start, -need);
      s.last_claim[best_model] = std::max(s.last_claim[best_model], best_start);
      s.claims[&job] = State::Claim{best_model, best_start, need};
    }
  }

  static void unclaim(std::multimap<Seconds, double>& profile, Seconds t, double delta) {
    const auto [lo, hi] = profile.equal_range(t);
    for (auto it = lo; it != hi; ++it)
      if (it->second == delta) {
        profile.erase(it);
        return;
      }
  }

  // A deadline job: a model on which it would miss its deadline starting now is dropped when
  // some model, waiting for running jobs' expected ends (after the core jobs' claims), would
  // still meet it.
  static void drop_deadline_misses(const CycleView& v, State& s, const JobSpec& job,
                                   Candidates& c) {
    if (!s.built || s.built_at != v.now()) build_release_profile(v, s);
    const double need = static_cast<double>(job.total_milli()) / kMilliPerGpu;
    const Seconds est = job.runtime_estimate();
    const auto run = [&](GpuModelId m) { return est / std::max(s.speeds[m], 1e-9); };
    bool meets = false;
    for (GpuModelId m : c.models) {
      const Seconds start = earliest_start(v.cluster(), s, m, need, v.now());
      meets = meets || (start != kNever && start + run(m) <= job.deadline);
    }
    if (!meets) return;
    std::erase_if(c.models, [&](GpuModelId m) { return v.now() + run(m) > job.deadline; });
  }

  // The earliest time the model has `need` GPUs free by the profile, no earlier than the
  // latest claimed start (the jobs examined before start first); kNever when it never has.
  // After that start only releases remain, so the free count only grows from there.
  static Seconds earliest_start(const ClusterState& st, const State& s, GpuModelId m, double need,
                                Seconds now) {
    double free = static_cast<double>(st.free_whole_of(m));
    const Seconds floor = std::max(now, s.last_claim[m]);
    auto it = s.profile[m].begin();
    for (; it != s.profile[m].end() && it->first <= floor; ++it) free += it->second;
    if (free >= need) return floor;
    for (; it != s.profile[m].end(); ++it) {
      free += it->second;
      if (free >= need) return it->first;
    }
    return kNever;
  }

  static void build_release_profile(const CycleView& v, State& s) {
    s.built = true;
    s.built_at = v.now();
    s.profile.assign(v.catalog().size(), {});
    s.last_claim.assign(v.catalog().size(), v.now());
    s.claims.clear();
    for (const auto& [end, j] : ending_after(v.running_by_end(), v.now())) {
      const JobRuntime& r = v.job(j);
      if (r.placement.model != kNoGpuModel && !r.spec->fractional())
        s.profile[r.placement.model].emplace(end, static_cast<double>(r.gpus()));
    }
  }

  AuxOrder aux_;
  std::unique_ptr<Filter> base_ = make_model_filter();
};

class OrderedPlacer final : public Placer {
 public:
  explicit OrderedPlacer(std::unique_ptr<Placer> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return "ordered(" + inner_->name() + ")"; }
  std::optional<Placement> place(const ClusterState& st, const JobSpec& job,
                                 const Candidates& c) const override {
    if (job.gpus == 0) return inner_->place(st, job, c);
    Candidates one;
    one.models.resize(1);
    for (GpuModelId m : c.models) {
      if (!job.fractional() && job.gpus > st.free_whole_of(m)) continue;
      one.models[0] = m;
      if (auto p = inner_->place(st, job, one)) return p;
    }
    return std::nullopt;
  }

 private:
  std::unique_ptr<Placer> inner_;
};

}  // namespace

std::unique_ptr<Filter> make_hetero_filter(AuxOrder aux) {
  return std::make_unique<HeteroFilter>(aux);
}
std::unique_ptr<Placer> make_ordered_placer(std::unique_ptr<Placer> inner) {
  return std::make_unique<OrderedPlacer>(std::move(inner));
}

}  // namespace frugal
