#pragma once
// Deferral claims: the GPUs the time-shifter has already promised, per on-demand cost
// centre, to the jobs it deferred.
//
// Deferring every job to the same cheap hour can ask an on-demand pool for more GPUs than it
// has: the autoscaler stops at the pool's nodes, the late jobs queue behind the early ones
// and a job that was safe on paper misses its deadline (measured on the Pollux cluster, whose
// H100 pool holds 64 GPUs: docs/EXPERIMENTS.md). The time-shift admit therefore records,
// for each job it defers, the GPUs it expects the job to hold on each centre it was priced
// on over the expected run (`claim`), and gives a later job a start only where the GPUs
// already claimed at every instant of its run, plus its own, fit in the centre
// (`peak` + gpus <= the centre's GPUs). Only deferred work is counted: jobs that start at
// once are not claims, and capacity they hold is not predicted. Reserved and owned centres
// are not checked (work that does not fit there overflows onto on-demand capacity).
//
// A job holds at most one set of claims: claiming again (a job admitted again) replaces
// them, and its own claims never block it. Claims that ended at or before `now` are
// dropped by expire(); a job cancelled while deferred keeps its claims until then (the
// admit is not told of cancellations: a claim is a forecast, and placement decides where
// a released job runs). Deterministic: the answer depends only on the claims made.

#include <string>
#include <vector>

#include "model/units.h"

namespace frugal {

class DeferralClaims {
 public:
  // Drops every claim of `job`.
  void release(const std::string& job);
  // Records that `job` expects to hold `gpus` GPUs of centre `centre` over [from, to).
  void claim(const std::string& job, uint32_t centre, Seconds from, Seconds to, double gpus);
  // The most GPUs of `centre` claimed at any instant of [from, to) by jobs other than `job`.
  double peak(uint32_t centre, Seconds from, Seconds to, const std::string& job) const;
  // Drops claims that ended at or before `now`.
  void expire(Seconds now);
  size_t size() const { return claims_.size(); }

 private:
  struct Claim {
    std::string job;
    uint32_t centre;
    Seconds from, to;
    double gpus;
  };
  std::vector<Claim> claims_;
};

}  // namespace frugal
