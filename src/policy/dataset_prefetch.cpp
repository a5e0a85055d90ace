#include "policy/dataset_prefetch.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "policy/dataset_locality.h"

namespace frugal {
namespace {

class DatasetPrefetch final : public CyclePlugin {
 public:
  DatasetPrefetch(DatasetOptions o, PrefetchOptions p) : o_(o), p_(p) {}
  std::string name() const override { return "prefetch"; }
  std::vector<std::string> describe_words() const override { return {}; }

  void prefetch(CycleOps& ops) override {
    next_ = kNever;
    const auto& deferred = ops.deferred();
    // Deferrals that ended (or were withdrawn earlier in the order) are forgotten.
    while (!done_.empty() && (deferred.empty() || *done_.begin() < *deferred.begin()))
      done_.erase(done_.begin());
    const DatasetResidency* d = ops.datasets();
    if (d == nullptr) return;
    const Seconds now = ops.now();
    for (const auto& entry : deferred) {
      const Seconds until = entry.first;
      if (until - p_.max_lead_s > now) {
        next_ = std::min(next_, until - p_.max_lead_s);
        break;
      }
      if (done_.count(entry) == 0) consider(ops, *d, entry);
    }
  }

  Seconds next_wakeup(const CycleOps& ops) const override {
    return next_ > ops.now() ? next_ : kNever;
  }

 private:
  void consider(CycleOps& ops, const DatasetResidency& d, const std::pair<Seconds, JobIdx>& entry) {
    const auto [until, j] = entry;
    const JobSpec& job = *ops.job(j).spec;
    if (job.datasets.empty() && job.dataset.empty()) return;
    const double gb = d.job_gb(job);
    if (!(gb > 0)) return;
    const double bw = d.min_bandwidth(o_.staging_gb_per_s);
    const Seconds lead = std::min(p_.max_lead_s, (bw > 0 ? gb / bw : 0) + o_.prefetch_margin_s);
    const Seconds now = ops.now();
    if (now < until - lead) {
      next_ = std::min(next_, until - lead);
      return;
    }
    std::optional<Placement> target = ops.try_place(ops.cluster(), job);
    if (target)
      if (std::optional<Placement> q = prefer_local(ops, job, *target, o_)) target = std::move(q);
    if (!target || target->slots.empty()) {
      if (now + p_.retry_s < until) next_ = std::min(next_, now + p_.retry_s);
      return;
    }
    const StagingCost c = staging_cost(ops.cluster(), d, job, target->slots.front().node, o_);
    std::string reason =
        fmt::format("stage {} ({:.0f} GB missing, ~{:.0f} s) before the planned start at t={:.0f}",
                    fmt::join(DatasetResidency::job_datasets(job), ", "), c.gb, c.seconds, until);
    if (ops.prefetch(j, *target, until, std::move(reason)).ok()) done_.insert(entry);
  }

  DatasetOptions o_;
  PrefetchOptions p_;
  std::set<std::pair<Seconds, JobIdx>> done_;  // deferrals already prefetched
  Seconds next_ = kNever;
};

}  // namespace

std::unique_ptr<CyclePlugin> make_dataset_prefetch(DatasetOptions o, PrefetchOptions p) {
  return std::make_unique<DatasetPrefetch>(o, p);
}

}  // namespace frugal
