#include "engine/churn_guard.h"

#include <fmt/format.h>
#include <algorithm>

namespace frugal {

bool ChurnGuard::record(Seconds now, const std::vector<Decision>& out, size_t bound,
                        const std::function<std::string(JobIdx)>& name) {
  if (tripped_) return false;
  if (std::any_of(out.begin(), out.end(),
                  [](const Decision& d) { return d.kind == Decision::Kind::kStart; })) {
    open_ = false;
    return false;
  }
  if (out.empty()) return false;
  if (!open_ || now - since_ > kWindowS) {
    open_ = true;
    since_ = now;
    count_ = 0;
    kinds_.clear();
    jobs_.clear();
  }
  for (const Decision& d : out) {
    ++count_;
    ++kinds_[d.kind];
    ++jobs_[d.job];
  }
  if (count_ <= bound) return false;
  std::string kinds;
  for (const auto& [k, n] : kinds_)
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, to_string(k));
  std::vector<std::pair<JobIdx, size_t>> busiest(jobs_.begin(), jobs_.end());
  std::stable_sort(busiest.begin(), busiest.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string who;
  const size_t shown = std::min<size_t>(busiest.size(), 10);
  for (size_t i = 0; i < shown; ++i)
    who += fmt::format("{}{} ({}x)", i ? ", " : "", name(busiest[i].first), busiest[i].second);
  if (busiest.size() > shown) who += fmt::format(" and {} more", busiest.size() - shown);
  tripped_ = fmt::format(
      "engine stalled: {} decisions between t={:.3f} s and t={:.3f} s with no job started or "
      "ended (bound {}): {}; jobs {}",
      count_, since_, now, bound, kinds, who);
  return true;
}

}  // namespace frugal
