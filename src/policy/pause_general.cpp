#include "policy/pause_general.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

namespace frugal {
namespace {

class PauseGeneral final : public CyclePlugin {
 public:
  explicit PauseGeneral(std::vector<std::string> on) : on_(std::move(on)) {}
  std::string name() const override { return "pause"; }

  std::string hold(const CycleView& v, const JobRuntime& r) const override {
    if (r.spec->tier != Tier::kGeneral || v.conditions().empty()) return {};
    return pause_reason(on_, v.conditions(), r.spec->team);
  }

 private:
  std::vector<std::string> on_;
};

}  // namespace

std::vector<std::string> paused_by(const std::vector<std::string>& on,
                                   const std::set<std::string>& conditions,
                                   const std::string& team) {
  std::vector<std::string> out;
  for (const std::string& rule : on)
    if (conditions.count(team.empty() ? rule : rule + "@" + team) != 0) out.push_back(rule);
  return out;
}

std::string pause_reason(const std::vector<std::string>& on,
                         const std::set<std::string>& conditions, const std::string& team) {
  std::vector<std::string> causes = paused_by(on, conditions);
  if (!team.empty())
    for (const std::string& rule : paused_by(on, conditions, team))
      causes.push_back(fmt::format("{} (team {})", rule, team));
  if (causes.empty()) return {};
  return fmt::format("general tier paused: {}", fmt::join(causes, ", "));
}

std::unique_ptr<CyclePlugin> make_pause_general(std::vector<std::string> on) {
  return std::make_unique<PauseGeneral>(std::move(on));
}

}  // namespace frugal
