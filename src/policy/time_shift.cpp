#include "policy/time_shift.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "cost/pricing.h"
#include "policy/admit_filter.h"
#include "policy/deferral_claims.h"
#include "policy/reserved_valley.h"

namespace frugal {

namespace {

// One time-shift option: a number (at most `most`, < 0: any) or a 0/1 flag of
// TimeShiftOptions.
struct TimeShiftKey {
  const char* name;
  double TimeShiftOptions::*number;
  bool TimeShiftOptions::*flag;
  double most;
  const char* unit;
  const char* help;
};

constexpr TimeShiftKey kTimeShiftKeys[] = {
    {"max_delay_s", &TimeShiftOptions::max_delay_s, nullptr, kMaxTimeShiftDelayS, "s",
     "longest deferral of a job without a deadline (and cap with one)"},
    {"min_saving", &TimeShiftOptions::min_saving, nullptr, -1, "",
     "defer only when it saves more than this fraction of the job's cost now"},
    {"margin_s", &TimeShiftOptions::margin_s, nullptr, kMaxTimeShiftDelayS, "s",
     "deadline safety margin, at least"},
    {"margin_frac", &TimeShiftOptions::margin_frac, nullptr, -1, "",
     "deadline safety margin, at least this fraction of the run time"},
    {"overflow", nullptr, &TimeShiftOptions::overflow, -1, "",
     "price a job that does not fit now on on-demand centres"},
    {"wait_usd_gpu_h", &TimeShiftOptions::wait_usd_gpu_h, nullptr, -1, "",
     "price of waiting, USD per GPU-hour of deferral"},
    {"valley", nullptr, &TimeShiftOptions::valley, -1, "",
     "also defer into valleys of reserved capacity"},
    {"energy_only", nullptr, &TimeShiftOptions::energy_only, -1, "",
     "price by energy alone, rental ignored"},
    {"overflow_model", nullptr, &TimeShiftOptions::overflow_model, -1, "",
     "price on-demand work on the model the autoscaler would add only"},
};

}  // namespace

std::vector<OptionSpec> time_shift_option_specs(const TimeShiftOptions& defaults) {
  std::vector<OptionSpec> specs;
  for (const TimeShiftKey& k : kTimeShiftKeys) {
    OptionSpec s;
    s.key = k.name;
    s.type = k.number != nullptr ? OptionSpec::Type::kNumber : OptionSpec::Type::kFlag;
    s.fallback = k.number != nullptr ? defaults.*(k.number) : (defaults.*(k.flag) ? 1 : 0);
    s.most = k.most;
    s.unit = k.unit;
    s.help = k.help;
    specs.push_back(std::move(s));
  }
  return specs;
}

TimeShiftOptions time_shift_options(const OptionValues& v) {
  TimeShiftOptions o;
  for (const TimeShiftKey& k : kTimeShiftKeys) {
    if (k.number != nullptr)
      o.*(k.number) = v.number(k.name);
    else
      o.*(k.flag) = v.flag(k.name);
  }
  return o;
}

Result<TimeShiftOptions> parse_time_shift_options(const std::string& text) {
  auto v = parse_options(time_shift_option_specs(), text, "time-shift");
  if (!v.ok()) return v.error();
  return time_shift_options(v.value());
}

namespace {

// A centre the job may run in: its GPUs (the weight of its share of the job) and the job's
// expected run time there.
struct Cand {
  uint32_t centre;
  double weight;
  double runtime;
};

bool on_demand(const ClusterState& st, const Cand& c) {
  return rented(st.spec().pools[st.centre_pool(c.centre)].capacity);
}

bool model_allowed(const JobSpec& job, GpuModelId m) {
  return job.allowed_models.empty() ||
         std::find(job.allowed_models.begin(), job.allowed_models.end(), m) !=
             job.allowed_models.end();
}

// Deadline safety: the run time where the job is priced to run (the slowest priced
// centre), but never longer than on the reference model, or on the fastest candidate
// when none is as fast (a job on a slower model may still miss; deadline_misses tells).
double safe_runtime(const std::vector<Cand>& priced, Seconds est) {
  double fastest = 0, slowest_priced = 0;
  for (const Cand& c : priced) {
    fastest = std::max(fastest, est / c.runtime);
    slowest_priced = std::max(slowest_priced, c.runtime);
  }
  return std::min(slowest_priced, est / std::min(1.0, fastest));
}

// The job priced on its priced centres, each weighted by its GPUs.
struct PricedJob {
  const JobSpec& job;
  const std::vector<Cand>& priced;
  const TimeShiftOptions& opt;
  const Pricing& pricing;
  double gpus;     // the job's GPUs (fractions included)
  double weights;  // the priced centres' total weight
  Seconds now;

