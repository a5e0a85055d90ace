// `frugal simulate` and `frugal compare`.
#include <fmt/format.h>
#include <algorithm>
#include <fstream>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "cli/html_output.h"
#include "cli/inputs.h"
#include "io/lifecycle_yaml.h"
#include "io/report.h"
#include "policy/frugal_profile.h"
#include "sim/simulator.h"
#include "sim/summary.h"
#include "storage/plan/checkpoint_storage.h"

namespace frugal {
namespace {

struct RunOptions {
  InputOptions in;
  std::string policy = default_profile_name();
  std::string policies = "fifo,backfill,sjf,las";
  std::string format = "table";
  std::string out;
  std::string jobs_out;  // simulate: per-job CSV (id,submit,first_start,finish,model,tier,deadline)
  int threads = 1;
  bool check_invariants = false;
  double mtbf_hours = 0;
  double repair_hours = 1;
  uint64_t seed = 1;
  bool static_capacity = false;
  double horizon_hours = 0;
  double migration_cost_s = 60;
  double decision_window_s = 0;
  bool wake_at_estimates = false;
  double resize_cost_s = 30;
  double elastic_alpha = 0.8;
  bool predict_runtimes = false;
  double predict_quantile = 0.5;
  bool offline_bound = false;
  std::string storage_lifecycle;  // lifecycle policies file (io/lifecycle_yaml.h)
  ReportOutputs report;  // --html, --report-json, --jobs-csv, --report-jobs; compare --baseline
};

void add_run_options(CLI::App& cmd, RunOptions& o) {
  o.in.add_to(cmd);
  cmd.add_option("--format", o.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd.add_option("--out", o.out, "Write the report to FILE instead of stdout");
  cmd.add_flag("--check-invariants", o.check_invariants,
               "Verify engine and cluster state after every cycle (slow)");
  cmd.add_option("--node-mtbf-hours", o.mtbf_hours, "Inject node failures: mean hours between")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--node-repair-hours", o.repair_hours, "Hours a failed node stays down")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "Seed for failure injection and spot reclaims")
      ->capture_default_str();
  cmd.add_flag("--static-capacity", o.static_capacity,
               "Keep on-demand pools provisioned all the time (no autoscaling)");
  cmd.add_option("--horizon-hours", o.horizon_hours,
                 "Also report the work completed and the allocated share in the first HOURS "
                 "after the first arrival (a common horizon for a fixed cluster)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--migration-cost", o.migration_cost_s,
                 "Seconds of progress a migrated job loses (policies with +consolidate)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd.add_option("--decision-window", o.decision_window_s,
                 "Handle the events within SECONDS of each other together, at the latest one's "
                 "time (replaying a service's history: longer than its decision latency, shorter "
                 "than the time between its turns, docs/WHATIF.md; 10 ms on Slurm); 0 = each at "
                 "its own time")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd.add_flag("--wake-at-estimates", o.wake_at_estimates,
               "Also decide when a running job reaches its estimated end while jobs wait, as "
               "frugal serve does (replaying a service's history, docs/WHATIF.md)");
  cmd.add_option("--resize-cost", o.resize_cost_s,
                 "Seconds of progress a resized elastic job loses (policies with +elastic)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd.add_option("--elastic-alpha", o.elastic_alpha,
                 "Elastic speed-up exponent: throughput on n GPUs is n^alpha (+elastic)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_flag("--predict-runtimes", o.predict_runtimes,
               "Estimate runtimes online from completed jobs (instead of the true duration) "
               "for jobs the trace gives no estimate");
  cmd.add_option("--predict-quantile", o.predict_quantile,
                 "Quantile of past durations predicted (with --predict-runtimes)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_flag("--offline-bound", o.offline_bound,
               "Also solve the offline time-shifting bound for deferrable jobs (LP, Clp; "
               "src/cost/offline_bound.h)");
  cmd.add_option("--storage-lifecycle", o.storage_lifecycle,
                 "Price jobs' checkpoint series per tier under these lifecycle policies "
                 "(YAML: lifecycle:, team_policies:, lifecycle_interval_s:)");
  o.report.add_to(cmd);
}

// Runs every policy on the same inputs, `threads` at a time; results in `policies` order.
Result<std::vector<Summary>> run_all(const RunOptions& o,
                                     const std::vector<std::string>& policies) {
  auto in = load_inputs(o.in);
  if (!in.ok()) return in.error();
  const Inputs& inputs = in.value();
  std::vector<Profile> profiles;
  for (const auto& p : policies) {
    auto prof = make_profile(p);
    if (!prof.ok()) return Error{"--policy: " + prof.error().message};
    profiles.push_back(std::move(prof).value());
  }
  SimOptions so;
  so.reference_model = inputs.reference_model;
  so.check_invariants = o.check_invariants;
  so.node_mtbf_hours = o.mtbf_hours;
  so.node_repair_hours = o.repair_hours;
  so.seed = o.seed;
  so.static_capacity = o.static_capacity;
  so.work_horizon_s = o.horizon_hours * 3600;
  so.migration_cost_s = o.migration_cost_s;
  so.decision_window_s = o.decision_window_s;
  so.wake_at_expected_ends = o.wake_at_estimates;
  so.resize_cost_s = o.resize_cost_s;
  so.elastic_alpha = o.elastic_alpha;
  so.predict_runtimes = o.predict_runtimes;
  so.predictor.quantile = o.predict_quantile;
  so.offline_bound = o.offline_bound;
  so.timeline = o.report.timeline();
  if (!o.storage_lifecycle.empty()) {
    auto lc = load_lifecycle_file(o.storage_lifecycle);
    if (!lc.ok()) return Error{"--storage-lifecycle: " + lc.error().message};
    if (auto tiers = storage::tier_prices(inputs.cluster.storage_tiers); !tiers.ok())
      return Error{"--storage-lifecycle: " + tiers.error().message};
    so.storage_lifecycle = lc.value();
  }
  const bool keep = o.report.wanted();
  std::vector<Summary> out(policies.size());
  std::vector<SimResult> kept(keep ? policies.size() : 0);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < profiles.size();) {
      SimResult r =
          simulate(inputs.trace.jobs, inputs.cluster, inputs.catalog, std::move(profiles[i]), so);
      out[i] = summarize(r);
      if (keep) kept[i] = std::move(r);
    }
  };
  const int n = std::clamp(o.threads, 1, static_cast<int>(policies.size()));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (keep) {
    ReportOutputs ro = o.report;
    ro.title = "frugal report: " + o.in.trace;
    if (Status st = write_report_outputs(ro, out, kept, inputs); !st.ok()) return st.error();
  }
  if (!o.jobs_out.empty()) {
    // One policy (simulate): its per-job outcomes, to compare with a live run.
    SimResult r = simulate(inputs.trace.jobs, inputs.cluster, inputs.catalog,
                           std::move(make_profile(policies[0])).value(), so);
    std::ofstream f(o.jobs_out);
    if (!f) return Error{o.jobs_out + ": cannot write"};
    f << "id,submit,first_start,finish,model,tier,deadline\n";
    for (size_t j = 0; j < r.jobs.size(); ++j) {
      const JobOutcome& jo = r.jobs[j];
      const JobSpec& spec = inputs.trace.jobs[j];
      f << fmt::format("{},{},{},{},{},{},{}\n", spec.id, jo.submit, jo.first_start, jo.finish,
                       jo.last_model == kNoGpuModel ? "" : inputs.catalog.at(jo.last_model).name,
                       to_string(spec.tier),
                       spec.deadline == kNever ? std::string() : fmt::format("{}", spec.deadline));
    }
  }
  warn_skipped_rows(o.in.trace, inputs.trace);
  return out;
}

int emit(const RunOptions& o, const std::vector<Summary>& runs, bool single) {
  std::string text;
  if (o.format == "json") {
    nlohmann::json j;
    if (single) {
      j = to_json(runs.front());
    } else {
      j["runs"] = nlohmann::json::array();
      for (const auto& s : runs) j["runs"].push_back(to_json(s));
    }
    text = j.dump(2) + "\n";
  } else {
    text = to_table(runs);
  }
  if (o.out.empty()) {
    fmt::print("{}", text);
  } else {
    std::ofstream f(o.out);
    f << text;
    if (!f) {
      fmt::print(stderr, "error: --out {}: cannot write\n", o.out);
      return 1;
    }
  }
  for (const auto& s : runs)
    if (!s.invariant_violation.empty()) return 1;
  for (const auto& s : runs)
    if (!s.stopped.empty()) {
      fmt::print(stderr, "error: {}: {}\n", s.policy, s.stopped);
      return 1;
    }
  return 0;
}

}  // namespace

