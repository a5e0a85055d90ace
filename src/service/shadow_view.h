#pragma once
// What the service shows of its shadow policies (service/shadows.h): a snapshot of every
// shadow's counters and figures, taken by the shadows' own thread after it applied a batch of
// live events, and the JSON (GET /v1/shadow) and Prometheus text (frugal_shadow_*) made from
// it with the active policy's real figures beside. Immutable once published: any thread may
// read a snapshot it holds.

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/shadow.h"

namespace frugal {

struct ShadowWindow {
  const char* name;
  double seconds;
};
inline constexpr std::array<ShadowWindow, 3> kShadowWindows = {
    {{"1h", 3600}, {"24h", 86400}, {"7d", 7 * 86400}}};
// Figures per window (kShadowWindows order).
using WindowFigures = std::array<ShadowFigures, kShadowWindows.size()>;

nlohmann::json to_json(const ShadowFigures& f);

// One shadow as of a snapshot.
struct ShadowState {
  std::string policy;
  uint64_t events = 0, cycles = 0;
  size_t jobs = 0;
  Seconds now = 0;                          // the shadow's clock (engine seconds)
  double compute_s = 0, compute_max_s = 0;  // all its calls, and the longest one
  size_t late_ends = 0;
  double late_end_s = 0;
  WindowFigures windows;
  ShadowFigures extra;  // over ShadowView::extra_window_s (the policy guard's window)
};

struct ShadowView {
  std::vector<ShadowState> shadows;  // the active policy's first
  double extra_window_s = 0;         // 0: `extra` not computed
  uint64_t applied = 0;              // events and advances applied when it was taken
  uint64_t queued = 0;               // events and advances given but not yet applied then
  bool own_thread = false;           // the shadows run on their own thread
  std::string stopped;               // why they stopped for good ("" while they run)
};

// GET /v1/shadow's body: per shadow its counters and WindowFigures, and `real` beside.
// `events`: the live events given to the set; `now`: the service's clock (engine seconds).
nlohmann::json to_json(const ShadowView& v, const WindowFigures& real,
                       const std::string& active_policy, uint64_t events, Seconds now);
// frugal_shadow_* families (docs/METRICS.md).
void render_metrics(const ShadowView& v, const WindowFigures& real,
                    const std::string& active_policy, Seconds now, std::string& out);

}  // namespace frugal
