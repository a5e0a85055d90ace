#pragma once
// The service's job lifecycle: every state a job can be in (JobStatus) and every event
// that moves it, as ONE table of allowed transitions. The scheduler changes a job's state
// only through next_state(); each transition is persisted (store: job_transitions) with
// the job's reason, in the same group commit as the state it leads to.
//
// A job is born queued (an accepted submission) or running (a run the backend reports that
// the service did not start); completed, failed, cancelled and unknown are final: no event
// leaves them. Holding a job is not a state: a held job keeps its state, out of the engine's queue,
// until released (kRequeue).

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "service/job_record.h"

namespace frugal {

enum class JobEvent : uint8_t {
  kDefer,        // the engine defers it to a cheaper hour (time-shifting)
  kDeferralEnd,  // its deferral is over: back in the queue
  kStart,        // the engine starts it (a new run segment)
  kPreempt,      // the engine stops it for other work (or a node went down): will restart
  kRunLost,      // its run was gone when the service restarted: will restart
  kExitOk,       // its process exited with status 0
  kExitFail,     // its process failed, was killed or vanished; or it could not be launched
  kReject,       // the engine found it can never run on this cluster
  kCancel,       // cancelled by its team or the admin (a running job: once its run ended)
  kRequeue,      // released from hold or given a new priority: re-enters the queue
  kRunUnknown,   // its run ended unseen and left no exit status: not run again blindly
};
inline constexpr size_t kJobEventCount = 11;
inline constexpr size_t kJobStatusCount = 8;

std::string_view to_string(JobEvent e);

struct JobTransition {
  JobStatus from;
  JobEvent event;
  JobStatus to;
};

// The table (each (from, event) at most once).
std::span<const JobTransition> job_transitions();

// Where `event` takes a job in state `from`; nullopt when the lifecycle does not allow it.
std::optional<JobStatus> next_state(JobStatus from, JobEvent event);

}  // namespace frugal
