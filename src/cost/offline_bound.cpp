#include "cost/offline_bound.h"

#include <fmt/format.h>
#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>
#include <algorithm>
#include <cmath>
#include <map>

namespace frugal {

OfflineBound solve_offline_bound(const Pricing& pricing, const std::vector<OfflineJob>& jobs,
                                 const std::vector<double>& capacity, int64_t epoch_unix_s,
                                 OfflineObjective objective) {
  OfflineBound out;
  out.objective = objective;
  out.jobs = jobs.size();
  if (jobs.empty()) {
    out.ok = true;
    return out;
  }
  if (jobs.size() > kOfflineMaxJobs) {
    out.error =
        fmt::format("{} jobs, more than the bound's limit of {}", jobs.size(), kOfflineMaxJobs);
    return out;
  }
  const double epoch = static_cast<double>(epoch_unix_s);
  // A job spread over several centres is booked on one: never let it exceed that capacity.
  std::vector<double> cap = capacity;
  for (const OfflineJob& o : jobs) {
    if (cap.size() <= o.centre) cap.resize(o.centre + 1, 0.0);
    cap[o.centre] = std::max(cap[o.centre], o.gpus);
  }
  // Candidate starts per job.
  std::vector<std::vector<double>> starts(jobs.size());
  double t_min = jobs[0].earliest;
  size_t nnz = 0;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const OfflineJob& o = jobs[j];
    std::vector<double>& s = starts[j];
    const double lo = o.earliest, hi = std::max(o.earliest, o.latest);
    s.push_back(lo);
    s.push_back(hi);
    if (o.actual >= 0) s.push_back(o.actual);
    for (double h = std::ceil((epoch + lo) / 3600.0) * 3600.0 - epoch; h <= hi; h += 3600.0) {
      s.push_back(h);
    }
    for (double h = std::ceil((epoch + lo + o.runtime) / 3600.0) * 3600.0 - epoch - o.runtime;
         h <= hi; h += 3600.0) {
      s.push_back(h);
    }
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    t_min = std::min(t_min, s.front());
    nnz += s.size() * (1 + static_cast<size_t>(std::ceil(o.runtime / 3600.0)) + 1);
    if (nnz > kOfflineMaxNonzeros) {
      out.error = fmt::format("more than {} constraint coefficients", kOfflineMaxNonzeros);
      return out;
    }
  }
  const double h0 = std::floor((epoch + t_min) / 3600.0) * 3600.0 - epoch;  // hour 0
  // Rows: one per job (assignment), then one per (centre, hour) used.
  std::map<std::pair<uint32_t, int64_t>, int> cap_row;
  std::vector<int> index;
  std::vector<double> value, obj, energy, total;
  std::vector<CoinBigIndex> colstart;
  const int nj = static_cast<int>(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    const OfflineJob& o = jobs[j];
    for (double s : starts[j]) {
      colstart.push_back(static_cast<CoinBigIndex>(index.size()));
      const SpanCost c = pricing.span(o.centre, o.gpus, o.utilization, s, s + o.runtime);
      total.push_back(c.total_usd());
      energy.push_back(c.energy_usd);
      obj.push_back(objective == OfflineObjective::kEnergy ? c.energy_usd : c.total_usd());
      index.push_back(static_cast<int>(j));
      value.push_back(1.0);
      const double e = s + o.runtime;
      for (int64_t h = static_cast<int64_t>(std::floor((s - h0) / 3600.0));
           h0 + 3600.0 * static_cast<double>(h) < e; ++h) {
        const double a = std::max(s, h0 + 3600.0 * static_cast<double>(h));
        const double b = std::min(e, h0 + 3600.0 * static_cast<double>(h + 1));
        if (!(b > a)) continue;
        auto [it, fresh] = cap_row.emplace(std::make_pair(o.centre, h), 0);
        if (fresh) it->second = nj + static_cast<int>(cap_row.size()) - 1;
        index.push_back(it->second);
        value.push_back(o.gpus * (b - a) / 3600.0);
      }
    }
  }
  colstart.push_back(static_cast<CoinBigIndex>(index.size()));
  const int ncols = static_cast<int>(obj.size());
  const int nrows = nj + static_cast<int>(cap_row.size());
  out.columns = obj.size();
  std::vector<double> rowlb(nrows, -COIN_DBL_MAX), rowub(nrows, COIN_DBL_MAX);
  for (int j = 0; j < nj; ++j) rowlb[j] = rowub[j] = 1.0;
  for (const auto& [key, row] : cap_row) rowub[row] = cap[key.first];
  std::vector<double> collb(ncols, 0.0), colub(ncols, 1.0);
  CoinPackedMatrix matrix(true, nrows, ncols, static_cast<CoinBigIndex>(index.size()), value.data(),
                          index.data(), colstart.data(), nullptr);
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.loadProblem(matrix, collb.data(), colub.data(), obj.data(), rowlb.data(), rowub.data());
  lp.dual();
  if (!lp.isProvenOptimal()) {
    out.error = "the LP was not solved to optimality";
    return out;
  }
  const double* x = lp.primalColumnSolution();
  for (int c = 0; c < ncols; ++c) {
    out.cost_usd += x[c] * total[c];
    out.energy_usd += x[c] * energy[c];
  }
  out.ok = true;
  return out;
}

}  // namespace frugal
