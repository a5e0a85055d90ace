#pragma once
// The service's clock: Unix time in seconds. The scheduler reads the time of day only
// through a Clock, so its tests run on a ManualClock (time moves when the test says, no
// sleeping) and a replay can run the live code on simulated time. Durations the service
// measures about itself for metrics (a decision cycle's latency, a commit's) time the
// machine, not the schedule, and use the steady clock directly.
//
// Thread-safety: now() may be called from any thread; so may ManualClock::set/advance.

#include <atomic>
#include <chrono>

namespace frugal {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now() const = 0;  // Unix seconds
};

// The real time of day (std::chrono::system_clock).
class SystemClock final : public Clock {
 public:
  double now() const override {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// Time that moves only when told; never backwards (a smaller time is ignored).
class ManualClock final : public Clock {
 public:
  explicit ManualClock(double start_unix_s) : t_(start_unix_s) {}
  double now() const override { return t_.load(); }
  void set(double t) {
    double cur = t_.load();
    while (t > cur && !t_.compare_exchange_weak(cur, t)) {
    }
  }
  void advance(double dt) {
    double cur = t_.load();
    while (dt > 0 && !t_.compare_exchange_weak(cur, cur + dt)) {
    }
  }

 private:
  std::atomic<double> t_;
};

}  // namespace frugal
