#include "policy/gavel.h"

#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>
#include <algorithm>
#include <cmath>
#include <map>

#include "policy/admit_filter.h"

namespace frugal {

GavelAllocation solve_gavel(const GavelProblem& p) {
  GavelAllocation out;
  const size_t n = p.throughput.size();
  const size_t models = p.capacity.size();
  out.x.assign(n, std::vector<double>(models, 0.0));
  double total_cap = 0;
  for (double c : p.capacity) total_cap += std::max(0.0, c);
  if (n == 0 || total_cap <= 0) {
    out.ok = true;
    return out;
  }
  // Columns: x[j][m] for usable pairs, then t (last).
  std::vector<double> eq(n, 0.0);
  std::vector<std::pair<size_t, size_t>> cols;
  for (size_t j = 0; j < n; ++j) {
    if (!(p.gpus[j] > 0)) continue;
    for (size_t m = 0; m < models; ++m)
      if (p.throughput[j][m] > 0 && p.capacity[m] > 0 && p.gpus[j] <= p.capacity[m])
        eq[j] += p.capacity[m] / total_cap * p.throughput[j][m];
    if (!std::isfinite(eq[j])) eq[j] = 0;
    if (eq[j] <= 0) continue;
    for (size_t m = 0; m < models; ++m)
      if (p.throughput[j][m] > 0 && p.capacity[m] > 0 && p.gpus[j] <= p.capacity[m])
        cols.emplace_back(j, m);
  }
  size_t active = 0;
  for (size_t j = 0; j < n; ++j) active += eq[j] > 0;
  if (active == 0) {
    out.ok = true;
    return out;
  }
  // Rows: [0, n) job time ≤ 1; [n, n + models) capacity; [n + models, 2n + models) fairness.
  const int rows = static_cast<int>(2 * n + models);
  const int ncols = static_cast<int>(cols.size() + 1);
  std::vector<CoinBigIndex> start;
  std::vector<int> index;
  std::vector<double> value, collb(ncols, 0.0), colub(ncols, 1.0), obj(ncols, 0.0);
  const double eps = 1e-3 / static_cast<double>(active);
  for (size_t c = 0; c < cols.size(); ++c) {
    const auto [j, m] = cols[c];
    const double ratio = p.throughput[j][m] / eq[j];
    start.push_back(static_cast<CoinBigIndex>(index.size()));
    index.push_back(static_cast<int>(j));
    value.push_back(1.0);
    index.push_back(static_cast<int>(n + m));
    value.push_back(p.gpus[j]);
    index.push_back(static_cast<int>(n + models + j));
    value.push_back(ratio);
    obj[c] = eps * ratio;
  }
  // t: −1 in every active job's fairness row.
  start.push_back(static_cast<CoinBigIndex>(index.size()));
  for (size_t j = 0; j < n; ++j) {
    if (eq[j] <= 0) continue;
    index.push_back(static_cast<int>(n + models + j));
    value.push_back(-1.0);
  }
  start.push_back(static_cast<CoinBigIndex>(index.size()));
  colub[ncols - 1] = COIN_DBL_MAX;
  obj[ncols - 1] = 1.0;
  std::vector<double> rowlb(rows, -COIN_DBL_MAX), rowub(rows, COIN_DBL_MAX);
  for (size_t j = 0; j < n; ++j) rowub[j] = 1.0;
  for (size_t m = 0; m < models; ++m) rowub[n + m] = std::max(0.0, p.capacity[m]);
  for (size_t j = 0; j < n; ++j) rowlb[n + models + j] = 0.0;

  CoinPackedMatrix matrix(true, rows, ncols, static_cast<CoinBigIndex>(index.size()), value.data(),
                          index.data(), start.data(), nullptr);
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.loadProblem(matrix, collb.data(), colub.data(), obj.data(), rowlb.data(), rowub.data());
  lp.setOptimizationDirection(-1);  // maximise
  lp.initialSolve();
  if (!lp.isProvenOptimal()) return out;
  const double* sol = lp.primalColumnSolution();
  for (size_t c = 0; c < cols.size(); ++c)
    out.x[cols[c].first][cols[c].second] = std::clamp(sol[c], 0.0, 1.0);
  out.min_ratio = sol[ncols - 1];
  out.ok = true;
  return out;
}

namespace {

class GavelFilter final : public Filter {
 public:
  explicit GavelFilter(size_t max_jobs) : max_jobs_(max_jobs) {}
  std::string name() const override { return "gavel"; }

