#pragma once
// The service's shadow policies (config `shadow_policies`; docs/WHATIF.md "Shadow policies"):
// one ShadowRun (sim/shadow.h) per policy — the active policy's own first, so comparisons
// are shadow to shadow — all fed the same live events (arrivals, real ends with their work,
// withdrawals, node changes) and advanced once per decision-loop turn.
//
// Two modes, the same results. With its own thread (config `shadow_thread`, the default) the
// decision loop only queues each call and the shadows apply them in order on a thread of
// the lowest CPU priority (SCHED_IDLE: only CPU nothing else wants), a turn at a time (events
// wait for their turn's advance): when the machine is busy the shadows fall behind (their
// lag grows) instead of the loop slowing down. The loop
// never waits for them: with `queue_max` calls waiting, the shadows stop for good (memory
// stays bounded; stopped() says why, and so does every view after). Without the thread,
// each call is applied at once on the caller's thread (deterministic on a fake clock: tests).
// What readers see is view(): a snapshot the thread publishes after each batch (at least
// every 0.5 s while behind, and whenever it has caught up); inline, one taken on demand.
//
// The calls (submit … set_active) and view() are for one thread, the decision loop.
// A shadow starts empty when the service starts: the jobs waiting or running then are
// submitted to it at that instant (docs/WHATIF.md says what follows).

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "model/result.h"
#include "service/config.h"
#include "service/shadow_view.h"

namespace frugal {

class ShadowSet {
 public:
  struct Options {
    bool own_thread = true;
    size_t queue_max = 200'000;  // calls waiting when the shadows stop
    double extra_window_s = 0;   // a window besides kShadowWindows in every view (0: none)
  };
  // `policies`: the active policy first, then config.shadow_policies (duplicates of the
  // active one dropped). `cluster` and `catalog` must outlive the set. Error names the
  // policy that does not parse.
  static Result<std::unique_ptr<ShadowSet>> create(const std::vector<std::string>& policies,
                                                   const ServiceConfig& config,
                                                   const ClusterSpec& cluster,
                                                   const GpuCatalog& catalog,
                                                   const EngineOptions& options, Options opts);
  ~ShadowSet();
  ShadowSet(const ShadowSet&) = delete;
  ShadowSet& operator=(const ShadowSet&) = delete;

  void submit(int64_t id, const JobSpec& spec, Seconds t);
  // The job ended for real: after running `work_ref_s` reference seconds of work, or
  // (`ran` false) without ever running.
  void ended(int64_t id, bool ran, double work_ref_s, Seconds t);
  void node(NodeId n, bool up, Seconds t);
  // Each shadow to `t` (its own ends and cycles); timed per shadow.
  void advance(Seconds t);
  // After a policy change: `policy`'s shadow becomes the active one (first). One made for
  // the change (the set had none) starts with `jobs_now` submitted at `t`. `policy` must
  // parse (the caller checked it: it is the new active policy).
  void set_active(const std::string& policy,
                  std::vector<std::pair<int64_t, std::shared_ptr<const JobSpec>>> jobs_now,
                  Seconds t);

  // The shadow of `policy`, if the set has one (at the latest call, applied or not).
  std::optional<size_t> index_of(const std::string& policy) const;
  size_t size() const { return policies_.size(); }
  uint64_t events() const { return fed_; }  // events given to the set (each shadow takes all)

  // The latest snapshot (never null).
  std::shared_ptr<const ShadowView> view() const;
  // Why the shadows stopped ("" while they run).
  const std::string& stopped() const { return stopped_; }

 private:
  struct Command;
  ShadowSet(const ServiceConfig& config, const ClusterSpec& cluster, const GpuCatalog& catalog,
            const EngineOptions& options, Options opts);
  // A ShadowRun of `policy` (checked: an error names it).
  Result<std::unique_ptr<ShadowRun>> make(const std::string& policy) const;
  void give(Command c);
  void apply(const Command& c);  // the shadows' side: one call to every shadow
  std::shared_ptr<const ShadowView> take_view(uint64_t applied, uint64_t queued) const;
  void work();  // the thread

  ServiceConfig config_;
  const ClusterSpec& cluster_;
  const GpuCatalog& catalog_;
  EngineOptions options_;
  Options opts_;
  // The caller's side.
  std::vector<std::string> policies_;  // order as given (active first)
  uint64_t fed_ = 0;
  std::string stopped_;
  // The shadows' side (the thread's, or the caller's when inline).
  std::vector<std::unique_ptr<ShadowRun>> runs_;
  std::vector<double> compute_s_, compute_max_s_;
  uint64_t applied_ = 0;
  // Shared, under mu_.
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Command> queue_;
  size_t turns_ = 0;  // advances (and policy changes) in queue_: the thread takes whole turns
  mutable std::shared_ptr<const ShadowView> view_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace frugal
