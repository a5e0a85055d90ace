#pragma once
// Checkpoint lifecycle planning: which checkpoints stay on the hot tier, which move to warm
// or cold, and which are deleted, under a LifecyclePolicy. Pure (no clock, no I/O): the live
// storage manager (storage/) carries the plan out on real folders, the simulator
// (sim/, cost/) prices it, so both follow the same rules.
//
// Rules, per job, over its checkpoints ordered by `step` (ties: completed_at, then name):
//   - an incomplete checkpoint (being written: completed_at < 0) is never touched;
//   - the newest complete checkpoint of a job that can still restart is never deleted;
//   - the `keep_hot` newest complete checkpoints stay where they are (never demoted; this
//     does not shield them from deletion);
//   - an older complete one moves to warm once warm_after_s has passed since its completion
//     (age >= warm_after_s), and to cold once cold_after_s has (straight to cold when both
//     have; a move only goes down: hot → warm → cold, never up);
//   - a complete one is deleted when `retain_count` or more newer complete ones exist
//     (retain_count > 0: exactly the newest retain_count are kept) or when older than
//     retain_age_s (age > retain_age_s > 0), unless protected by the first two rules.
// Incomplete checkpoints do not count as newer ones for keep_hot or retain_count.
// Deleting wins over moving. The plan is deterministic: actions are sorted by (job, step, name).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace frugal::storage {

enum class Tier { hot, warm, cold };
const char* tier_name(Tier t);
// "hot" | "warm" | "cold"; false for anything else.
bool parse_tier(const std::string& s, Tier& out);

struct CheckpointInfo {
  std::string job;           // job id
  std::string team;          // owning team (picks the policy)
  std::string name;          // the checkpoint's folder name, e.g. "step-000100"
  int64_t step = 0;          // ordering key within the job
  double completed_at = -1;  // seconds; < 0: not complete (being written)
  Tier tier = Tier::hot;
  uint64_t bytes = 0;
};

struct LifecyclePolicy {
  int keep_hot = 2;                   // newest complete checkpoints kept where they are
  double warm_after_s = 6 * 3600.0;   // since completion (< 0: never to warm)
  double cold_after_s = 7 * 86400.0;  // since completion (< 0: never to cold)
  int retain_count = 0;               // complete checkpoints kept per job (0: no limit)
  double retain_age_s = 0;            // delete complete ones older than this (0: never)
};

enum class ActionKind { move, remove };

struct LifecycleAction {
  ActionKind kind = ActionKind::move;
  size_t index = 0;     // into the input vector
  Tier to = Tier::hot;  // for a move
  std::string reason;   // e.g. "older than warm_after_s (21600 s)", "beyond retain_count 5"
};

// policy_for(team) picks the policy of a checkpoint's team; can_restart(job) says whether the
// job may still run again (queued, running, preempted); a finished or cancelled job's newest
// checkpoint is not protected.
std::vector<LifecycleAction> plan_lifecycle(
    const std::vector<CheckpointInfo>& checkpoints,
    const std::function<const LifecyclePolicy&(const std::string& team)>& policy_for, double now,
    const std::function<bool(const std::string& job)>& can_restart);

}  // namespace frugal::storage
