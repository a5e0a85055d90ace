#pragma once
// Basic units shared by every part of frugal.
// Time is a double count of seconds since an arbitrary epoch (a trace's start, or the Unix
// epoch in live mode); the engine never reads a clock, it is handed `now` with each event.
// GPU capacity is counted in milli-GPU: 1000 = one whole card.

#include <cstdint>
#include <limits>

namespace frugal {

using Seconds = double;
inline constexpr Seconds kNever = std::numeric_limits<double>::infinity();

using Milli = int32_t;
inline constexpr Milli kMilliPerGpu = 1000;

using JobIdx = uint32_t;     // dense index of a job inside one engine / simulation
using NodeId = uint32_t;     // dense index of a node in a ClusterSpec
using GpuModelId = int16_t;  // index into a GpuCatalog; kNoGpuModel = CPU-only / unknown
inline constexpr GpuModelId kNoGpuModel = -1;

}  // namespace frugal