  Candidates filter(const CycleView& v, const JobSpec& job) const override {
    Candidates c = base_->filter(v, job);
    if (job.gpus == 0 || c.models.empty()) return c;
    Round& round = v.plugin_state().of<Round>(this);
    if (!round.solved || v.now() >= round.solved_at + kGavelRoundS) solve(v, round);
    auto it = round.row_of.find(&job);
    // Nothing running means no event may come to end the round: start one now.
    if (it == round.row_of.end() && v.now() != round.solved_at && v.running_by_end().empty()) {
      solve(v, round);
      it = round.row_of.find(&job);
    }
    if (it == round.row_of.end()) return {};  // outside this round's window: wait
    const std::vector<double>& x = round.alloc.x[it->second];
    const std::vector<size_t>& col = round.model_col;
    std::vector<GpuModelId> out;
    for (GpuModelId m : c.models)
      if (x[col[m]] > 1e-6) out.push_back(m);
    std::stable_sort(out.begin(), out.end(), [&](GpuModelId a, GpuModelId b) {
      const double xa = x[col[a]], xb = x[col[b]];
      if (xa != xb) return xa > xb;
      const double sa = v.speed(job, a), sb = v.speed(job, b);
      if (sa != sb) return sa > sb;
      return a < b;
    });
    c.models = std::move(out);
    return c;
  }

 private:
  // One round's allocation, kept in the view (framework/plugin_state.h) until the round ends.
  struct Round final : PluginState {
    bool solved = false;
    Seconds solved_at = 0;
    std::vector<size_t> model_col;
    std::map<const JobSpec*, size_t> row_of;
    GavelAllocation alloc;
  };

  void solve(const CycleView& v, Round& round) const {
    round.solved = true;
    round.solved_at = v.now();
    std::vector<size_t>& col = round.model_col;
    const ClusterState& st = v.cluster();
    const std::vector<GpuModelId>& models = st.models();
    col.assign(v.catalog().size(), 0);
    for (size_t k = 0; k < models.size(); ++k) col[models[k]] = k;
    GavelProblem p;
    p.capacity.assign(models.size(), 0.0);
    for (const NodeSpec& n : st.spec().nodes)
      if (n.model != kNoGpuModel) p.capacity[col[n.model]] += n.gpus;
    // Window: queued jobs by arrival, then running jobs by arrival.
    std::vector<const JobRuntime*> window;
    for (const QueueKey& k : v.pending()) {
      const JobRuntime& r = v.job(k.job);
      if (r.spec->gpus > 0) window.push_back(&r);
    }
    auto by_seq = [](const JobRuntime* a, const JobRuntime* b) { return a->seq < b->seq; };
    std::sort(window.begin(), window.end(), by_seq);
    if (window.size() > max_jobs_) window.resize(max_jobs_);
    std::vector<const JobRuntime*> running;
    for (const auto& [end, j] : v.running_by_end()) {
      const JobRuntime& r = v.job(j);
      if (r.spec->gpus > 0) running.push_back(&r);
    }
    std::sort(running.begin(), running.end(), by_seq);
    for (const JobRuntime* r : running) {
      if (window.size() < max_jobs_) {
        window.push_back(r);
      } else {  // left out: holds its GPUs as fixed capacity
        double& cap = p.capacity[col[r->placement.model]];
        cap = std::max(0.0, cap - r->gpus());
      }
    }
    round.row_of.clear();
    for (const JobRuntime* r : window) {
      const JobSpec& s = *r->spec;
      const Candidates allowed = base_->filter(v, s);
      std::vector<double> t(models.size(), 0.0);
      for (GpuModelId m : allowed.models) t[col[m]] = v.speed(s, m);
      round.row_of.emplace(&s, p.throughput.size());
      p.throughput.push_back(std::move(t));
      p.gpus.push_back(r->gpus());
    }
    round.alloc = solve_gavel(p);
    if (!round.alloc.ok)
      round.alloc.x.assign(p.throughput.size(), std::vector<double>(models.size(), 0));
  }

  size_t max_jobs_;
  std::unique_ptr<Filter> base_ = make_model_filter();
};

}  // namespace

std::unique_ptr<Filter> make_gavel_filter(size_t max_jobs) {
  return std::make_unique<GavelFilter>(max_jobs);
}

}  // namespace frugal
