#pragma once
// The steps of a crash-safe move between tiers, and the fault-injection hook called before
// each (tests kill the process there; production passes none).

#include <functional>

namespace frugal::storage {

// In order. `journal` is the write of the move's journal entry (before any file is touched);
// `finish` is the removal of the journal entry once the source is gone.
enum class MoveStep { journal, copy, fsync, verify, rename, record, delete_source, finish };
inline constexpr int kMoveSteps = 8;

const char* move_step_name(MoveStep s);

using FaultHook = std::function<void(MoveStep)>;

}  // namespace frugal::storage
