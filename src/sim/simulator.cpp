#include "sim/simulator.h"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <queue>
#include <random>

#include "cost/run_accounting.h"
#include "cost/transfer.h"
#include "engine/engine.h"
#include "sim/segment_stop.h"
#include "sim/spot_reclaims.h"

namespace frugal {
namespace {

// Ordered by time, then kind (finishes before node events), then insertion order.
struct Event {
  enum Kind : uint8_t {
    kFinish = 0,
    kNodeDown = 1,
    kNodeUp = 2,
    kNodeProvisioned = 3,
    kSpotNotice = 4,
    kSpotReclaim = 5
  };
  Seconds t;
  Kind kind;
  uint64_t seq;
  uint32_t id;     // job or node
  uint32_t epoch;  // a finish (spot event) is stale when the job's (node's) epoch moved on
  bool operator>(const Event& o) const {
    if (t != o.t) return t > o.t;
    if (kind != o.kind) return kind > o.kind;
    return seq > o.seq;
  }
};

struct SimJob {
  Placement placement;       // while running
  double remaining_ref = 0;  // reference-model seconds of work left
  Seconds seg_start = 0;
  Seconds restart_s = 0;  // start of the segment without progress (after a migration)
  double speed = 1;
  uint32_t epoch = 0;
  bool running = false;
  Seconds signal_at = -1;    // checkpoint signal: computing stopped here (grace follows)
  int64_t data_region = -1;  // where its data lives (-1: not yet; src/cost/transfer.h)
};

EngineOptions engine_options(const SimOptions& o) {
  EngineOptions e;
  e.reference_model = o.reference_model;
  e.static_capacity = o.static_capacity;
  e.migration_cost_s = o.migration_cost_s;
  e.elastic_alpha = o.elastic_alpha;
  e.resize_cost_s = o.resize_cost_s;
  e.walk_limit = o.walk_limit;
  e.wake_at_expected_ends = o.wake_at_expected_ends;
  return e;
}

// Reference-model GPU-seconds of `j`'s work (JobOutcome::work_ref_gpu_seconds).
double reference_work(const JobSpec& j) {
  if (j.gpus <= 0) return 0;
  return j.duration * j.gpus * static_cast<double>(j.gpu_milli) / kMilliPerGpu;
}

// The GPU models `cluster` has nodes of, each once.
std::vector<GpuModelId> models_present(const ClusterSpec& cluster) {
  std::vector<GpuModelId> out;
  for (const NodeSpec& n : cluster.nodes)
    if (n.model != kNoGpuModel && std::find(out.begin(), out.end(), n.model) == out.end())
      out.push_back(n.model);
  return out;
}

// The GPU-seconds `j` needs at the least on a model of relative speed `speed` (elastic: at
// its smallest size), as JobOutcome::min_gpu_seconds.
double min_gpu_seconds_at(const JobSpec& j, double speed, double alpha) {
  const double run = j.duration / speed;
  const auto g = static_cast<double>(j.gpus);
  if (!j.fractional() && j.max_gpus > j.gpus) {  // elastic (JobRuntime::elastic)
    const double low = std::max(1, j.min_gpus > 0 ? std::min(j.min_gpus, j.gpus) : j.gpus);
    return run * std::pow(g, alpha) * std::pow(low, 1 - alpha);
  }
  return run * g * static_cast<double>(j.gpu_milli) / kMilliPerGpu;
}

// JobOutcome::fastest_run_s, min_gpu_seconds and min_class_gpu_seconds of `j` over the
// `models` it may use.
void fastest_run(const JobSpec& j, const std::vector<GpuModelId>& models, const GpuCatalog& catalog,
                 GpuModelId reference, double alpha, JobOutcome& o) {
  o.fastest_run_s = j.duration;
  o.min_gpu_seconds = 0;
  o.min_class_gpu_seconds.fill(0);
  if (j.gpus <= 0) return;
  double best = 0;
  std::array<double, kJobClassCount> least{};
  least.fill(-1);
  for (const GpuModelId m : models) {
    const auto& allowed = j.allowed_models;
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), m) == allowed.end()) continue;
    const double speed = catalog.relative_speed(m, reference, j.job_class);
    best = std::max(best, speed);
    if (speed <= 0) continue;
    const double gpu_s = min_gpu_seconds_at(j, speed, alpha);
    for (int k = 0; k < kJobClassCount; ++k) {
      const double w = gpu_s * catalog.relative_speed(m, reference, static_cast<JobClass>(k));
      auto& l = least[static_cast<size_t>(k)];
      l = l < 0 ? w : std::min(l, w);
    }
  }
  for (size_t k = 0; k < least.size(); ++k) o.min_class_gpu_seconds[k] = std::max(0.0, least[k]);
  const double speed = best > 0 ? best : 1;
  const Seconds run = j.duration / speed;
  if (!j.fractional() && j.max_gpus > j.gpus)  // elastic: at its largest size
    o.fastest_run_s = run * std::pow(static_cast<double>(j.gpus) / j.max_gpus, alpha);
  else
    o.fastest_run_s = run;
  o.min_gpu_seconds = min_gpu_seconds_at(j, speed, alpha);
}