void add_simulate_commands(CLI::App& app, int& exit_code) {
  auto sim_opts = std::make_shared<RunOptions>();
  auto* sim = app.add_subcommand("simulate", "Replay a trace under one policy");
  add_run_options(*sim, *sim_opts);
  sim->add_option(
         "--policy", sim_opts->policy,
         "Policy profile (e.g. fifo, backfill/firstfit, bestfit+consolidate, frugal:tou=0)")
      ->capture_default_str();
  sim->add_option("--jobs-out", sim_opts->jobs_out,
                  "Also write each job's submit, first start, finish, GPU model, tier and "
                  "deadline (CSV)");
  sim->callback([sim_opts, &exit_code] {
    auto r = run_all(*sim_opts, {sim_opts->policy});
    if (!r.ok()) {
      fmt::print(stderr, "error: {}\n", r.error().message);
      exit_code = 1;
      return;
    }
    exit_code = emit(*sim_opts, r.value(), true);
  });

  auto cmp_opts = std::make_shared<RunOptions>();
  auto* cmp = app.add_subcommand("compare", "Replay a trace under several policies");
  add_run_options(*cmp, *cmp_opts);
  cmp->add_option("--policies", cmp_opts->policies, "Comma-separated policy profiles")
      ->capture_default_str();
  cmp->add_option("--baseline", cmp_opts->report.baseline,
                  "With --html: the policy the report's differences are relative to (default: "
                  "the first)");
  cmp->add_option("--threads", cmp_opts->threads, "Policies simulated in parallel")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmp->callback([cmp_opts, &exit_code] {
    const auto policies = split_commas(cmp_opts->policies);
    if (policies.empty()) {
      fmt::print(stderr, "error: --policies: no policy given\n");
      exit_code = 1;
      return;
    }
    const std::string& baseline = cmp_opts->report.baseline;
    if (!baseline.empty() &&
        std::find(policies.begin(), policies.end(), baseline) == policies.end()) {
      fmt::print(stderr, "error: --baseline {}: not one of --policies\n", baseline);
      exit_code = 1;
      return;
    }
    auto r = run_all(*cmp_opts, policies);
    if (!r.ok()) {
      fmt::print(stderr, "error: {}\n", r.error().message);
      exit_code = 1;
      return;
    }
    exit_code = emit(*cmp_opts, r.value(), false);
  });
}

}  // namespace frugal
