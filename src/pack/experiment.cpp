#include "pack/experiment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "pack/bound.h"
#include "pack/fill_engine.h"
#include "pack/frag.h"
#include "pack/frugal_typical.h"
#include "pack/workload.h"

namespace frugal::pack {
namespace {

// The bound's curve for one run's arrivals, discretised like an allocation (experiment.h).
void add_bound(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& seq,
               const BoundOptions& options, ExperimentResult& out) {
  auto b = bound_per_event(nodes, seq, options);
  if (!b.ok()) {
    out.bound_error = b.error().message;
    return;
  }
  FillEvents ev;
  for (const NodeSpec& n : nodes) ev.total_gpus += n.num_gpu;
  int64_t arrived = 0;
  for (size_t i = 0; i < seq.size(); ++i) {
    arrived += seq[i].total_milli();
    ev.arrived_milli.push_back(arrived);
    ev.used_milli.push_back(b.value()[i]);
    ev.idle_milli.push_back(0);
    ev.frag_milli.push_back(0);
  }
  out.bound.push_back(discretise(ev));
}

// The repack bound of one fill (experiment.h) at the last arrival of each of kRepackLevels.
Result<std::pair<LevelSeries, LevelSeries>> repack_series(AllocBound& lp,
                                                          const std::vector<Pod>& seq,
                                                          const FillEvents& ev) {
  std::pair<LevelSeries, LevelSeries> out;
  const double total = static_cast<double>(ev.total_gpus);
  if (ev.total_gpus == 0) return out;
  std::vector<int64_t> count(lp.classes(), 0), keep(lp.classes(), 0);
  size_t next = 0, failed = 0;  // arrivals counted so far; failed pods passed
  for (int level : kRepackLevels) {
    // The level's last arrival.
    size_t last = seq.size();
    for (size_t i = 0; i < ev.arrived_milli.size(); ++i)
      if (arrived_level(ev.arrived_milli[i], ev.total_gpus) == level) last = i;
    if (last == seq.size() || last < next) continue;
    for (; next <= last; ++next) {
      const int c = lp.class_of(seq[next]);
      const bool lost = failed < ev.failed_pods.size() && ev.failed_pods[failed] == next;
      failed += lost;
      if (c < 0) continue;
      count[static_cast<size_t>(c)] += 1;
      keep[static_cast<size_t>(c)] += lost ? 0 : 1;
    }
    auto b = lp.max_alloc_milli(count, keep);
    if (!b.ok()) return b.error();
    const auto x = static_cast<size_t>(level);
    out.first.has[x] = out.second.has[x] = true;
    out.first.alloc[x] = round2(static_cast<double>(b.value()) / total / 10);
    out.second.alloc[x] = round2(static_cast<double>(ev.used_milli[last]) / total / 10);
  }
  return out;
}

// Adds one run's repack series to pr (and its wall time to out); false when the LP fails, with
// out.repack_error set and every run's repack series dropped.
bool add_repack(AllocBound& lp, const std::vector<Pod>& seq, const FillEvents& ev, PolicyRuns& pr,
                ExperimentResult& out) {
  const auto t0 = std::chrono::steady_clock::now();
  auto rs = repack_series(lp, seq, ev);
  out.repack_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!rs.ok()) {  // no repack series at all then
    out.repack_error = rs.error().message;
    for (PolicyRuns& p : out.runs) {
      p.repack.clear();
      p.repack_policy.clear();
    }
    return false;
  }
  pr.repack.push_back(rs.value().first);
  pr.repack_policy.push_back(rs.value().second);
  return true;
}

}  // namespace

