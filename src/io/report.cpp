#include "io/report.h"

#include <fmt/format.h>

namespace frugal {
namespace {

nlohmann::json dist_json(const Distribution& d) {
  return {{"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"p99", d.p99}};
}

std::string human_seconds(double s) {
  if (s < 120) return fmt::format("{:.0f}s", s);
  if (s < 7200) return fmt::format("{:.1f}m", s / 60);
  if (s < 172800) return fmt::format("{:.1f}h", s / 3600);
  return fmt::format("{:.1f}d", s / 86400);
}

}  // namespace

nlohmann::json to_json(const Summary& s) {
  nlohmann::json j = {
      {"policy", s.policy},
      {"profile", s.profile},
      {"jobs",
       {{"submitted", s.submitted}, {"completed", s.completed}, {"unschedulable", s.unschedulable}}},
      {"jct_s", dist_json(s.jct_s)},
      {"wait_s", dist_json(s.wait_s)},
      {"makespan_s", s.makespan_s},
      {"gpu_utilization", s.gpu_utilization},
      {"preemptions", s.preemptions},
      {"rework_gpu_hours", s.rework_gpu_hours},
      {"node_failures", s.node_failures},
      {"sim", {{"wall_s", s.wall_s}, {"events", s.events}}},
  };
  if (!s.first_unschedulable_reason.empty())
    j["jobs"]["first_unschedulable_reason"] = s.first_unschedulable_reason;
  if (!s.invariant_violation.empty()) j["invariant_violation"] = s.invariant_violation;
  return j;
}

std::string to_table(const std::vector<Summary>& runs) {
  std::string out = fmt::format("{:<18} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>8} {:>8}\n",
                                "policy", "done", "unsched", "jct mean", "jct p50", "jct p99",
                                "wait mean", "makespan", "util", "preempt", "wall");
  for (const Summary& s : runs) {
    out += fmt::format("{:<18} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>5.1f}% {:>8} {:>7.2f}s\n",
                       s.policy, s.completed, s.unschedulable, human_seconds(s.jct_s.mean),
                       human_seconds(s.jct_s.p50), human_seconds(s.jct_s.p99),
                       human_seconds(s.wait_s.mean), human_seconds(s.makespan_s),
                       100 * s.gpu_utilization, s.preemptions, s.wall_s);
  }
  for (const Summary& s : runs)
    if (!s.invariant_violation.empty())
      out += fmt::format("INVARIANT VIOLATED in {}: {}\n", s.policy, s.invariant_violation);
  return out;
}

}  // namespace frugal
