#include "policy/post_filter.h"

#include <algorithm>
#include <cmath>

namespace frugal {
namespace {

class StrictPostFilter final : public PostFilter {
 public:
  std::string name() const override { return "strict"; }
  void begin_cycle(const CycleView&) override {}
  Flow blocked(const CycleView&, const JobRuntime&, const Candidates&) override {
    return Flow::kStop;
  }
  bool may_start(const CycleView&, const JobRuntime&, const Placement&) override { return true; }
};

class SkipPostFilter final : public PostFilter {
 public:
  std::string name() const override { return "skip"; }
  void begin_cycle(const CycleView&) override {}
  Flow blocked(const CycleView&, const JobRuntime&, const Candidates&) override {
    return Flow::kContinue;
  }
  bool may_start(const CycleView&, const JobRuntime&, const Placement&) override { return true; }
};

// GPUs (in milli) of the models in `c` held by a running job.
int64_t held_of(const JobRuntime& r, const Candidates& c) {
  if (std::find(c.models.begin(), c.models.end(), r.placement.model) == c.models.end()) return 0;
  return r.spec->total_milli();
}

class EasyBackfill final : public PostFilter {
 public:
  explicit EasyBackfill(size_t max_jobs) : max_jobs_(max_jobs) {}
  std::string name() const override { return "easy-backfill"; }
  void begin_cycle(const CycleView&) override { reserved_ = false; }

  Flow blocked(const CycleView& v, const JobRuntime& j, const Candidates& c) override {
    if (reserved_) return Flow::kContinue;
    // Reservation for the first blocked job: walk running jobs by expected end until the
    // GPUs of its candidate models that are free plus those freed cover its demand.
    reserved_ = true;
    models_ = c;
    int64_t free = 0;
    for (GpuModelId m : c.models) free += v.cluster().free_whole_of(m) * kMilliPerGpu;
    const int64_t need = j.spec->total_milli();
    shadow_ = kNever;
    for (const auto& [end, idx] : ending_after(v.running_by_end(), v.now())) {
      free += held_of(v.job(idx), c);
      if (free >= need) {
        shadow_ = end;
        break;
      }
    }
    extra_ = shadow_ == kNever ? 0 : free - need;
    return Flow::kContinue;
  }

  bool may_start(const CycleView& v, const JobRuntime& j, const Placement& p) override {
    if (!reserved_) return true;
    const double speed = std::max(v.speed(*j.spec, p.model), 1e-9);
    const Seconds end = v.now() + (j.spec->runtime_estimate() - j.progress_ref_s) / speed;
    // The GPUs a checkpoint-first preemption is freeing are held for the job it preempted
    // for: a job still running when a draining victim stops does not start on its node.
    for (NodeId n : p.nodes())
      for (JobIdx k : v.jobs_on(n)) {
        const JobRuntime& o = v.job(k);
        if (o.signalled() && end > o.stop_at) return false;
      }
    if (end <= shadow_) return true;
    // Would still run at the shadow time: only GPUs beyond the reservation's need.
    if (std::find(models_.models.begin(), models_.models.end(), p.model) == models_.models.end())
      return true;  // does not touch the reserved models
    const int64_t use = j.spec->total_milli();
    if (use > extra_) return false;
    extra_ -= use;
    return true;
  }
  size_t max_examined() const override { return max_jobs_; }

 private:
  size_t max_jobs_;
  bool reserved_ = false;
  Candidates models_;
  Seconds shadow_ = kNever;
  int64_t extra_ = 0;
};

}  // namespace

std::unique_ptr<PostFilter> make_strict_post_filter() {
  return std::make_unique<StrictPostFilter>();
}
std::unique_ptr<PostFilter> make_skip_post_filter() {
  return std::make_unique<SkipPostFilter>();
}
std::unique_ptr<PostFilter> make_easy_backfill(size_t max_jobs) {
  return std::make_unique<EasyBackfill>(max_jobs);
}

}  // namespace frugal
