// `frugal whatif`: a recorded history replayed under several policies beside what actually
// happened (sim/whatif.h, docs/WHATIF.md).
#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/html_output.h"
#include "cli/inputs.h"
#include "io/catalog_yaml.h"
#include "io/cluster_yaml.h"
#include "io/cluster_yaml_writer.h"
#include "io/lifecycle_yaml.h"
#include "io/whatif_report.h"
#include "service/cluster_record.h"
#include "service/history.h"
#include "sim/whatif.h"
#include "storage/plan/checkpoint_storage.h"

namespace frugal {
namespace {

struct WhatifOptions {
  InputOptions in;
  std::string db;
  std::string since;
  std::string policies = "fifo,backfill,sjf,las,frugal";
  std::string format = "table";
  std::string out;
  int threads = 1;
  bool static_capacity = false;
  std::string storage_lifecycle;  // lifecycle policies file (io/lifecycle_yaml.h), as simulate's
  ReportOutputs report;           // --html, --report-json, --jobs-csv, --report-jobs, --baseline
};

// The cluster spec recorded in --db for a history whose first job was submitted at
// `first_submit` (Unix s; < 0: none), saying on stderr which one it is.
Result<ClusterSpec> recorded_cluster(const std::string& db, double first_submit,
                                     const GpuCatalog& catalog) {
  auto choice = choose_cluster_spec(db, first_submit);
  if (!choice.ok()) return Error{choice.error().message + ", with --cluster FILE (or --gpus N)"};
  const ClusterSpecRow& spec = choice.value().spec;
  auto cluster = parse_cluster_yaml(spec.spec_yaml,
                                    fmt::format("{} (cluster spec {})", db, spec.seq), catalog);
  if (!cluster.ok())
    return Error{cluster.error().message + " (the recorded cluster spec; give --cluster FILE)"};
  fmt::print(stderr,
             "frugal whatif: cluster: the spec recorded in {} at {} ({}); --cluster FILE "
             "replaces it\n",
             db, utc_text(spec.recorded_at), spec.source);
  if (!choice.value().note.empty()) fmt::print(stderr, "frugal whatif: {}\n", choice.value().note);
  return cluster;
}

// The jobs of --db (history export's reading) as a trace; durations on the reference model
// the replay then uses. Without --cluster or --gpus, the cluster is the one the database
// records (service/cluster_record.h).
Result<Inputs> inputs_from_db(WhatifOptions o) {
  auto catalog = o.in.catalog.empty() ? load_builtin_catalog() : load_catalog_file(o.in.catalog);
  if (!catalog.ok()) return catalog.error();
  if (o.in.reference_model.empty()) o.in.reference_model = "A100-80GB";
  HistoryOptions h;
  if (!o.since.empty()) {
    auto since = parse_since(o.since);
    if (!since.ok()) return since.error();
    h.since_unix_s = since.value();
  }
  if (o.in.reference_model != "none") {
    const auto m = catalog.value().find(o.in.reference_model);
    if (!m)
      return Error{fmt::format("--reference-model: unknown GPU model '{}'", o.in.reference_model)};
    h.reference = *m;
  }
  auto history = read_history(o.db, catalog.value(), h);
  if (!history.ok()) return history.error();
  fmt::print(stderr,
             "frugal whatif: {} job(s) from {}; left out: {} not ended yet, {} ended "
             "without running\n",
             history.value().jobs.size(), o.db, history.value().unfinished,
             history.value().never_started);
  Trace trace;
  trace.format = "frugal-db";
  trace.source = o.db;
  if (o.in.cluster.empty() && o.in.gpus == 0) {
    const History& got = history.value();
    auto cluster = recorded_cluster(
        o.db, got.jobs.empty() ? -1 : got.epoch_unix_s + got.jobs.front().submit, catalog.value());
    if (!cluster.ok()) return cluster.error();
    trace.cluster = std::move(cluster).value();
  }
  const bool any = !history.value().jobs.empty();
  const auto epoch = static_cast<int64_t>(history.value().epoch_unix_s);
  trace.jobs = std::move(history.value().jobs);
  auto in = load_inputs(o.in, std::move(trace), std::move(catalog).value());
  if (!in.ok() || !any || in.value().cluster.epoch_unix_s == epoch) return in;
  // The trace's seconds count from the history's first hour: the cluster's epoch moves there,
  // so prices and time-of-use are those of the hours the jobs really ran in.
  auto moved = with_epoch(in.value().cluster, epoch, in.value().catalog);
  if (moved.ok())
    in.value().cluster = std::move(moved).value();
  else
    fmt::print(stderr,
               "frugal whatif: warning: the cluster's epoch stays {} ({}): prices and "
               "time-of-use are looked up as if the history began then\n",
               utc_text(static_cast<double>(in.value().cluster.epoch_unix_s)),
               moved.error().message);
  return in;
}

Status run(const WhatifOptions& o) {
  if (o.db.empty() == o.in.trace.empty())
    return Error{"give the history as --trace FILE or --db FILE (one of them)"};
  if (!o.since.empty() && o.db.empty()) return Error{"--since applies to --db only"};
  const auto policies = split_commas(o.policies);
  if (policies.empty()) return Error{"--policies: no policy given"};
  auto in = o.db.empty() ? load_inputs(o.in) : inputs_from_db(o);
  if (!in.ok()) return in.error();
  const Inputs& inputs = in.value();
  SimOptions so;
  so.reference_model = inputs.reference_model;
  so.static_capacity = o.static_capacity;
  so.check_invariants = false;
  so.timeline = o.report.timeline();
  if (!o.storage_lifecycle.empty()) {  // the same pricing as simulate --storage-lifecycle
    auto lc = load_lifecycle_file(o.storage_lifecycle);
    if (!lc.ok()) return Error{"--storage-lifecycle: " + lc.error().message};
    if (auto tiers = storage::tier_prices(inputs.cluster.storage_tiers); !tiers.ok())
      return Error{"--storage-lifecycle: " + tiers.error().message};
    so.storage_lifecycle = std::move(lc).value();
  }
  std::vector<SimResult> kept;
  auto report = run_whatif(inputs.trace.jobs, inputs.cluster, inputs.catalog, policies, so,
                           o.threads, o.report.wanted() ? &kept : nullptr);
  if (!report.ok()) return report.error();
  if (o.report.wanted()) {
    std::vector<Summary> summaries;
    for (const WhatifRun& r : report.value().runs) summaries.push_back(r.summary);
    ReportOutputs ro = o.report;
    ro.title = "frugal whatif: " + (o.db.empty() ? o.in.trace : o.db);
    if (Status st = write_report_outputs(ro, summaries, kept, inputs); !st.ok()) return st;
  }
  if (o.db.empty()) warn_skipped_rows(o.in.trace, inputs.trace);
  const std::string text =
      o.format == "json" ? to_json(report.value()).dump(2) + "\n" : whatif_table(report.value());
  if (o.out.empty()) {
    fmt::print("{}", text);
  } else {
    std::ofstream f(o.out);
    f << text;
    if (!f) return Error{fmt::format("--out {}: cannot write", o.out)};
  }
  for (const WhatifRun& r : report.value().runs) {
    if (!r.summary.invariant_violation.empty())
      return Error{fmt::format("{}: invariant violated", r.summary.policy)};
    if (!r.summary.stopped.empty())
      return Error{fmt::format("{}: {}", r.summary.policy, r.summary.stopped)};
  }
  return Status::Ok();
}

}  // namespace

void add_whatif_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<WhatifOptions>();
  auto* cmd = app.add_subcommand(
      "whatif",
      "Replay a recorded history (--trace, or a frugal serve --db) under several policies "
      "beside what actually happened");
  o->in.add_to(*cmd, false);
  cmd->add_option("--db", o->db,
                  "A frugal serve database: its ended jobs (as history export writes them), "
                  "on the cluster it recorded unless --cluster or --gpus is given")
      ->excludes("--trace");
  cmd->add_option("--since", o->since,
                  "With --db: only jobs submitted at or after (Unix seconds or a UTC date/time)");
  cmd->add_option("--policies", o->policies, "Comma-separated policy profiles to compare")
      ->capture_default_str();
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Write the report to FILE instead of stdout");
  o->report.add_to(*cmd);
  cmd->add_option("--baseline", o->report.baseline,
                  "With --html: the run the report's differences are relative to (default: "
                  "the first)");
  cmd->add_option("--threads", o->threads, "Runs simulated in parallel")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--static-capacity", o->static_capacity,
                "Keep on-demand pools provisioned all the time (no autoscaling)");
  cmd->add_option("--storage-lifecycle", o->storage_lifecycle,
                  "Price jobs' checkpoint series per tier under these lifecycle policies, in "
                  "every run (YAML: lifecycle:, team_policies:, lifecycle_interval_s:)");
  cmd->callback([o, &exit_code] {
    if (Status st = run(*o); !st.ok()) {
      fmt::print(stderr, "frugal whatif: {}\n", st.error().message);
      exit_code = 1;
    }
  });
}

}  // namespace frugal
