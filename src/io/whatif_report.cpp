#include "io/whatif_report.h"

#include <fmt/format.h>

#include "io/report.h"

namespace frugal {
namespace {

const WhatifRun* actual_run(const WhatifReport& r) {
  for (const WhatifRun& run : r.runs)
    if (run.actual) return &run;
  return nullptr;
}

nlohmann::json tiers_json(const WhatifRun& run) {
  nlohmann::json j = nlohmann::json::object();
  for (int t = 0; t < kTierCount; ++t) {
    const TierFigures& f = run.tiers[static_cast<size_t>(t)];
    j[std::string(kTierNames[static_cast<size_t>(t)])] = {{"jobs", f.jobs},
                                                          {"completed", f.completed},
                                                          {"wait_s", dist_json(f.wait_s)},
                                                          {"jct_s", dist_json(f.jct_s)},
                                                          {"deadline_misses", f.deadline_misses}};
  }
  return j;
}

nlohmann::json fidelity_json(const ReplayFidelity& f) {
  return {{"jobs", f.jobs},
          {"start_error_s", dist_json(f.start_error_s)},
          {"max_start_error_s", f.max_start_error_s},
          {"recorded_makespan_s", f.recorded_makespan_s},
          {"replay_makespan_s", f.replay_makespan_s}};
}

std::string waste_row(const std::string& name, const Waste& w) {
  return fmt::format("{:<22} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", name,
                     usd(w.idle_allocated_usd), usd(w.idle_unallocated_usd), usd(w.stranded_usd),
                     usd(w.rework_usd), usd(w.peak_premium_usd), usd(w.oversized_usd),
                     usd(w.storage_tier_usd + w.duplicate_storage_usd + w.spot_reclaim_usd));
}

std::string tier_cell(const TierFigures& f) {
  if (f.jobs == 0) return "-";
  return fmt::format("{} / {}", human_seconds(f.wait_s.mean), human_seconds(f.wait_s.p99));
}

}  // namespace

nlohmann::json to_json(const WhatifReport& r) {
  nlohmann::json j;
  j["jobs"] = r.jobs;
  j["recorded_starts"] = r.recorded;
  j["runs"] = nlohmann::json::array();
  const WhatifRun* actual = actual_run(r);
  for (const WhatifRun& run : r.runs) {
    nlohmann::json one = to_json(run.summary);
    one["actual"] = run.actual;
    one["tiers"] = tiers_json(run);
    if (run.actual) one["fidelity"] = fidelity_json(run.fidelity);
    if (actual != nullptr) {
      const CostAccount& a = actual->summary.ledger.total;
      const CostAccount& t = run.summary.ledger.total;
      one["vs_actual"] = {{"cost_usd", t.total_usd() - a.total_usd()},
                          {"waste_usd", t.waste.total() - a.waste.total()},
                          {"wait_mean_s", run.summary.wait_s.mean - actual->summary.wait_s.mean}};
    }
    j["runs"].push_back(std::move(one));
  }
  return j;
}

std::string whatif_table(const WhatifReport& r) {
  const WhatifRun* actual = actual_run(r);
  std::string out =
      actual != nullptr
          ? fmt::format(
                "{} jobs; {} with a recorded start: the 'recorded' row replays what "
                "actually happened\n\n",
                r.jobs, r.recorded)
          : fmt::format("{} jobs; none records its start, so there is no actual row\n\n", r.jobs);
  out += fmt::format("{:<22} {:>7} {:>7} {:>10} {:>10} {:>10} {:>6} {:>9} {:>9} {:>8} {:>8}\n",
                     "policy", "done", "unsched", "cost", "vs actual", "waste", "util", "wait mean",
                     "wait p99", "jct p99", "dl miss");
  for (const WhatifRun& run : r.runs) {
    const Summary& s = run.summary;
    std::string delta = "-";
    if (actual != nullptr && !run.actual) {
      const double a = actual->summary.ledger.total.total_usd();
      const double t = s.ledger.total.total_usd();
      delta = a > 0 ? fmt::format("{:+.1f}%", 100 * (t - a) / a) : usd(t - a);
    }
    out += fmt::format(
        "{:<22} {:>7} {:>7} {:>10} {:>10} {:>10} {:>5.1f}% {:>9} {:>9} {:>8} {:>8}\n", s.policy,
        s.completed, s.unschedulable, usd(s.ledger.total.total_usd()), delta,
        usd(s.ledger.total.waste.total()), 100 * s.gpu_utilization, human_seconds(s.wait_s.mean),
        human_seconds(s.wait_s.p99), human_seconds(s.jct_s.p99), s.deadline_misses);
  }
  out += fmt::format("\nwait per tier (mean / p99)\n{:<22} {:>18} {:>18} {:>18}\n", "policy",
                     "core", "important", "general");
  for (const WhatifRun& run : r.runs)
    out += fmt::format("{:<22} {:>18} {:>18} {:>18}\n", run.summary.policy, tier_cell(run.tiers[0]),
                       tier_cell(run.tiers[1]), tier_cell(run.tiers[2]));
  out += fmt::format("\nwaste\n{:<22} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "policy",
                     "idle alloc", "idle free", "stranded", "rework", "peak", "oversized", "other");
  for (const WhatifRun& run : r.runs)
    out += waste_row(run.summary.policy, run.summary.ledger.total.waste);
  if (actual != nullptr) {
    const ReplayFidelity& f = actual->fidelity;
    out += fmt::format(
        "\nrecorded replay: {} jobs start within {} of their recorded start (median {}, p99 "
        "{}); makespan {} recorded, {} replayed\n",
        f.jobs, human_seconds(f.max_start_error_s), human_seconds(f.start_error_s.p50),
        human_seconds(f.start_error_s.p99), human_seconds(f.recorded_makespan_s),
        human_seconds(f.replay_makespan_s));
  }
  for (const WhatifRun& run : r.runs) {
    if (!run.summary.invariant_violation.empty())
      out += fmt::format("INVARIANT VIOLATED in {}: {}\n", run.summary.policy,
                         run.summary.invariant_violation);
    if (!run.summary.stopped.empty())
      out += fmt::format("RUN STOPPED in {}: {}\n", run.summary.policy, run.summary.stopped);
  }
  return out;
}

}  // namespace frugal
