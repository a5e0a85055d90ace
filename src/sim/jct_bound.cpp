#include "sim/jct_bound.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace frugal {
namespace {

// Completion times of SRPT on one machine of `rate` units per second (jobs by release).
std::vector<Seconds> srpt_completions(const std::vector<BoundJob>& jobs,
                                      const std::vector<size_t>& by_release, double rate) {
  std::vector<Seconds> done(jobs.size(), 0);
  // (remaining units, job): the least remaining on top.
  using Item = std::pair<double, size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  Seconds t = 0;
  size_t next = 0;
  while (next < by_release.size() || !queue.empty()) {
    if (queue.empty()) t = std::max(t, jobs[by_release[next]].release);
    while (next < by_release.size() && jobs[by_release[next]].release <= t) {
      const size_t j = by_release[next++];
      queue.emplace(jobs[j].min_gpu_seconds, j);
    }
    const Seconds until = next < by_release.size() ? jobs[by_release[next]].release : -1;
    while (!queue.empty()) {
      auto [left, j] = queue.top();
      const Seconds end = t + left / rate;
      if (until >= 0 && end > until) {  // runs until the next release, then re-sorts
        queue.pop();
        queue.emplace(left - (until - t) * rate, j);
        t = until;
        break;
      }
      queue.pop();
      t = end;
      done[j] = end;
    }
  }
  return done;
}

}  // namespace

double queue_jct_bound(const std::vector<BoundJob>& jobs, int64_t capacity_gpus) {
  if (jobs.empty()) return 0;
  std::vector<size_t> by_release(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) by_release[i] = i;
  std::stable_sort(by_release.begin(), by_release.end(),
                   [&](size_t a, size_t b) { return jobs[a].release < jobs[b].release; });
  std::vector<Seconds> srpt;
  if (capacity_gpus > 0)
    srpt = srpt_completions(jobs, by_release, static_cast<double>(capacity_gpus));
  // Sweep: (time, change of N_floor, change of N_srpt).
  struct Step {
    Seconds t;
    int floor, srpt;
  };
  std::vector<Step> steps;
  steps.reserve(jobs.size() * 3);
  for (size_t j = 0; j < jobs.size(); ++j) {
    steps.push_back({jobs[j].release, 1, srpt.empty() ? 0 : 1});
    steps.push_back({jobs[j].release + jobs[j].floor_s, -1, 0});
    if (!srpt.empty()) steps.push_back({srpt[j], 0, -1});
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.t < b.t; });
  double area = 0;
  int64_t in_floor = 0, in_srpt = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i > 0)
      area += static_cast<double>(std::max(in_floor, in_srpt)) * (steps[i].t - steps[i - 1].t);
    in_floor += steps[i].floor;
    in_srpt += steps[i].srpt;
  }
  return area / static_cast<double>(jobs.size());
}

}  // namespace frugal
