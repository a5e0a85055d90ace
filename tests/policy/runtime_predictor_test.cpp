// The online runtime predictor: fallback chain, minimum samples, quantiles, bounded memory,
// determinism and (in replay) no look-ahead.

#include "policy/runtime_predictor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace frugal {
namespace {

JobSpec spec(std::string team, std::string name, int gpus, JobClass cls = JobClass::kPretrain) {
  JobSpec j;
  j.team = std::move(team);
  j.name = std::move(name);
  j.gpus = gpus;
  j.job_class = cls;
  return j;
}

void observe_n(RuntimePredictor& p, const JobSpec& j, Seconds d, int n) {
  for (int i = 0; i < n; ++i) p.observe(j, d);
}

TEST(RuntimePredictor, FallbackChainMostToLeastSpecific) {
  RuntimePredictor p;
  const JobSpec q = spec("A", "N", 2);
  Prediction r = p.predict(q);
  EXPECT_EQ(r.level, PredictionLevel::kDefault);
  EXPECT_DOUBLE_EQ(r.seconds, 3600);

  p.observe(spec("B", "M", 4), 7);  // global only (one sample is enough there)
  r = p.predict(q);
  EXPECT_EQ(r.level, PredictionLevel::kGlobal);
  EXPECT_DOUBLE_EQ(r.seconds, 7);

  observe_n(p, spec("X", "Z", 2), 100, 3);  // (class, gpus)
  r = p.predict(q);
  EXPECT_EQ(r.level, PredictionLevel::kClassGpus);
  EXPECT_DOUBLE_EQ(r.seconds, 100);
  // Another class does not share the key.
  EXPECT_EQ(p.predict(spec("A", "N", 2, JobClass::kEval)).level, PredictionLevel::kGlobal);

  observe_n(p, spec("A", "Y", 2), 200, 3);  // (team, class, gpus)
  r = p.predict(q);
  EXPECT_EQ(r.level, PredictionLevel::kTeamClassGpus);
  EXPECT_DOUBLE_EQ(r.seconds, 200);

  observe_n(p, spec("B", "N", 8), 300, 3);  // (name)
  r = p.predict(q);
  EXPECT_EQ(r.level, PredictionLevel::kName);
  EXPECT_DOUBLE_EQ(r.seconds, 300);

  observe_n(p, spec("A", "N", 8), 400, 3);  // (team, name); name now has 300×3, 400×3
  r = p.predict(q);
  EXPECT_EQ(r.level, PredictionLevel::kTeamName);
  EXPECT_DOUBLE_EQ(r.seconds, 400);

  observe_n(p, spec("A", "N", 2), 500, 3);  // (team, name, gpus)
  r = p.predict(q);
  EXPECT_EQ(r.level, PredictionLevel::kTeamNameGpus);
  EXPECT_DOUBLE_EQ(r.seconds, 500);
  EXPECT_EQ(r.samples, 3u);
}

TEST(RuntimePredictor, NamelessJobsDegradeToGpusThenGlobal) {
  // ITP raw: no team, no name, no class — only gpus distinguishes jobs.
  RuntimePredictor p;
  observe_n(p, spec("default", "", 8), 50, 3);
  EXPECT_EQ(p.predict(spec("default", "", 8)).level, PredictionLevel::kTeamClassGpus);
  EXPECT_EQ(p.predict(spec("default", "", 1)).level, PredictionLevel::kGlobal);
  EXPECT_EQ(p.held(spec("default", "", 8), PredictionLevel::kName), 0u);
}

TEST(RuntimePredictor, MinimumSamplesBeforeAKeyIsTrusted) {
  RuntimePredictor p;  // min_samples 3
  const JobSpec q = spec("A", "N", 1);
  observe_n(p, spec("Q", "other", 4), 1000, 5);
  observe_n(p, q, 10, 2);
  EXPECT_EQ(p.predict(q).level, PredictionLevel::kGlobal);  // 2 < 3: every job-level key
  p.observe(q, 10);
  EXPECT_EQ(p.predict(q).level, PredictionLevel::kTeamNameGpus);

  RuntimePredictor loose(PredictorOptions{0.5, 2, 64, 3600});
  observe_n(loose, q, 10, 2);
  EXPECT_EQ(loose.predict(q).level, PredictionLevel::kTeamNameGpus);
}

TEST(RuntimePredictor, QuantilesInterpolateBetweenOrderStatistics) {
  const JobSpec q = spec("A", "N", 1);
  auto at = [&](double quantile, std::vector<double> history) {
    RuntimePredictor p(PredictorOptions{quantile, 1, 64, 3600});
    for (double d : history) p.observe(q, d);
    return p.predict(q).seconds;
  };
  const std::vector<double> h = {50, 10, 40, 20, 30};  // order of arrival does not matter
  EXPECT_DOUBLE_EQ(at(0.5, h), 30);
  EXPECT_DOUBLE_EQ(at(0.75, h), 40);
  EXPECT_DOUBLE_EQ(at(0.1, h), 14);  // position 0.4 between 10 and 20
  EXPECT_DOUBLE_EQ(at(0.0, h), 10);
  EXPECT_DOUBLE_EQ(at(1.0, h), 50);
  EXPECT_DOUBLE_EQ(at(0.5, {4, 1, 3, 2}), 2.5);
}

TEST(RuntimePredictor, MemoryPerKeyIsBoundedByTheWindow) {
  RuntimePredictor p(PredictorOptions{0.5, 3, 4, 3600});
  const JobSpec q = spec("A", "N", 1);
  for (int d = 1; d <= 100; ++d) p.observe(q, d);
  EXPECT_EQ(p.held(q, PredictionLevel::kTeamNameGpus), 4u);
  EXPECT_EQ(p.held(q, PredictionLevel::kClassGpus), 4u);
  EXPECT_EQ(p.keys(), 6u);                       // one ring per level, not per observation
  EXPECT_DOUBLE_EQ(p.predict(q).seconds, 98.5);  // median of the last four: 97..100
}

std::vector<JobSpec> random_trace(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<JobSpec> jobs;
  for (size_t i = 0; i < n; ++i) {
    JobSpec j = spec(rng() % 2 ? "A" : "B", "m" + std::to_string(rng() % 5),
                     1 << static_cast<int>(rng() % 4));
    j.id = std::to_string(i);
    j.submit = static_cast<Seconds>(rng() % 100000);
    j.duration = static_cast<Seconds>(1 + rng() % 20000);
    jobs.push_back(j);
  }
  return jobs;
}

TEST(RuntimePredictor, Deterministic) {
  const auto jobs = random_trace(7, 2000);
  std::vector<Prediction> a, b;
  const PredictionReport ra = replay_predictions(jobs, {}, &a);
  const PredictionReport rb = replay_predictions(jobs, {}, &b);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].seconds, b[i].seconds);
    EXPECT_EQ(a[i].level, b[i].level);
  }
  EXPECT_EQ(ra.mae_s, rb.mae_s);
  EXPECT_EQ(ra.jobs, 2000u);
}

