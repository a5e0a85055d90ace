#include "sim/whatif.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "policy/profile.h"

namespace frugal {

size_t recorded_starts(const std::vector<JobSpec>& jobs) {
  return static_cast<size_t>(std::count_if(jobs.begin(), jobs.end(),
                                           [](const JobSpec& j) { return j.recorded_start >= 0; }));
}

std::array<TierFigures, kTierCount> tier_figures(const SimResult& r,
                                                 const std::vector<JobSpec>& jobs) {
  std::array<TierFigures, kTierCount> out;
  std::array<std::vector<double>, kTierCount> wait, jct;
  for (size_t i = 0; i < r.jobs.size() && i < jobs.size(); ++i) {
    const JobOutcome& o = r.jobs[i];
    const JobSpec& job = jobs[i];
    const auto t = static_cast<size_t>(job.tier);
    TierFigures& f = out[t];
    ++f.jobs;
    const bool done = !o.unschedulable && o.finish >= 0;
    if (job.deadline != kNever && (!done || o.finish > job.deadline)) ++f.deadline_misses;
    if (!done) continue;
    ++f.completed;
    jct[t].push_back(o.finish - o.submit);
    wait[t].push_back(std::max(0.0, o.finish - o.submit - o.run_time));
  }
  for (size_t t = 0; t < out.size(); ++t) {
    out[t].wait_s = distribution(wait[t]);
    out[t].jct_s = distribution(jct[t]);
  }
  return out;
}

ReplayFidelity replay_fidelity(const SimResult& r, const std::vector<JobSpec>& jobs) {
  ReplayFidelity f;
  std::vector<double> errors;
  double first_submit = kNever, last_end = -1;
  for (size_t i = 0; i < r.jobs.size() && i < jobs.size(); ++i) {
    const JobSpec& job = jobs[i];
    first_submit = std::min(first_submit, job.submit);
    last_end = std::max(last_end, job.recorded_end);
    if (job.recorded_start < 0 || r.jobs[i].first_start < 0) continue;
    errors.push_back(std::abs(r.jobs[i].first_start - job.recorded_start));
    f.max_start_error_s = std::max(f.max_start_error_s, errors.back());
  }
  f.jobs = errors.size();
  f.start_error_s = distribution(errors);
  if (last_end >= 0 && first_submit != kNever)
    f.recorded_makespan_s = std::max(0.0, last_end - first_submit);
  f.replay_makespan_s = std::max(0.0, r.last_completion - r.first_arrival);
  return f;
}

Result<WhatifReport> run_whatif(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster,
                                const GpuCatalog& catalog, const std::vector<std::string>& policies,
                                const SimOptions& so, int threads,
                                std::vector<SimResult>* results) {
  WhatifReport report;
  report.jobs = jobs.size();
  report.recorded = recorded_starts(jobs);
  std::vector<std::string> names;
  if (report.recorded > 0) names.emplace_back(kRecordedPolicy);
  for (const std::string& p : policies) {
    if (split_policy(p).base == kRecordedPolicy)
      return Error{fmt::format(
          "--policies: '{}' is the actual row, added by itself when the trace records starts", p)};
    names.push_back(p);
  }
  std::vector<Profile> profiles;
  for (const std::string& p : names) {
    auto prof = make_profile(p);
    if (!prof.ok()) return Error{"--policies: " + prof.error().message};
    profiles.push_back(std::move(prof).value());
  }
  report.runs.resize(names.size());
  if (results) results->assign(names.size(), SimResult{});
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < profiles.size();) {
      SimResult r = simulate(jobs, cluster, catalog, std::move(profiles[i]), so);
      WhatifRun& run = report.runs[i];
      run.summary = summarize(r);
      run.tiers = tier_figures(r, jobs);
      run.actual = names[i] == kRecordedPolicy;
      if (run.actual) run.fidelity = replay_fidelity(r, jobs);
      if (results) (*results)[i] = std::move(r);
    }
  };
  const int n = std::clamp(threads, 1, static_cast<int>(std::max<size_t>(1, names.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return report;
}

}  // namespace frugal
