#include "policy/runtime_predictor.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

namespace frugal {

const char* to_string(PredictionLevel level) {
  switch (level) {
    case PredictionLevel::kTeamNameGpus:
      return "team+name+gpus";
    case PredictionLevel::kTeamName:
      return "team+name";
    case PredictionLevel::kName:
      return "name";
    case PredictionLevel::kTeamClassGpus:
      return "team+class+gpus";
    case PredictionLevel::kClassGpus:
      return "class+gpus";
    case PredictionLevel::kGlobal:
      return "global";
    case PredictionLevel::kDefault:
      return "default";
  }
  return "?";
}

RuntimePredictor::RuntimePredictor(PredictorOptions options) : options_(options) {
  options_.quantile = std::clamp(options_.quantile, 0.0, 1.0);
  options_.window = std::max<size_t>(options_.window, 1);
  options_.min_samples = std::max<size_t>(options_.min_samples, 1);
}

std::vector<std::string> RuntimePredictor::keys_of(const JobSpec& job) const {
  // Fields joined by a unit separator, prefixed by the level so keys never collide.
  constexpr char kSep = '\x1f';
  const std::string gpus = std::to_string(job.gpus) + ":" + std::to_string(job.gpu_milli);
  const std::string cls = std::to_string(static_cast<int>(job.job_class));
  std::vector<std::string> k(kPredictionLevels - 1);
  if (!job.name.empty()) {
    k[0] = "0" + std::string(1, kSep) + job.team + kSep + job.name + kSep + gpus;
    k[1] = "1" + std::string(1, kSep) + job.team + kSep + job.name;
    k[2] = "2" + std::string(1, kSep) + job.name;
  }
  k[3] = "3" + std::string(1, kSep) + job.team + kSep + cls + kSep + gpus;
  k[4] = "4" + std::string(1, kSep) + cls + kSep + gpus;
  k[5] = "5";
  return k;
}

void RuntimePredictor::observe(const JobSpec& job, Seconds duration) {
  for (const std::string& key : keys_of(job)) {
    if (key.empty()) continue;
    Ring& r = rings_[key];
    if (r.values.size() < options_.window) {
      r.values.push_back(duration);
    } else {
      r.values[r.next] = duration;
      r.next = (r.next + 1) % options_.window;
    }
  }
}

double RuntimePredictor::quantile_of(const Ring& r) const {
  std::vector<double> v = r.values;
  std::sort(v.begin(), v.end());
  const double pos = options_.quantile * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

Prediction RuntimePredictor::predict(const JobSpec& job) const {
  const std::vector<std::string> keys = keys_of(job);
  for (size_t level = 0; level < keys.size(); ++level) {
    if (keys[level].empty()) continue;
    const auto it = rings_.find(keys[level]);
    if (it == rings_.end()) continue;
    const size_t n = it->second.values.size();
    const bool global = level + 1 == keys.size();
    if (n < (global ? 1 : options_.min_samples)) continue;
    return Prediction{quantile_of(it->second), static_cast<PredictionLevel>(level), n};
  }
  return Prediction{options_.default_s, PredictionLevel::kDefault, 0};
}

size_t RuntimePredictor::held(const JobSpec& job, PredictionLevel level) const {
  const auto i = static_cast<size_t>(level);
  if (i + 1 >= kPredictionLevels) return 0;
  const std::string key = keys_of(job)[i];
  if (key.empty()) return 0;
  const auto it = rings_.find(key);
  return it == rings_.end() ? 0 : it->second.values.size();
}

void PredictionErrors::add(Seconds predicted, Seconds actual, PredictionLevel level) {
  ++n_;
  abs_sum_ += std::abs(predicted - actual);
  if (actual > 0) pct_.push_back(std::abs(predicted - actual) / actual * 100.0);
  if (predicted >= actual / 2 && predicted <= actual * 2) ++within_;
  if (predicted < actual) ++under_;
  ++by_level_[static_cast<size_t>(level)];
}

PredictionReport PredictionErrors::report() const {
  PredictionReport r;
  r.jobs = n_;
  r.by_level = by_level_;
  r.pct_jobs = pct_.size();
  if (n_ == 0) return r;
  const double n = static_cast<double>(n_);
  r.mae_s = abs_sum_ / n;
  r.within_2x_share = static_cast<double>(within_) / n;
  r.underestimate_share = static_cast<double>(under_) / n;
  if (!pct_.empty()) {
    std::vector<double> v = pct_;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    r.median_abs_pct_error = v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
  }
  return r;
}

PredictionReport replay_predictions(const std::vector<JobSpec>& jobs,
                                    const PredictorOptions& options,
                                    std::vector<Prediction>* predictions) {
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return jobs[a].submit < jobs[b].submit; });
  // Pending completions: (time, arrival rank), earliest first; ties in arrival order.
  using Done = std::pair<Seconds, size_t>;
  std::priority_queue<Done, std::vector<Done>, std::greater<>> done;
  RuntimePredictor predictor(options);
  PredictionErrors errors;
  if (predictions) predictions->assign(jobs.size(), Prediction{});
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const JobSpec& j = jobs[order[rank]];
    while (!done.empty() && done.top().first <= j.submit) {
      const JobSpec& d = jobs[order[done.top().second]];
      predictor.observe(d, d.duration);
      done.pop();
    }
    const Prediction p = predictor.predict(j);
    errors.add(p.seconds, j.duration, p.level);
    if (predictions) (*predictions)[order[rank]] = p;
    done.emplace(j.submit + j.duration, rank);
  }
  return errors.report();
}

}  // namespace frugal
