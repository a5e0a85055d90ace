#include "sim/jct_bound.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

namespace frugal {
namespace {

// Completion times of SRPT on one machine of `rate` units per second, job j needing need[j]
// units (jobs by release).
std::vector<Seconds> srpt_completions(const std::vector<BoundJob>& jobs,
                                      const std::vector<size_t>& by_release,
                                      const std::vector<double>& need, double rate) {
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
      queue.emplace(need[j], j);
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

double queue_jct_bound(const std::vector<BoundJob>& jobs,
                       const std::vector<BoundMachine>& machines) {
  if (jobs.empty()) return 0;
  for (const BoundMachine& m : machines)
    if (m.need.size() != jobs.size())
      throw std::invalid_argument("queue_jct_bound: a machine's need has " +
                                  std::to_string(m.need.size()) + " entries for " +
                                  std::to_string(jobs.size()) + " jobs");
  std::vector<size_t> by_release(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) by_release[i] = i;
  std::stable_sort(by_release.begin(), by_release.end(),
                   [&](size_t a, size_t b) { return jobs[a].release < jobs[b].release; });
  // Sweep: (time, index of the count it changes: 0 the floors, k + 1 machine k, change).
  struct Step {
    Seconds t;
    size_t count;
    int delta;
  };
  std::vector<Step> steps;
  steps.reserve(jobs.size() * 2 * (machines.size() + 1));
  for (size_t j = 0; j < jobs.size(); ++j) {
    steps.push_back({jobs[j].release, 0, 1});
    steps.push_back({jobs[j].release + jobs[j].floor_s, 0, -1});
  }
  for (size_t k = 0; k < machines.size(); ++k) {
    if (machines[k].rate <= 0) continue;
    const std::vector<Seconds> done =
        srpt_completions(jobs, by_release, machines[k].need, machines[k].rate);
    for (size_t j = 0; j < jobs.size(); ++j) {
      steps.push_back({jobs[j].release, k + 1, 1});
      steps.push_back({done[j], k + 1, -1});
    }
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step& a, const Step& b) { return a.t < b.t; });
  std::vector<int64_t> in(machines.size() + 1, 0);
  double area = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i > 0 && steps[i].t > steps[i - 1].t)
      area += static_cast<double>(*std::max_element(in.begin(), in.end())) *
              (steps[i].t - steps[i - 1].t);
    in[steps[i].count] += steps[i].delta;
  }
  return area / static_cast<double>(jobs.size());
}

}  // namespace frugal
