#include "sim/synthetic.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace frugal {
namespace {

constexpr int kSizes[] = {1, 2, 4, 8, 16, 32, 64};
constexpr double kWeights[] = {0.60, 0.10, 0.10, 0.14, 0.03, 0.02, 0.01};
constexpr double kMedianS = 1800, kSigma = 1.6, kCapS = 7 * 86400;

// Uniform double in [0, 1) from 53 random bits (portable, unlike std distributions).
double uniform(std::mt19937_64& g) {
  return static_cast<double>(g() >> 11) * 0x1.0p-53;
}

double normal(std::mt19937_64& g) {  // Box-Muller
  const double u1 = std::max(uniform(g), 1e-300), u2 = uniform(g);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

}  // namespace

std::vector<JobSpec> make_synthetic_jobs(const SyntheticOptions& o) {
  std::mt19937_64 g(o.seed);
  std::vector<JobSpec> jobs(o.jobs);
  double gpu_seconds = 0;
  for (size_t i = 0; i < o.jobs; ++i) {
    JobSpec& j = jobs[i];
    j.id = "syn-" + std::to_string(i);
    double u = uniform(g), acc = 0;
    j.gpus = kSizes[6];
    for (int k = 0; k < 7; ++k) {
      acc += kWeights[k];
      if (u < acc) {
        j.gpus = kSizes[k];
        break;
      }
    }
    j.gpus = static_cast<int>(std::min<int64_t>(j.gpus, o.cluster_gpus));
    j.duration = std::min(kCapS, std::round(kMedianS * std::exp(kSigma * normal(g))) + 1);
    gpu_seconds += j.duration * j.gpus;
  }
  // Arrival span so that offered load = load.
  const double span = gpu_seconds / (o.load * static_cast<double>(o.cluster_gpus));
  const double mean_gap = span / static_cast<double>(std::max<size_t>(o.jobs, 1));
  double t = 0;
  for (JobSpec& j : jobs) {
    j.submit = std::round(t);
    t += -std::log(std::max(1.0 - uniform(g), 1e-300)) * mean_gap;
  }
  return jobs;
}

}  // namespace frugal
