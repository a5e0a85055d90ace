#include "service/job_lifecycle.h"

#include <array>

namespace frugal {
namespace {

using S = JobStatus;
using E = JobEvent;

constexpr JobTransition kTable[] = {
    // Waiting: queued, deferred, or preempted (stopped, will restart).
    {S::kQueued, E::kDefer, S::kDeferred},
    {S::kPreempted, E::kDefer, S::kDeferred},
    {S::kDeferred, E::kDefer, S::kDeferred},  // deferred again, to a later hour
    {S::kDeferred, E::kDeferralEnd, S::kQueued},
    {S::kQueued, E::kStart, S::kRunning},
    {S::kDeferred, E::kStart, S::kRunning},
    {S::kPreempted, E::kStart, S::kRunning},
    {S::kQueued, E::kReject, S::kFailed},
    {S::kDeferred, E::kReject, S::kFailed},
    {S::kPreempted, E::kReject, S::kFailed},
    {S::kQueued, E::kCancel, S::kCancelled},
    {S::kDeferred, E::kCancel, S::kCancelled},
    {S::kPreempted, E::kCancel, S::kCancelled},
    {S::kQueued, E::kRequeue, S::kQueued},
    {S::kDeferred, E::kRequeue, S::kQueued},
    {S::kPreempted, E::kRequeue, S::kQueued},
    // Running.
    {S::kRunning, E::kPreempt, S::kPreempted},
    {S::kRunning, E::kRunLost, S::kPreempted},
    {S::kRunning, E::kExitOk, S::kCompleted},
    {S::kRunning, E::kExitFail, S::kFailed},
    {S::kRunning, E::kCancel, S::kCancelled},
    {S::kRunning, E::kRunUnknown, S::kUnknown},
};

constexpr std::array<std::string_view, kJobEventCount> kEventNames = {
    "defer",     "deferral_end", "start",  "preempt", "run_lost",   "exit_ok",
    "exit_fail", "reject",       "cancel", "requeue", "run_unknown"};

}  // namespace

std::string_view to_string(JobEvent e) {
  return kEventNames[static_cast<size_t>(e)];
}

std::span<const JobTransition> job_transitions() {
  return kTable;
}

std::optional<JobStatus> next_state(JobStatus from, JobEvent event) {
  for (const JobTransition& t : kTable)
    if (t.from == from && t.event == event) return t.to;
  return std::nullopt;
}

}  // namespace frugal