ExperimentResult run_experiment(const std::vector<NodeSpec>& nodes, const std::vector<Pod>& pods,
                                const ExperimentConfig& config) {
  ExperimentResult out;
  out.typical = typical_pods(pods);
  FragMemo memo(out.typical);
  const TypicalPods frugal_typical = frugal_typical_pods(pods, nodes);
  FragMemo frugal_memo(frugal_typical);
  int64_t capacity = 0;
  for (const NodeSpec& n : nodes) capacity += static_cast<int64_t>(n.num_gpu) * kMilli;
  const bool has_frugal = std::find(config.policies.begin(), config.policies.end(),
                                    Policy::kFrugal) != config.policies.end();
  if (config.frugal_rules == ExperimentConfig::Rules::kAuto && has_frugal)
    out.rules =
        choose_rules(nodes, pods, config.tune, memo, frugal_memo, config.calibration_streams);
  else if (config.frugal_rules == ExperimentConfig::Rules::kFgd)
    out.rules.own_rules = false;
  const Policy frugal_as = out.rules.own_rules ? Policy::kFrugal : Policy::kFgd;
  const int runs = config.replay ? 1 : std::max(1, config.seeds);
  for (Policy p : config.policies) out.runs.push_back(PolicyRuns{p, {}, {}, {}});
  double bound_seconds = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < runs; ++k) {
    const uint64_t seed = config.first_seed + static_cast<uint64_t>(k);
    std::vector<Pod> seq;
    std::vector<int> rank;
    std::optional<GoRand> go;
    if (config.replay) {
      seq = config.replay->order;
      rank = config.replay->rank;
    } else if (config.go_rand) {
      GoDraws d = go_rand_draws(pods, nodes, config.tune, static_cast<int64_t>(seed));
      seq = std::move(d.order);
      rank = std::move(d.rank);
      go = d.after;
    } else {
      seq = tune_workload(pods, capacity, config.tune, seed);
      rank = random_node_ranks(nodes.size(), seed);
    }
    if (k == 0) out.pods_per_run = seq.size();
    std::optional<AllocBound> repack_lp;
    if (config.repack && out.repack_error.empty()) repack_lp.emplace(nodes, seq);
    for (PolicyRuns& pr : out.runs) {
      const bool frugal = pr.policy == Policy::kFrugal;
      const bool own = frugal && out.rules.own_rules;
      const FillEvents ev =
          run_fill(nodes, rank, seq, frugal ? frugal_as : pr.policy, memo,
                   go ? PolicyRng(*go) : PolicyRng(seed * 7919 + 17), own ? &frugal_memo : nullptr,
                   frugal ? config.migrations_per_100 : 0);
      pr.seeds.push_back(discretise(ev));
      pr.failed.push_back(ev.failed);
      pr.migrations.push_back(ev.migrations);
      if (repack_lp && !add_repack(*repack_lp, seq, ev, pr, out)) repack_lp.reset();
    }
    if (config.bound && out.bound_error.empty()) {
      const auto b0 = std::chrono::steady_clock::now();
      add_bound(nodes, seq, config.bound_options, out);
      bound_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() -
                bound_seconds - out.repack_seconds;
  out.bound_seconds = bound_seconds;
  if (!out.bound_error.empty()) out.bound.clear();
  return out;
}

LevelStats level_stats(const PolicyRuns& runs, Metric metric, int level) {
  return level_stats(runs.seeds, metric, level);
}

LevelStats level_stats(const std::vector<LevelSeries>& runs, Metric metric, int level) {
  std::vector<double> v;
  const auto b = static_cast<size_t>(level);
  for (const LevelSeries& s : runs) {
    if (!s.has[b]) continue;
    v.push_back(metric == Metric::kAlloc        ? s.alloc[b]
                : metric == Metric::kFrag       ? s.frag[b]
                : metric == Metric::kMigrations ? s.migrations[b]
                                                : s.ratio[b]);
  }
  LevelStats st;
  st.n = static_cast<int>(v.size());
  if (v.empty()) return st;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  st.median = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  double sum = 0;
  for (double x : v) sum += x;
  st.mean = sum / static_cast<double>(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - st.mean) * (x - st.mean);
    st.stdev = std::sqrt(ss / static_cast<double>(v.size() - 1));
  }
  return st;
}

}  // namespace frugal::pack
