// The soon-free cycle plugin (contract in soon_free.h).

#include "policy/soon_free.h"

#include <algorithm>

namespace frugal {
namespace {

class SoonFree final : public CyclePlugin {
 public:
  explicit SoonFree(SoonFreeOptions o) : o_(o) {}
  std::string name() const override { return "soonfree"; }

  void adjust_demand(const CycleOps& ops, std::vector<double>& demand) override {
    // GPUs that running jobs are expected to free before a new node would be up; a job past
    // its expected end is not counted (ending_after; counting it as freeing "now" kept a
    // queued job waiting on an overrunning job instead of adding a node).
    const Seconds now = ops.now();
    wake_ = kNever;
    for (const auto& [end, j] : ending_after(ops.running_by_end(), now)) {
      const JobRuntime& r = ops.job(j);
      const GpuModelId m = r.placement.model;
      if (m < 0 || static_cast<size_t>(m) >= demand.size() || demand[m] <= 0) continue;
      if (end > now + ops.on_demand_shape().delay[static_cast<size_t>(m)]) {
        if (end > now + o_.horizon_s) break;
        continue;
      }
      demand[m] = std::max(0.0, demand[m] - r.gpus());
      wake_ = std::min(wake_, end);
    }
  }
  // Nothing waits on a running job's end.
  void queue_empty(const CycleOps& ops) override {
    (void)ops;
    wake_ = kNever;
  }
  Seconds next_wakeup(const CycleOps& ops) const override {
    return wake_ > ops.now() ? wake_ : kNever;
  }

 private:
  SoonFreeOptions o_;
  // The earliest expected end counted on in the last autoscaling step (kNever: none).
  Seconds wake_ = kNever;
};

}  // namespace

std::unique_ptr<CyclePlugin> make_soon_free(SoonFreeOptions o) {
  return std::make_unique<SoonFree>(o);
}

}  // namespace frugal
