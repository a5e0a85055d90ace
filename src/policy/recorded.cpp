#include "policy/recorded.h"

#include <fmt/format.h>

#include "policy/admit_filter.h"

namespace frugal {
namespace {

Seconds recorded_or_submit(const JobSpec& job) {
  return job.recorded_start >= 0 ? job.recorded_start : job.submit;
}

class RecordedSort final : public QueueSort {
 public:
  std::string name() const override { return "recorded-start"; }
  QueueKey key(const JobRuntime& j) const override {
    return {recorded_or_submit(*j.spec), j.spec->submit, j.seq, 0};
  }
};

class RecordedAdmit final : public Admit {
 public:
  std::string name() const override { return "recorded-start"; }
  AdmitVerdict admit(const CycleView& v, const JobRuntime& j) const override {
    AdmitVerdict verdict = capacity_->admit(v, j);
    if (verdict.kind != AdmitVerdict::Kind::kAdmit) return verdict;
    const Seconds at = j.spec->recorded_start;
    if (at > v.now())
      return AdmitVerdict{AdmitVerdict::Kind::kDefer, at,
                          fmt::format("recorded: it first started at {:.0f} s", at)};
    return verdict;
  }

 private:
  std::unique_ptr<Admit> capacity_ = make_capacity_admit();
};

}  // namespace

std::unique_ptr<QueueSort> make_recorded_sort() {
  return std::make_unique<RecordedSort>();
}
std::unique_ptr<Admit> make_recorded_admit() {
  return std::make_unique<RecordedAdmit>();
}

}  // namespace frugal
