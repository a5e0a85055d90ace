#pragma once
// A shadow policy (issue 23, docs/WHATIF.md "Shadow policies"): its own engine on the live
// service's event stream — arrivals, withdrawals, node changes — with simulated execution,
// never touching the cluster. A job's run time is unknown until its real run ends: a shadow
// job runs from its shadow start and counts as running until then, and once the real work
// is known (reference-model seconds) it ends when its shadow run has done that much work
// (at once when it already has: its end is then late by the report's lag). The same progress
// model as the simulator (sim/simulator.h): relative speed per model, work kept to the last
// checkpoint when stopped, a restart cost after a migration or resize; priced by the same
// RunAccounting (the ledger).
//
// Clock-free and deterministic: every call carries the time (engine seconds, never
// decreasing); the same calls give the same figures. Not thread-safe.

#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/run_accounting.h"
#include "engine/engine.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/job.h"
#include "sim/summary.h"

namespace frugal {

// A shadow's figures over a window [from, to] (ShadowRun::figures).
struct ShadowFigures {
  double from = 0, to = 0;
  size_t started = 0;              // first starts in the window
  size_t completed = 0;            // completions in the window
  size_t queued = 0, running = 0;  // at `to`
  // First start − submit of the jobs started in the window, and the wait so far of those
  // that never started and still wait at `to` (a starved job counts).
  Distribution wait_s;
  Distribution jct_s;  // of the jobs completed in the window
  std::array<Distribution, kTierCount> wait_by_tier_s;
  int64_t deadline_misses = 0;  // deadlines in the window passed unfinished or finished late
  double cost_usd = 0;          // ledger total accrued in the window
  double waste_usd = 0;
  double gpu_utilization = 0;  // allocated / provisioned GPU-seconds in the window
  // Cost per GPU-hour of work done (allocated × utilisation) in the window; 0 with none.
  double usd_per_useful_gpu_hour = 0;
};

class ShadowRun {
 public:
  // `cluster` and `catalog` must outlive the shadow.
  ShadowRun(const ClusterSpec& cluster, const GpuCatalog& catalog, Profile profile,
            EngineOptions options);

  const std::string& policy() const { return policy_; }

  // Events, each at `now` (never decreasing). A job id is the caller's and new on submit;
  // calls about an id the shadow does not know do nothing (false).
  void submit(int64_t id, const JobSpec& spec, Seconds now);
  // The job left without its real run ever starting (cancelled or held while queued): a
  // shadow job still waiting leaves; one the shadow already started ends now (no work).
  bool withdraw(int64_t id, Seconds now);
  // The job's real run ended after `work_ref_s` reference-model seconds of work (all its run
  // segments): the shadow job ends once it has done as much.
  bool work_known(int64_t id, Seconds work_ref_s, Seconds now);
  void node_down(NodeId n, Seconds now);
  void node_up(NodeId n, Seconds now);
  // Runs the shadow's own events (ends, provisioning, engine wake-ups) up to `now` and a
  // scheduling cycle there. Call once a turn after the events: the events of a turn are
  // scheduled together, as the live engine schedules a turn's commands (an internal event
  // before the turn's end schedules those taken so far).
  void advance(Seconds now);

  // Figures over [now − window_s, now] (now: the last time given).
  ShadowFigures figures(Seconds window_s) const;
  uint64_t events() const { return events_; }  // submit/withdraw/work/node calls taken
  uint64_t cycles() const { return cycles_; }  // engine cycles run
  Seconds now() const { return now_; }
  size_t jobs() const { return specs_.size(); }
  // Jobs whose end came later than their work allowed (the work became known after the
  // shadow run had done it), and by how much in all.
  size_t late_ends() const { return late_ends_; }
  double late_end_s() const { return late_end_s_; }
  const Engine& engine() const { return engine_; }

 private:
  struct Job {
    int64_t id = 0;
    Seconds submit = 0, first_start = -1, finish = -1;
    double work_ref = -1;  // reference seconds of work; < 0 unknown
    double done_ref = 0;   // work kept from earlier segments
    Placement placement;
    Seconds seg_start = 0, restart_s = 0, signal_at = -1;
    double speed = 1;
    uint32_t epoch = 0;
    bool running = false, ended = false;
  };
  struct Timed {  // a job's end or a node's provisioning, ordered by time then sequence
    Seconds t;
    uint64_t seq;
    uint32_t id;     // job index, or node id
    uint32_t epoch;  // job: stale when moved on; node: UINT32_MAX
    bool operator>(const Timed& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  // The ledger over time, for windows: cumulative figures at hourly marks and now.
  struct Mark {
    Seconds t;
    double cost = 0, waste = 0, alloc_gpu_s = 0, capacity_gpu_s = 0, useful_gpu_s = 0;
  };

  // The shadow's own events and wake-ups up to t; `flush`: first the cycle events taken
  // before advance() are still waiting for (events are scheduled a turn at a time, as the
  // live engine schedules its turn's commands).
  void catch_up(Seconds t, bool flush = false);
  void clock_to(Seconds t);  // capacity and allocation from the last instant to t
  void cycle(Seconds t);
  void apply(const Decision& d, Seconds t);
  void begin_segment(JobIdx j, Seconds t, const Placement& p, Seconds restart_s);
  void stop_segment(JobIdx j, Seconds t, bool saved);
  void end_segment(JobIdx j, Seconds t, Seconds kept);
  void schedule_end(JobIdx j, Seconds t);
  void finish(JobIdx j, Seconds t);
  double progress(const Job& s, Seconds t) const;  // reference work done so far, incl. open run
  Mark mark(Seconds t) const;
  void add_mark(Seconds t);
  std::optional<JobIdx> index(int64_t id) const;

  const ClusterSpec& cluster_;
  std::string policy_;
  Engine engine_;
  RunAccounting accounting_;
  std::deque<JobSpec> specs_;  // stable: the engine keeps pointers
  std::vector<Job> jobs_;
  std::unordered_map<int64_t, JobIdx> by_id_;
  std::priority_queue<Timed, std::vector<Timed>, std::greater<>> timed_;
  std::vector<Mark> marks_;  // hourly, oldest first
  uint64_t seq_ = 0, events_ = 0, cycles_ = 0;
  Seconds now_ = 0, clock_ = 0;
  bool started_ = false, dirty_ = false;
  double alloc_milli_ = 0, useful_milli_ = 0, alloc_gpu_s_ = 0, capacity_gpu_s_ = 0,
         useful_gpu_s_ = 0;
  size_t late_ends_ = 0;
  double late_end_s_ = 0;
};

}  // namespace frugal
