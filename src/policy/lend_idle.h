#pragma once
// Sharing measured idle, at the Lend point (framework/cycle_plugin.h). A running job that
// consents (JobSpec::lend_idle, or any general-tier job with `general_lends`) and whose own
// measured use (CycleView::job_use, framework/telemetry.h) stayed below `lend_below` busy
// (its peak sample) and `memory_below` of card memory for at least `window_s` lends each of
// its whole cards: a queued JobSpec::opportunistic job (one card, fractional or general
// tier) that the queue walk could not place starts there as a guest (Engine::start_guest),
// its share — the MPS limit the driver sets — equal to the measured headroom (1 - peak,
// in whole percent), one guest per card, the largest share first. Guests hold no cluster
// capacity, so the host's allocation and every invariant are unchanged (engine_guests.cpp).
//
// Recalled (kPreempt, requeued) the cycle after the host's newest sample is above
// `return_above`, or its card's memory (the node's reading: host and guest together) is
// above `memory_below`; always before the host stops or moves. A guest's declared
// gpu_memory_mib must fit under memory_below beside the host's peak.
// Live only: simulation has no telemetry, so nothing lends there.

#include <memory>

#include "framework/cycle_plugin.h"

namespace frugal {

struct LendOptions {
  double lend_below = 0.5;
  double memory_below = 0.8;
  Seconds window_s = 300;
  double return_above = 0.75;
  double min_headroom = 0.2;  // a share smaller than this is not lent
  bool general_lends = false;
  size_t examined = 256;  // queued jobs looked at per cycle for opportunistic ones
};

std::unique_ptr<CyclePlugin> make_lend_idle(LendOptions options);

}  // namespace frugal
