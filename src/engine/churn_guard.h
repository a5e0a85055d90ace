// ChurnGuard: stops an engine that keeps deciding without making progress.
//
// Contract. The engine reports each cycle's decisions (record) and every job end
// (progress). A window opens at the first decision after progress; it closes when a job
// starts (a kStart decision), a job ends, or a cycle comes more than kWindowS simulated
// seconds after the window opened. When more than `bound` decisions fall into one window,
// the guard trips: tripped() then holds an error naming the window's time, the decision
// kinds with their counts and the jobs that took part (by trace id, the busiest first), and
// it stays tripped. Deterministic: only simulated time and decisions count, never a clock.
//
// Why a window of simulated time rather than one instant: a loop of rules that undo each
// other (one shrinks a job, another grows it back) can advance time by fractions of a second
// per round (each resize moves the next wake-up a little), which a same-instant count never
// catches. A legitimate burst is bounded by the number of jobs: every elastic job resized
// when off-peak hours end, a node failure stopping its jobs, each job moved a few times in a
// minute at most (a resize or move costs it tens of seconds of progress).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/decision.h"
#include "model/units.h"

namespace frugal {

class ChurnGuard {
 public:
  static constexpr double kWindowS = 60.0;
  // The most decisions one window may hold for an engine that knows `jobs` jobs.
  static size_t bound_for(size_t jobs) { return 10000 + 4 * jobs; }

  // A job started or ended: the window closes.
  void progress() { open_ = false; }
  // One cycle at `now`: `out` are its decisions; `name(j)` gives engine job j's trace id
  // (called only for the message). Returns true when the guard trips on this cycle.
  bool record(Seconds now, const std::vector<Decision>& out, size_t bound,
              const std::function<std::string(JobIdx)>& name);
  const std::optional<std::string>& tripped() const { return tripped_; }

 private:
  bool open_ = false;
  Seconds since_ = 0;
  size_t count_ = 0;
  std::map<Decision::Kind, size_t> kinds_;
  std::map<JobIdx, size_t> jobs_;
  std::optional<std::string> tripped_;
};

}  // namespace frugal