  // Mean cost over the priced centres of a start at t: {total (energy alone with
  // energy_only), energy}.
  std::pair<double, double> cost(Seconds t) const {
    double sum = 0, energy = 0;
    for (const Cand& c : priced) {
      const SpanCost sc = pricing.span(c.centre, gpus, job.utilization, t, t + c.runtime);
      sum += c.weight * (opt.energy_only ? sc.energy_usd : sc.total_usd());
      energy += c.weight * sc.energy_usd;
    }
    return std::make_pair(sum / weights, energy / weights);
  }
  // Cost c of a start at t with the deferral priced in (wait_usd_gpu_h per GPU-hour of
  // waiting).
  double penalised(Seconds t, double c) const {
    return c + opt.wait_usd_gpu_h * gpus * (t - now) / 3600.0;
  }
  // The GPUs of centre c's share of the job.
  double share(const Cand& c) const { return gpus * c.weight / weights; }
};

// The cheapest start found so far: its cost, that cost with waiting priced in, and when.
struct BestStart {
  double cost;
  double pen;
  Seconds at;
};

class TimeShiftAdmit final : public Admit {
 public:
  explicit TimeShiftAdmit(TimeShiftOptions o) : opt_(o), capacity_(make_capacity_admit()) {}
  std::string name() const override { return "time-shift"; }

  AdmitVerdict admit(const CycleView& v, const JobRuntime& jr) const override {
    AdmitVerdict base = capacity_->admit(v, jr);
    const JobSpec& job = *jr.spec;
    if (base.kind != AdmitVerdict::Kind::kAdmit || !job.deferrable || job.gpus == 0) return base;
    const ClusterState& st = v.cluster();
    State& s = v.plugin_state().of<State>(this);
    if (s.state != &st) build(v, s);
    const Seconds now = v.now();
    const double gpus = static_cast<double>(job.total_milli()) / kMilliPerGpu;
    const Seconds est = job.runtime_estimate();
    if (!(est > 0)) return base;
    const std::vector<Cand> cands = candidates(v, s, job, est);
    if (cands.empty()) return base;
    const bool fits_now = !opt_.overflow || v.try_place(st, job).has_value();
    const std::vector<Cand> priced = priced_centres(v, job, cands, fits_now);
    const double runtime_safe = safe_runtime(priced, est);
    Seconds latest = now + opt_.max_delay_s;
    if (job.deadline != kNever)
      latest = std::min(latest, job.deadline - runtime_safe -
                                    std::max(opt_.margin_s, opt_.margin_frac * runtime_safe));
    if (!(latest > now)) return base;
    double weights = 0;
    for (const Cand& c : priced) weights += c.weight;
    const PricedJob p{job, priced, opt_, *s.pricing, gpus, weights, now};
    const auto [now_cost, now_energy] = p.cost(now);
    // On-demand centres: room left at t by the GPUs promised to jobs deferred earlier.
    s.claims.expire(now);
    BestStart best{now_cost, now_cost, now};
    best_hour(st, s, p, latest, best);
    // Reserved valley: capacity paid for anyway, so only its energy counts.
    std::optional<Valley> valley;
    if (opt_.valley && !fits_now) valley = best_valley(v, s, p, est, latest, best);
    s.claims.release(job.id);
    if (best.at == now || !(now_cost - best.pen > opt_.min_saving * std::abs(now_energy)))
      return base;
    if (valley)
      s.valleys.claim(valley->node, valley->at,
                      valley->at + est / v.speed(job, st.model(valley->node)), job.gpus);
    else
      for (const Cand& c : priced)
        if (on_demand(st, c))
          s.claims.claim(job.id, c.centre, best.at, best.at + c.runtime, p.share(c));
    return AdmitVerdict{
        AdmitVerdict::Kind::kDefer, best.at,
        fmt::format("time-shift: start at {:.0f} s costs ${:.2f} instead of ${:.2f}", best.at,
                    best.cost, now_cost)};
  }

 private:
  // Kept in the view (framework/plugin_state.h): prices and GPUs per centre of the view's
  // cluster (rebuilt when it changes), and the GPUs promised to the jobs deferred so far.
  struct State final : PluginState {
    const ClusterState* state = nullptr;
    std::unique_ptr<Pricing> pricing;
    std::vector<int64_t> centre_gpus;  // GPUs per centre, all nodes
    ReservedValleys valleys;
    DeferralClaims claims;  // GPUs promised to deferred jobs (on-demand centres)
  };

  static void build(const CycleView& v, State& s) {
    const ClusterState& st = v.cluster();
    s.state = &st;
    s.pricing = std::make_unique<Pricing>(st.spec(), v.catalog(), st);
    s.centre_gpus.assign(st.centre_count(), 0);
    for (NodeId n = 0; n < st.spec().nodes.size(); ++n)
      s.centre_gpus[st.centre_of(n)] += st.spec().nodes[n].gpus;
  }

