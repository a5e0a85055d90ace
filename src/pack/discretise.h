#pragma once
// Per-event counters → one value per integer arrived-load percentage 0..130, exactly as the
// artifact's experiments/analysis/merge_{alloc,frag,frag_ratio}_discrete.py:
//   arrive% = round(arrived_milli / total_gpus / 10)   (round half to even, as numpy)
//   level x takes the events with arrive% == x, or, when there are none, those with
//   arrive% in [x − 1, x + 1]; with none either the level is missing.
//   alloc%  = round2(mean(round2(used_milli / total_gpus / 10)))
//   frag%   = round2(100 · mean(frag_milli) / 1000 / total_gpus)   (Fig. 7a, % of capacity)
//   ratio%  = round2(mean(100 · frag_milli / idle_milli))          (Fig. 7b)
//   migrations = the cumulative migrations at the level's last event (0 without migrations)

#include <array>
#include <cstdint>

#include "pack/fill_engine.h"

namespace frugal::pack {

inline constexpr int kLevels = 131;  // 0..130 % arrived

struct LevelSeries {
  std::array<bool, kLevels> has{};
  std::array<double, kLevels> alloc{};
  std::array<double, kLevels> frag{};
  std::array<double, kLevels> ratio{};
  std::array<double, kLevels> migrations{};
};

// numpy's round(x, 2).
double round2(double x);

// The arrive% an event is binned under: round_half_even(arrived_milli / total_gpus / 10).
double arrived_level(int64_t arrived_milli, int64_t total_gpus);

LevelSeries discretise(const FillEvents& events);

}  // namespace frugal::pack
