#include "policy/queue_sort.h"

namespace frugal {
namespace {

class ArrivalSort final : public QueueSort {
 public:
  std::string name() const override { return "arrival"; }
  QueueKey key(const JobRuntime& j) const override { return {j.spec->submit, 0, j.seq, 0}; }
};

class ShortestSort final : public QueueSort {
 public:
  std::string name() const override { return "shortest"; }
  QueueKey key(const JobRuntime& j) const override {
    return {j.spec->runtime_estimate(), j.spec->submit, j.seq, 0};
  }
};

class LasSort final : public QueueSort {
 public:
  explicit LasSort(std::vector<double> t) : thresholds_(std::move(t)) {}
  std::string name() const override { return "las"; }
  QueueKey key(const JobRuntime& j) const override {
    return {static_cast<double>(j.las_level), j.las_enter, j.seq, 0};
  }
  std::vector<double> service_thresholds() const override { return thresholds_; }

 private:
  std::vector<double> thresholds_;
};

}  // namespace

std::unique_ptr<QueueSort> make_arrival_sort() {
  return std::make_unique<ArrivalSort>();
}
std::unique_ptr<QueueSort> make_shortest_sort() {
  return std::make_unique<ShortestSort>();
}
std::unique_ptr<QueueSort> make_las_sort(std::vector<double> thresholds) {
  return std::make_unique<LasSort>(std::move(thresholds));
}

}  // namespace frugal