TEST(RuntimePredictor, ReplayUsesOnlyJobsCompletedByEachArrival) {
  // One key (same team, name, gpus), min 1 sample, a window larger than the trace: each
  // prediction must be the median of exactly the jobs with submit + duration <= its submit.
  auto jobs = random_trace(11, 400);
  for (JobSpec& j : jobs) {
    j.team = "A";
    j.name = "N";
    j.gpus = 1;
  }
  std::vector<Prediction> got;
  replay_predictions(jobs, PredictorOptions{0.5, 1, 1000, 3600}, &got);
  for (size_t i = 0; i < jobs.size(); ++i) {
    std::vector<double> done;
    for (const JobSpec& o : jobs)
      if (o.submit + o.duration <= jobs[i].submit) done.push_back(o.duration);
    if (done.empty()) {
      EXPECT_EQ(got[i].level, PredictionLevel::kDefault) << i;
      continue;
    }
    std::sort(done.begin(), done.end());
    const size_t m = done.size() / 2;
    const double median = done.size() % 2 ? done[m] : (done[m - 1] + done[m]) / 2;
    EXPECT_DOUBLE_EQ(got[i].seconds, median) << i;
    EXPECT_EQ(got[i].samples, done.size()) << i;
  }
}

TEST(PredictionErrors, Metrics) {
  PredictionErrors e;
  e.add(100, 100, PredictionLevel::kName);    // exact
  e.add(50, 100, PredictionLevel::kName);     // under, within 2x, 50%
  e.add(300, 100, PredictionLevel::kGlobal);  // over, not within 2x, 200%
  e.add(10, 100, PredictionLevel::kDefault);  // under, not within 2x, 90%
  const PredictionReport r = e.report();
  EXPECT_EQ(r.jobs, 4u);
  EXPECT_DOUBLE_EQ(r.mae_s, (0 + 50 + 200 + 90) / 4.0);
  EXPECT_DOUBLE_EQ(r.median_abs_pct_error, 70);
  EXPECT_DOUBLE_EQ(r.within_2x_share, 0.5);
  EXPECT_DOUBLE_EQ(r.underestimate_share, 0.5);
  EXPECT_EQ(r.by_level[static_cast<size_t>(PredictionLevel::kName)], 2u);
}

}  // namespace
}  // namespace frugal