  // The centres with a GPU model the job may use and can run on, and enough GPUs.
  static std::vector<Cand> candidates(const CycleView& v, const State& state, const JobSpec& job,
                                      Seconds est) {
    const ClusterState& st = v.cluster();
    const std::vector<int64_t>& gpus_of = state.centre_gpus;
    std::vector<Cand> cands;
    for (uint32_t c = 0; c < st.centre_count(); ++c) {
      const GpuModelId m = st.centre_model(c);
      if (m == kNoGpuModel || gpus_of[c] < job.gpus) continue;
      if (!model_allowed(job, m)) continue;
      const double s = v.speed(job, m);
      if (!(s > 0)) continue;
      cands.push_back({c, static_cast<double>(gpus_of[c]), est / s});
    }
    return cands;
  }

  // A job is priced where it most likely runs: on owned or reserved centres if it may
  // (on-demand capacity is the overflow). With `overflow`, when the profile cannot place it
  // now the provisioned capacity is full and it would run on the overflow: on-demand
  // centres (the autoscaler adds them when the rest is full). Else every candidate.
  std::vector<Cand> priced_centres(const CycleView& v, const JobSpec& job,
                                   const std::vector<Cand>& cands, bool fits_now) const {
    const ClusterState& st = v.cluster();
    std::vector<Cand> priced;
    for (const Cand& c : cands)
      if (on_demand(st, c) != fits_now) priced.push_back(c);
    if (priced.empty()) priced = cands;
    // With overflow_model, a job priced on on-demand centres only is priced on those of the
    // model the autoscaler would add for it (CycleView::overflow_model), not the GPU-weighted
    // mix of every on-demand model.
    if (!opt_.overflow_model) return priced;
    const GpuModelId om = v.overflow_model(job);
    if (om == kNoGpuModel ||
        !std::all_of(priced.begin(), priced.end(), [&](const Cand& c) { return on_demand(st, c); }))
      return priced;
    std::vector<Cand> same;
    for (const Cand& c : priced)
      if (st.centre_model(c.centre) == om) same.push_back(c);
    if (!same.empty()) priced = std::move(same);
    return priced;
  }

  // Whether the on-demand priced centres have room at t for the job besides the GPUs
  // promised to jobs deferred earlier.
  static bool has_room(const ClusterState& st, const State& s, const PricedJob& p, Seconds t) {
    for (const Cand& c : p.priced)
      if (on_demand(st, c) && s.claims.peak(c.centre, t, t + c.runtime, p.job.id) + p.share(c) >
                                  static_cast<double>(s.centre_gpus[c.centre]))
        return false;
    return true;
  }

  // The cheapest start at a whole UTC hour after now, up to `latest`, where there is room
  // (trace time t is Unix time epoch + t): into `best` when it beats it.
  static void best_hour(const ClusterState& st, const State& s, const PricedJob& p, Seconds latest,
                        BestStart& best) {
    const double epoch = static_cast<double>(st.spec().epoch_unix_s);
    for (double h = std::floor((epoch + p.now) / 3600.0 + 1) * 3600.0 - epoch; h <= latest;
         h += 3600.0) {
      if (!has_room(st, s, p, h)) continue;
      const double c = p.cost(h).first;
      if (p.penalised(h, c) < best.pen) best = {c, p.penalised(h, c), h};
    }
  }

  // The reserved valley to start in, priced by its energy alone, when it beats `best`
  // (then updated to it); nullopt when none does.
  static std::optional<Valley> best_valley(const CycleView& v, State& state, const PricedJob& p,
                                           Seconds est, Seconds latest, BestStart& best) {
    const ClusterState& st = v.cluster();
    const JobSpec& job = p.job;
    const auto runtime_on = [&](GpuModelId m) {
      if (!model_allowed(job, m)) return 0.0;
      const double s = v.speed(job, m);
      return s > 0 ? est / s : 0.0;
    };
    const auto found = state.valleys.find(v, job, latest, runtime_on);
    if (!found || !(found->at > p.now)) return std::nullopt;
    const uint32_t c = st.centre_of(found->node);
    const double e = state.pricing
                         ->span(c, p.gpus, job.utilization, found->at,
                                found->at + runtime_on(st.model(found->node)))
                         .energy_usd;
    if (!(p.penalised(found->at, e) < best.pen)) return std::nullopt;
    best = {e, p.penalised(found->at, e), found->at};
    return found;
  }

  TimeShiftOptions opt_;
  std::unique_ptr<Admit> capacity_;
};

}  // namespace

std::unique_ptr<Admit> make_time_shift_admit(TimeShiftOptions options) {
  return std::make_unique<TimeShiftAdmit>(options);
}

}  // namespace frugal
