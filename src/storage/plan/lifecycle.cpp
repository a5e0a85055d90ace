#include "storage/plan/lifecycle.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace frugal::storage {

const char* tier_name(Tier t) {
  switch (t) {
    case Tier::hot:
      return "hot";
    case Tier::warm:
      return "warm";
    case Tier::cold:
      return "cold";
  }
  return "hot";
}

bool parse_tier(const std::string& s, Tier& out) {
  if (s == "hot") {
    out = Tier::hot;
  } else if (s == "warm") {
    out = Tier::warm;
  } else if (s == "cold") {
    out = Tier::cold;
  } else {
    return false;
  }
  return true;
}

namespace {

// A checkpoint's place in its job: how many newer complete checkpoints the job has.
struct Ranked {
  size_t index = 0;
  size_t newer = 0;  // complete checkpoints of the same job after this one
};

bool ordered_before(const CheckpointInfo& a, const CheckpointInfo& b) {
  return std::tie(a.step, a.completed_at, a.name) < std::tie(b.step, b.completed_at, b.name);
}

// Per job, its complete checkpoints oldest first with their rank from the newest.
std::map<std::string, std::vector<Ranked>> rank_complete(const std::vector<CheckpointInfo>& cps) {
  std::map<std::string, std::vector<size_t>> by_job;
  for (size_t i = 0; i < cps.size(); ++i) {
    if (cps[i].completed_at >= 0) by_job[cps[i].job].push_back(i);
  }
  std::map<std::string, std::vector<Ranked>> out;
  for (auto& [job, idx] : by_job) {
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t a, size_t b) { return ordered_before(cps[a], cps[b]); });
    auto& ranked = out[job];
    for (size_t k = 0; k < idx.size(); ++k) ranked.push_back({idx[k], idx.size() - 1 - k});
  }
  return out;
}

std::string seconds_text(double s) {
  return fmt::format("{:.0f} s", s);
}

// Why a complete checkpoint is deleted, or nothing when it is kept.
std::optional<std::string> delete_reason(const LifecyclePolicy& p, size_t newer, double age) {
  if (p.retain_count > 0 && newer >= static_cast<size_t>(p.retain_count)) {
    return fmt::format("beyond retain_count {}", p.retain_count);
  }
  if (p.retain_age_s > 0 && age > p.retain_age_s) {
    return fmt::format("older than retain_age_s ({})", seconds_text(p.retain_age_s));
  }
  return std::nullopt;
}

// The tier an unprotected complete checkpoint of this age belongs on, with the reason.
std::optional<std::pair<Tier, std::string>> aged_tier(const LifecyclePolicy& p, double age) {
  if (p.cold_after_s >= 0 && age >= p.cold_after_s) {
    return std::pair{Tier::cold,
                     fmt::format("older than cold_after_s ({})", seconds_text(p.cold_after_s))};
  }
  if (p.warm_after_s >= 0 && age >= p.warm_after_s) {
    return std::pair{Tier::warm,
                     fmt::format("older than warm_after_s ({})", seconds_text(p.warm_after_s))};
  }
  return std::nullopt;
}

std::optional<LifecycleAction> plan_one(const CheckpointInfo& cp, const Ranked& r,
                                        const LifecyclePolicy& p, double now, bool restartable) {
  const double age = now - cp.completed_at;
  const bool protected_newest = r.newer == 0 && restartable;
  if (!protected_newest) {
    if (auto why = delete_reason(p, r.newer, age)) {
      return LifecycleAction{ActionKind::remove, r.index, cp.tier, *why};
    }
  }
  if (p.keep_hot > 0 && r.newer < static_cast<size_t>(p.keep_hot)) return std::nullopt;
  auto target = aged_tier(p, age);
  if (!target || target->first <= cp.tier) return std::nullopt;
  return LifecycleAction{ActionKind::move, r.index, target->first, target->second};
}

}  // namespace

std::vector<LifecycleAction> plan_lifecycle(
    const std::vector<CheckpointInfo>& checkpoints,
    const std::function<const LifecyclePolicy&(const std::string& team)>& policy_for, double now,
    const std::function<bool(const std::string& job)>& can_restart) {
  std::vector<LifecycleAction> actions;
  for (const auto& [job, ranked] : rank_complete(checkpoints)) {
    const bool restartable = can_restart(job);
    for (const Ranked& r : ranked) {
      const CheckpointInfo& cp = checkpoints[r.index];
      auto a = plan_one(cp, r, policy_for(cp.team), now, restartable);
      if (a) actions.push_back(std::move(*a));
    }
  }
  std::sort(
      actions.begin(), actions.end(), [&](const LifecycleAction& a, const LifecycleAction& b) {
        const CheckpointInfo& x = checkpoints[a.index];
        const CheckpointInfo& y = checkpoints[b.index];
        return std::tie(x.job, x.step, x.name, a.index) < std::tie(y.job, y.step, y.name, b.index);
      });
  return actions;
}

}  // namespace frugal::storage
