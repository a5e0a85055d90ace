#pragma once
// The general-tier pause, at the Hold point (framework/cycle_plugin.h): while a condition it
// is given is in force (Engine::set_conditions; the service reports its active alert rules
// and configures `pause_general.on`), queued general-tier jobs wait out of the queue. Core
// and important work is never held; running jobs are left alone (the service checkpoints and
// requeues them when asked, pause_general.requeue_running). A condition "rule@team" (an alert
// about one team, e.g. its budget_burn) holds that team's general-tier jobs only. When none
// is in force any more, the held jobs re-enter the queue. The tier is the job's own
// (JobSpec::tier): a general job that starved is still general. Live only: the service adds
// it from `pause_general`.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "framework/cycle_plugin.h"

namespace frugal {

// The rules of `on` in force under `conditions`, in `on`'s order: for everyone ("rule")
// when `team` is "", else for that team alone ("rule@team").
std::vector<std::string> paused_by(const std::vector<std::string>& on,
                                   const std::set<std::string>& conditions,
                                   const std::string& team = "");

// Why general-tier work of `team` is paused under `conditions` ("general tier paused:
// budget_burn, node_hot (team alpha)"), or "" when it is not.
std::string pause_reason(const std::vector<std::string>& on,
                         const std::set<std::string>& conditions, const std::string& team);

// `on`: the condition names that pause the tier (not empty).
std::unique_ptr<CyclePlugin> make_pause_general(std::vector<std::string> on);

}  // namespace frugal
