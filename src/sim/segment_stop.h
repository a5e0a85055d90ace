#pragma once
// The progress model's stop of a run segment (sim/simulator.h), shared by the simulator and
// the shadows (sim/shadow.h): computing ended at the checkpoint signal when there was one
// (the grace after it is paid checkpoint time, not rework); of the productive time after a
// restart, work is kept up to the last periodic checkpoint — all of it when the stop's
// checkpoint was `saved` or the job has no checkpoint interval.

#include <algorithm>
#include <cmath>

#include "model/units.h"

namespace frugal {

struct SegmentStop {
  Seconds ran = 0;     // the segment's length (paid)
  Seconds worked = 0;  // until the signal, or the stop
  Seconds kept = 0;    // productive seconds whose work survives
};

// A segment begun at `start` whose first `restart_s` make no progress, signalled at
// `signal_at` (< 0: not), stopped at `t`.
inline SegmentStop segment_stop(Seconds start, Seconds restart_s, Seconds signal_at, Seconds t,
                                Seconds checkpoint_interval, bool saved) {
  SegmentStop s;
  s.ran = t - start;
  s.worked = (signal_at >= 0 ? signal_at : t) - start;
  const Seconds productive = std::max(0.0, s.worked - restart_s);
  s.kept = saved || checkpoint_interval <= 0
               ? productive
               : std::floor(productive / checkpoint_interval) * checkpoint_interval;
  return s;
}

}  // namespace frugal