// SimResult::capacity_class_gpus of `cluster`.
std::array<double, kJobClassCount> capacity_by_class(const ClusterSpec& cluster,
                                                     const GpuCatalog& catalog,
                                                     GpuModelId reference) {
  std::array<double, kJobClassCount> out{};
  for (const NodeSpec& n : cluster.nodes) {
    if (n.model == kNoGpuModel) continue;
    for (int k = 0; k < kJobClassCount; ++k)
      out[static_cast<size_t>(k)] +=
          static_cast<double>(n.gpus) *
          catalog.relative_speed(n.model, reference, static_cast<JobClass>(k));
  }
  return out;
}

class Simulation {
 public:
  Simulation(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
             const GpuCatalog& catalog, Profile profile, const SimOptions& opt)
      : jobs_(jobs),
        opt_(opt),
        engine_(cluster, catalog, std::move(profile), engine_options(opt)),
        cluster_(cluster),
        sim_(jobs.size()),
        rng_(opt.seed),
        reclaims_(cluster, opt.seed),
        predictor_(opt.predictor) {
    result_.spot = cluster.has_spot();
    if (result_.spot) {
      spot_epoch_.assign(cluster.nodes.size(), 0);
      spot_hit_.assign(cluster.nodes.size(), 0);
    }
    if (opt.predict_runtimes) predicted_.resize(jobs.size());
    if (opt.ledger)
      accounting_.emplace(cluster, catalog, engine_.cluster(), opt.reference_model, jobs.size());
    if (accounting_ && opt.storage_lifecycle)
      accounting_->set_checkpoint_lifecycle(*opt.storage_lifecycle);
    result_.policy = engine_.profile().name;
    result_.profile = engine_.profile().describe();
    result_.jobs.resize(jobs.size());
    result_.capacity_gpus = cluster.total_gpus();
    result_.capacity_class_gpus = capacity_by_class(cluster, catalog, opt.reference_model);
    const std::vector<GpuModelId> models = models_present(cluster);
    for (size_t i = 0; i < jobs.size(); ++i) {
      sim_[i].remaining_ref = jobs[i].duration;
      sim_[i].data_region = data_home(cluster, jobs[i]);
      result_.jobs[i].submit = jobs[i].submit;
      result_.jobs[i].gang_gpus = jobs[i].fractional() ? 0 : jobs[i].gpus;
      result_.jobs[i].deferrable = jobs[i].deferrable;
      result_.jobs[i].tier = jobs[i].tier;
      result_.jobs[i].work_ref_gpu_seconds = reference_work(jobs[i]);
      fastest_run(jobs[i], models, catalog, opt.reference_model, opt.elastic_alpha,
                  result_.jobs[i]);
    }
    order_.resize(jobs.size());
    std::iota(order_.begin(), order_.end(), 0u);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](JobIdx a, JobIdx b) { return jobs[a].submit < jobs[b].submit; });
    if (opt_.node_mtbf_hours > 0)
      for (NodeId n = 0; n < cluster.nodes.size(); ++n) push_failure(n, 0);
    left_ = jobs.size();
    failure_budget_ =
        opt_.max_node_failures > 0
            ? opt_.max_node_failures
            : std::max<uint64_t>(1'000'000, 1000 * static_cast<uint64_t>(jobs.size()));
  }

  // The allocated GPU-seconds of [t0, t1) (alloc_milli_ held over it), and of its part
  // within the work horizon.
  void count_allocation(Seconds t0, Seconds t1) {
    result_.allocated_gpu_seconds += alloc_milli_ * (t1 - t0) / kMilliPerGpu;
    if (opt_.work_horizon_s <= 0) return;
    const Seconds end = std::min(t1, result_.first_arrival + opt_.work_horizon_s);
    if (end > t0) result_.horizon_allocated_gpu_seconds += alloc_milli_ * (end - t0) / kMilliPerGpu;
  }

  // A segment's busy GPU-seconds (SimResult::busy_gpu_seconds): its first `kept` productive
  // seconds after the restart, on `gpus` GPUs; those before the horizon's end too.
  void count_busy(const SimJob& s, Seconds kept, double gpus) {
    result_.busy_gpu_seconds += kept * gpus;
    if (opt_.work_horizon_s <= 0) return;
    const Seconds b0 = s.seg_start + s.restart_s;
    const Seconds end = std::min(b0 + kept, result_.first_arrival + opt_.work_horizon_s);
    if (end > b0) result_.horizon_busy_gpu_seconds += (end - b0) * gpus;
  }

  SimResult run() {
    const auto wall0 = std::chrono::steady_clock::now();
    if (!order_.empty()) result_.first_arrival = jobs_[order_.front()].submit;
    result_.work_horizon_s = opt_.work_horizon_s;
    size_t next_arrival = 0;
    Seconds last_t = result_.first_arrival;
    int same_instant_cycles = 0;
    while (left_ > 0) {
      Seconds t = engine_.next_wakeup();
      if (next_arrival < order_.size()) t = std::min(t, jobs_[order_[next_arrival]].submit);
      if (!events_.empty()) t = std::min(t, events_.top().t);
      if (t == kNever) break;  // nothing can change any more
      if (out_of_failures()) break;
      if (opt_.decision_window_s > 0) t = window_end(t, next_arrival);
      if (t < last_t) t = last_t;
      if (t == last_t && ++same_instant_cycles > 100000) {
        result_.invariant_violation = fmt::format("no progress at t={}", t);
        break;
      } else if (t != last_t) {
        same_instant_cycles = 0;
      }
      count_allocation(last_t, t);
      if (opt_.timeline) sample(last_t, t);
      if (accounting_)
        accounting_->capacity(last_t, t, engine_.fragmentation_block(),
                              engine_.nodes().provisioned_gpus(), engine_.nodes().booting_gpus(),
                              engine_.nodes().provisioned_nodes());
      last_t = t;
      while (!events_.empty() && events_.top().t <= t) {
        const Event e = events_.top();
        events_.pop();
        handle(e, t);
      }
      while (next_arrival < order_.size() && jobs_[order_[next_arrival]].submit <= t) {
        const JobIdx j = order_[next_arrival++];
        engine_.submit(j, engine_spec(j), t);
        ++result_.events;
      }
      for (const Decision& d : engine_.schedule(t)) apply(d, t);
      ++result_.cycles;
      if (engine_.stalled()) {
        result_.stopped = *engine_.stalled();
        break;
      }
      if (opt_.check_invariants && result_.invariant_violation.empty()) check_step(t);
    }
    drain(last_t);
    close_outcomes();
    if (accounting_) result_.ledger = accounting_->report();
    if (opt_.timeline) job_costs();
    result_.has_ledger = accounting_.has_value();
    result_.predicted = opt_.predict_runtimes;
    if (opt_.predict_runtimes) result_.prediction = errors_.report();
    if (accounting_ && opt_.offline_bound) solve_bound();
    result_.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return std::move(result_);
  }

 private:
  // SimOptions::decision_window_s: the time of the latest arrival or event within the window
  // that opens at `t`, the earliest pending one; the engine's next timer closes it early (an
  // expected end does not: Engine::next_timer).
  Seconds window_end(Seconds t, size_t next_arrival) {
    const Seconds limit = std::min(t + opt_.decision_window_s, engine_.next_timer());
    Seconds last = t;
    for (size_t k = next_arrival; k < order_.size() && jobs_[order_[k]].submit <= limit; ++k)
      last = std::max(last, jobs_[order_[k]].submit);
    std::vector<Event> held;  // the queue's events up to the limit, popped to be seen
    while (!events_.empty() && events_.top().t <= limit) {
      last = std::max(last, events_.top().t);
      held.push_back(events_.top());
      events_.pop();
    }
    for (const Event& e : held) events_.push(e);
    return last;
  }

  // The timeline's span [t0, t1) with the cluster as it is now (SimOptions::timeline).
  void sample(Seconds t0, Seconds t1) {
    if (t1 <= t0) return;
    TimelineSample s;
    double provisioned = 0;
    for (int64_t g : engine_.nodes().provisioned_gpus()) provisioned += static_cast<double>(g);
    s[TimelineMetric::kProvisionedGpus] = provisioned;
    s[TimelineMetric::kAllocatedGpus] = static_cast<double>(alloc_milli_) / kMilliPerGpu;
    s[TimelineMetric::kBusyGpus] = s[TimelineMetric::kAllocatedGpus];
    s[TimelineMetric::kQueueJobs] = static_cast<double>(engine_.pending_count());
    if (accounting_) {
      const Pricing& p = accounting_->pricing();
      const ClusterState& st = engine_.cluster();
      const auto& prov = engine_.nodes().provisioned_gpus();
      const double hours = (t1 - t0) / 3600;
      // Each region's series integrated once over the span (Pricing::window), shared by its
      // centres.
      std::vector<std::optional<Pricing::Window>> windows(cluster_.regions.size());
      auto window = [&](uint32_t r) -> const Pricing::Window& {
        if (!windows[r]) {
          if (tl_marks_.size() <= r) tl_marks_.resize(r + 1, Pricing::Mark{-1});
          const Pricing::Mark m0 = tl_marks_[r].t == t0 ? tl_marks_[r] : p.mark(r, t0);
          tl_marks_[r] = p.mark(r, t1);  // the next span usually starts here
          windows[r] = p.window(r, m0, tl_marks_[r]);
        }
        return *windows[r];
      };
      double usd = 0;
      for (uint32_t c = 0; c < prov.size() && c < st.centre_count(); ++c) {
        if (prov[c] <= 0) continue;
        const double g = static_cast<double>(prov[c]);
        const double u =
            std::min(1.0, static_cast<double>(st.centre_allocated_milli(c)) / kMilliPerGpu / g);
        usd += p.span(c, g, u, window(p.region_of_centre(c))).total_usd();
      }
      s[TimelineMetric::kCostUsdPerHour] = usd / hours;
      if (!windows.empty()) s[TimelineMetric::kPriceUsdPerMwh] = window(0).elec_mwh_h / hours;
    }
    result_.timeline.add(t0, t1, s);
  }

  // Each job's cost, waste and pool from the ledger (SimOptions::timeline).
  void job_costs() {
    result_.has_timeline = true;
    if (!accounting_) return;
    const Ledger& l = accounting_->ledger();
    for (size_t i = 0; i < jobs_.size(); ++i) {
      JobOutcome& o = result_.jobs[i];
      const auto j = static_cast<JobIdx>(i);
      o.cost_usd = l.job_total_usd(j);
      o.waste_usd = l.job_waste_usd(j);
      const int64_t c = l.job_centre(j);
      if (c >= 0)
        o.pool = static_cast<int32_t>(engine_.cluster().centre_pool(static_cast<uint32_t>(c)));
    }
  }

  // With failures: true (and SimResult::stopped says why) once the failure budget is spent.
  bool out_of_failures() {
    if (static_cast<uint64_t>(result_.node_failures) < failure_budget_) return false;
    result_.stopped = fmt::format(
        "stopped after {} node failures with {} of {} jobs not done (mean time between "
        "failures {} h per node); a longer --node-mtbf-hours lets the work finish",
        result_.node_failures, left_, jobs_.size(), opt_.node_mtbf_hours);
    return true;
  }

  // The engine's and the simulator's invariants after the cycle at t (the first violation
  // is kept).
  void check_step(Seconds t) {
    std::string v = engine_.check_invariants();
    if (v.empty()) v = check_alloc();
    if (!v.empty()) result_.invariant_violation = fmt::format("t={}: {}", t, v);
  }

  // After the run: jobs that never ended are reported unschedulable with why, and deadline
  // misses counted.
  void close_outcomes() {
    for (size_t i = 0; i < jobs_.size(); ++i) {
      JobOutcome& o = result_.jobs[i];
      if (o.finish < 0 && !o.unschedulable) {
        o.unschedulable = true;
        o.reason = !result_.stopped.empty()
                       ? "not finished: the run stopped after too many node failures"
                       : "never scheduled: no capacity ever became available";
      }
    }
    for (size_t i = 0; i < jobs_.size(); ++i) {
      const JobOutcome& o = result_.jobs[i];
      if (jobs_[i].deadline != kNever &&
          (o.unschedulable || o.finish < 0 || o.finish > jobs_[i].deadline))
        ++result_.deadline_misses;
    }
  }

  // The spec the engine sees for job `j` at its arrival: the trace's, or with
  // predict_runtimes a copy whose missing estimate the predictor fills in (the copy lives
  // as long as the simulation; the engine keeps a pointer to it).
  const JobSpec* engine_spec(JobIdx j) {
    if (!opt_.predict_runtimes || jobs_[j].estimate >= 0) return &jobs_[j];
    JobSpec& s = predicted_[j];
    s = jobs_[j];
    const Prediction p = predictor_.predict(s);
    s.estimate = p.seconds;
    errors_.add(p.seconds, s.duration, p.level);
    return &s;
  }

  void solve_bound() {
    const ClusterState& st = engine_.cluster();
    std::vector<double> capacity(st.centre_count(), 0.0);
    for (NodeId n = 0; n < cluster_.nodes.size(); ++n)
      capacity[st.centre_of(n)] += cluster_.nodes[n].gpus;
    std::vector<OfflineJob> jobs;
    for (JobIdx j = 0; j < jobs_.size(); ++j) {
      const JobSpec& s = jobs_[j];
      const JobOutcome& o = result_.jobs[j];
      const int64_t c = accounting_->ledger().job_centre(j);
      if (!s.deferrable || s.gpus == 0 || o.finish < 0 || c < 0) continue;
      OfflineJob b;
      b.centre = static_cast<uint32_t>(c);
      b.gpus = static_cast<double>(s.total_milli()) / kMilliPerGpu;
      b.utilization = s.utilization;
      b.runtime = o.run_time;
      b.earliest = s.submit;
      b.latest =
          s.deadline != kNever ? s.deadline - o.run_time : s.submit + opt_.offline_max_delay_s;
      b.actual = o.first_start;
      jobs.push_back(b);
    }
    result_.has_offline_bound = true;
    result_.offline_bound = solve_offline_bound(accounting_->pricing(), jobs, capacity,
                                                cluster_.epoch_unix_s, OfflineObjective::kCost);
    result_.offline_energy_bound = solve_offline_bound(
        accounting_->pricing(), jobs, capacity, cluster_.epoch_unix_s, OfflineObjective::kEnergy);
  }

  // Every job is done, but autoscaled on-demand nodes stay provisioned (and paid) until
  // their idle timeout hands them back, and nodes still booting come up first: run the
  // clock on to those releases. Node failures after the workload are not simulated.
  void drain(Seconds last_t) {
    if (left_ > 0 || !engine_.nodes().autoscaled()) return;
    for (int cycles = 0; cycles < 1000000; ++cycles) {
      while (!events_.empty() && events_.top().kind != Event::kNodeProvisioned) events_.pop();
      Seconds t = engine_.next_wakeup();
      if (!events_.empty()) t = std::min(t, events_.top().t);
      if (t == kNever) return;
      t = std::max(t, last_t);
      if (accounting_)
        accounting_->capacity(last_t, t, engine_.fragmentation_block(),
                              engine_.nodes().provisioned_gpus(), engine_.nodes().booting_gpus(),
                              engine_.nodes().provisioned_nodes());
      last_t = t;
      while (!events_.empty() && events_.top().t <= t &&
             events_.top().kind == Event::kNodeProvisioned) {
        const Event e = events_.top();
        events_.pop();
        handle(e, t);
      }
      for (const Decision& d : engine_.schedule(t)) apply(d, t);
      ++result_.cycles;
      if (engine_.stalled()) {
        result_.stopped = *engine_.stalled();
        break;
      }
    }
  }

  void push(Seconds t, Event::Kind k, uint32_t id, uint32_t epoch) {
    events_.push(Event{t, k, seq_++, id, epoch});
  }

  void push_failure(NodeId n, Seconds now) {
    std::exponential_distribution<double> d(1.0 / (opt_.node_mtbf_hours * 3600));
    push(now + d(rng_), Event::kNodeDown, n, 0);
  }

  void handle(const Event& e, Seconds t) {
    switch (e.kind) {
      case Event::kFinish: {
        SimJob& s = sim_[e.id];
        if (!s.running || s.epoch != e.epoch) return;  // stale: the job was stopped
        ++result_.events;
        const Seconds ran = t - s.seg_start;
        const Seconds kept = std::max(0.0, ran - s.restart_s);
        count_busy(s, kept, held_milli(s.placement) / kMilliPerGpu);
        result_.jobs[e.id].rework_gpu_seconds +=
            (ran - kept) * held_milli(s.placement) / kMilliPerGpu;
        end_segment(e.id, t, kept);
        s.remaining_ref = 0;
        result_.jobs[e.id].finish = t;
        if (accounting_)
          accounting_->job_ended(e.id, jobs_[e.id], result_.jobs[e.id].first_start, t);
        result_.last_completion = std::max(result_.last_completion, t);
        engine_.finish(e.id, t);
        // Learn from the completion: only what is known now (reference-model seconds).
        if (opt_.predict_runtimes) predictor_.observe(jobs_[e.id], jobs_[e.id].duration);
        --left_;
        return;
      }
      case Event::kNodeDown:
        ++result_.events;
        // Only a node in service can fail; an unprovisioned or booting one draws again later.
        if (engine_.nodes().life(e.id) == NodeLife::kUp) ++result_.node_failures;
        engine_.node_down(e.id, t);
        push(t + opt_.node_repair_hours * 3600, Event::kNodeUp, e.id, 0);
        return;
      case Event::kNodeUp:
        ++result_.events;
        engine_.node_up(e.id, t);
        push_failure(e.id, t);
        return;
      case Event::kNodeProvisioned:
        ++result_.events;
        engine_.node_provisioned(e.id, t);
        if (result_.spot) draw_reclaim(e.id, t);
        return;
      case Event::kSpotNotice:
      case Event::kSpotReclaim:
        spot_event(e, t);
        return;
    }
  }

  // A spot node became usable at t: its reclaim (and notice) are drawn.
  void draw_reclaim(NodeId n, Seconds t) {
    if (!engine_.nodes().spot(n) || engine_.nodes().life(n) != NodeLife::kUp) return;
    ++spot_epoch_[n];
    spot_hit_[n] = 0;
    const Seconds at = reclaims_.next(n, t);
    if (at == kNever) return;
    const Seconds notice = cluster_.pools[cluster_.nodes[n].pool].spot.reclaim_notice_s;
    push(std::max(t, at - notice), Event::kSpotNotice, n, spot_epoch_[n]);
    push(at, Event::kSpotReclaim, n, spot_epoch_[n]);
  }

  // A reclaim notice or reclaim of a spot node, unless the node was released (or reclaimed)
  // since it drew it.
  void spot_event(const Event& e, Seconds t) {
    if (e.epoch != spot_epoch_[e.id] || engine_.nodes().life(e.id) == NodeLife::kUnprovisioned)
      return;
    ++result_.events;
    spot_hit_[e.id] = 1;
    if (e.kind == Event::kSpotNotice) {
      ++result_.spot_notices;
      engine_.reclaim_notice(e.id, t,
                             cluster_.pools[cluster_.nodes[e.id].pool].spot.reclaim_notice_s);
      return;
    }
    ++result_.spot_reclaims;
    engine_.node_reclaimed(e.id, t);
    ++spot_epoch_[e.id];
  }

  // Whether a placement holds a spot node under a reclaim notice (or reclaimed).
  bool on_reclaimed_node(const Placement& p) const {
    if (!result_.spot) return false;
    return std::any_of(p.slots.begin(), p.slots.end(),
                       [this](const Slot& s) { return spot_hit_[s.node] != 0; });
  }

  // Milli-GPU a placement holds on spot nodes.
  double spot_milli(const Placement& p) const {
    double m = 0;
    for (const Slot& sl : p.slots)
      if (sl.gpu >= 0 && engine_.nodes().spot(sl.node)) m += sl.milli;
    return m;
  }

  // Closes a running segment: accounts time and GPU-seconds.
  // `kept` is the part of the segment whose work survives (all of it at completion).
  void end_segment(JobIdx j, Seconds t, Seconds kept, bool reclaimed = false) {
    SimJob& s = sim_[j];
    JobOutcome& o = result_.jobs[j];
    const Seconds ran = t - s.seg_start;
    if (accounting_) accounting_->segment_ended(j, jobs_[j], t, kept, -1, reclaimed);
    if (result_.spot) result_.spot_gpu_seconds += ran * spot_milli(s.placement) / kMilliPerGpu;
    const double milli = held_milli(s.placement);
    s.placement = Placement{};
    o.run_time += ran;
    o.gpu_seconds += ran * milli / kMilliPerGpu;
    alloc_milli_ -= milli;
    s.running = false;
    ++s.epoch;
  }

  // Milli-GPU a placement holds (an elastic job's size may differ from its request).
  static double held_milli(const Placement& p) {
    double m = 0;
    for (const Slot& sl : p.slots) m += sl.gpu >= 0 ? sl.milli : 0;
    return m;
  }

  // Starts a run segment on `p`; its first `restart_s` seconds make no progress.
  void begin_segment(JobIdx j, Seconds t, const Placement& p, Seconds restart_s) {
    SimJob& s = sim_[j];
    s.running = true;
    s.seg_start = t;
    s.restart_s = restart_s;
    s.speed = engine_.job(j).speed;
    s.placement = p;
    result_.jobs[j].last_model = p.model;
    if (accounting_) accounting_->segment_started(j, p, t);
    alloc_milli_ += held_milli(p);
    move_data(j, p);
    push(t + restart_s + s.remaining_ref / s.speed, Event::kFinish, j, s.epoch);
  }

  // The segment on `p` runs in its first slot's region: the job's data moves there first
  // when it lives elsewhere (src/cost/transfer.h), with its checkpoint once it progressed.
  void move_data(JobIdx j, const Placement& p) {
    SimJob& s = sim_[j];
    if (p.slots.empty()) return;
    const uint32_t to = cluster_.region_of(cluster_.nodes[p.slots.front().node]);
    if (s.data_region >= 0 && static_cast<uint32_t>(s.data_region) != to) {
      const bool progressed = s.remaining_ref < jobs_[j].duration;
      const double usd =
          transfer_usd(cluster_, jobs_[j], static_cast<uint32_t>(s.data_region), to, progressed);
      ++result_.jobs[j].region_moves;
      ++result_.region_moves;
      result_.transfer_usd += usd;
      if (accounting_) accounting_->transfer(j, jobs_[j], usd);
    }
    s.data_region = to;
  }

  // Stops a running segment. Computing ended at the signal when there was one (the grace
  // after it is paid checkpoint time, not rework). Of the productive time after a restart,
  // work is kept up to the last checkpoint — all of it when the signal's checkpoint was
  // `saved` or the job has no checkpoint interval; the rest (and the restart) is rework
  // (`reclaimed`: lost to a spot reclaim).
  void stop_segment(JobIdx j, Seconds t, bool saved, bool reclaimed = false) {
    SimJob& s = sim_[j];
    JobOutcome& o = result_.jobs[j];
    const double gpus = held_milli(s.placement) / kMilliPerGpu;
    const auto [ran, worked, kept] =
        segment_stop(s.seg_start, s.restart_s, s.signal_at, t, jobs_[j].checkpoint_interval, saved);
    s.remaining_ref = std::max(0.0, s.remaining_ref - kept * s.speed);
    count_busy(s, kept, gpus);
    o.rework_gpu_seconds += (worked - kept) * gpus;
    if (reclaimed) o.spot_rework_gpu_seconds += (worked - kept) * gpus;
    o.checkpoint_gpu_seconds += (ran - worked) * gpus;
    end_segment(j, t, ran - (worked - kept), reclaimed);
    s.signal_at = -1;
  }

  void apply(const Decision& d, Seconds t) {
    const JobIdx j = d.job;
    SimJob& s = sim_[j];
    JobOutcome& o = result_.jobs[j];
    switch (d.kind) {
      case Decision::Kind::kStart:
        if (o.first_start < 0) o.first_start = t;
        begin_segment(j, t, d.placement, 0);
        return;
      case Decision::Kind::kSignal:
        // The job stops computing and writes a checkpoint until its kPreempt; its finish
        // event goes stale (it holds its GPUs, paid, through the grace).
        if (!s.running || s.signal_at >= 0) return;
        s.signal_at = t;
        ++s.epoch;
        return;
      case Decision::Kind::kPreempt: {
        if (!s.running) return;
        const bool reclaimed = on_reclaimed_node(s.placement);
        result_.spot_jobs_stopped += reclaimed ? 1 : 0;
        stop_segment(j, t, d.saved, reclaimed);
        ++o.preemptions;
        ++result_.preemptions;
        return;
      }
      case Decision::Kind::kMigrate:
        if (!s.running) return;
        stop_segment(j, t, false);
        begin_segment(j, t, d.placement, d.until);
        ++o.migrations;
        ++result_.migrations;
        return;
      case Decision::Kind::kResize:
        if (!s.running) return;
        stop_segment(j, t, false);
        begin_segment(j, t, d.placement, d.until);
        ++o.resizes;
        ++result_.resizes;
        return;
      case Decision::Kind::kReject:
        o.unschedulable = true;
        o.reason = d.reason;
        --left_;
        return;
      case Decision::Kind::kDefer:
      case Decision::Kind::kPrefetch:  // a staging hint; the simulator models no hot tier
        return;
      case Decision::Kind::kProvision:
        ++result_.nodes_provisioned;
        if (result_.spot && engine_.nodes().spot(d.node)) ++result_.spot_nodes_provisioned;
        push(t + cluster_.pools[cluster_.nodes[d.node].pool].provisioning_delay_s,
             Event::kNodeProvisioned, d.node, 0);
        return;
      case Decision::Kind::kRelease:
        ++result_.nodes_released;
        if (result_.spot) ++spot_epoch_[d.node];  // its drawn reclaim will not happen
        return;
    }
  }

  // GPU-seconds are conserved: the engine's allocation equals the jobs the simulator runs.
  std::string check_alloc() const {
    const double engine_milli = static_cast<double>(engine_.cluster().allocated_milli());
    if (std::abs(engine_milli - alloc_milli_) > 0.5)
      return fmt::format("simulator runs {} milli-GPU, engine allocated {}", alloc_milli_,
                         engine_milli);
    return {};
  }

  const std::vector<JobSpec>& jobs_;
  SimOptions opt_;
  Engine engine_;
  const ClusterSpec& cluster_;
  std::optional<RunAccounting> accounting_;  // the ledger's feed (SimOptions::ledger)
  std::vector<SimJob> sim_;
  std::vector<JobIdx> order_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::mt19937_64 rng_;
  SpotReclaims reclaims_;
  std::vector<uint32_t> spot_epoch_;  // per node (spot clusters): draws of its reclaims
  std::vector<char> spot_hit_;        // per node: under a reclaim notice since its provisioning
  uint64_t seq_ = 0;
  double alloc_milli_ = 0;
  std::vector<Pricing::Mark> tl_marks_;  // per region: the timeline's last span end
  size_t left_ = 0;                      // jobs neither finished nor rejected
  uint64_t failure_budget_ = 0;          // node failures after which the run stops (SimOptions)
  SimResult result_;
  RuntimePredictor predictor_;
  std::vector<JobSpec> predicted_;  // engine-visible copies (predict_runtimes only)
  PredictionErrors errors_;
};

}  // namespace

SimResult simulate(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
                   const GpuCatalog& catalog, Profile profile, const SimOptions& options) {
  return Simulation(jobs, cluster, catalog, std::move(profile), options).run();
}

}  // namespace frugal
