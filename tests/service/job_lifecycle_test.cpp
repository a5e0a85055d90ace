// The job lifecycle table (service/job_lifecycle.h), checked against the lifecycle written
// out once more here, pair by pair: every (state, event) pair of 8 states x 11 events.

#include "service/job_lifecycle.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <utility>

namespace frugal {
namespace {

using S = JobStatus;
using E = JobEvent;

TEST(JobLifecycle, EveryStateEventPairIsAllowedOrRefusedAsSpecified) {
  // What each waiting state may do; running has its own row; final states do nothing.
  const std::map<E, S> waiting = {{E::kDefer, S::kDeferred},
                                  {E::kStart, S::kRunning},
                                  {E::kReject, S::kFailed},
                                  {E::kCancel, S::kCancelled},
                                  {E::kRequeue, S::kQueued}};
  const std::map<E, S> running = {{E::kPreempt, S::kPreempted}, {E::kRunLost, S::kPreempted},
                                  {E::kExitOk, S::kCompleted},  {E::kExitFail, S::kFailed},
                                  {E::kCancel, S::kCancelled},  {E::kRunUnknown, S::kUnknown}};
  size_t pairs = 0, allowed = 0;
  for (size_t si = 0; si < kJobStatusCount; ++si) {
    const auto s = static_cast<S>(si);
    for (size_t ei = 0; ei < kJobEventCount; ++ei) {
      const auto e = static_cast<E>(ei);
      SCOPED_TRACE(std::string(to_string(s)) + " + " + std::string(to_string(e)));
      std::optional<S> want;
      if (s == S::kQueued || s == S::kDeferred || s == S::kPreempted) {
        if (const auto it = waiting.find(e); it != waiting.end()) want = it->second;
        if (s == S::kDeferred && e == E::kDeferralEnd) want = S::kQueued;
      } else if (s == S::kRunning) {
        if (const auto it = running.find(e); it != running.end()) want = it->second;
      }
      EXPECT_EQ(next_state(s, e), want);
      ++pairs;
      allowed += want.has_value();
    }
  }
  EXPECT_EQ(pairs, 88u);
  EXPECT_EQ(allowed, job_transitions().size());
}

TEST(JobLifecycle, TableHasEachPairOnceAndFinalStatesAreFinal) {
  std::set<std::pair<S, E>> seen;
  for (const JobTransition& t : job_transitions()) {
    EXPECT_TRUE(seen.emplace(t.from, t.event).second)
        << to_string(t.from) << " + " << to_string(t.event) << " twice";
    EXPECT_FALSE(is_final(t.from)) << to_string(t.from);
  }
}

TEST(JobLifecycle, EventNamesAreDistinct) {
  std::set<std::string_view> names;
  for (size_t e = 0; e < kJobEventCount; ++e) names.insert(to_string(static_cast<E>(e)));
  EXPECT_EQ(names.size(), kJobEventCount);
  EXPECT_EQ(to_string(E::kExitOk), "exit_ok");
}

}  // namespace
}  // namespace frugal
