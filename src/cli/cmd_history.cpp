// `frugal history export`: the service's database as a native CSV trace (service/history.h).
#include <date/date.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "io/catalog_yaml.h"
#include "io/cluster_yaml.h"
#include "io/cluster_yaml_writer.h"
#include "io/trace_writer.h"
#include "service/cluster_record.h"
#include "service/history.h"

namespace frugal {
namespace {

struct ExportOptions {
  std::string db;
  std::string out;
  std::string since;
  std::string reference_model = "A100-80GB";
  std::string cluster_out;
};

// The cluster spec recorded in the database, written to `path` with a comment saying where
// it came from (service/cluster_record.h); the choice's note on stderr.
// Its epoch is moved to the trace's second 0 (`epoch`, when jobs were exported), so that a
// replay prices the hours the jobs really ran in.
Status write_cluster_spec(const std::string& db, const ClusterSpecChoice& choice,
                          const std::optional<int64_t>& epoch, const GpuCatalog& catalog,
                          const std::string& path) {
  if (!choice.note.empty()) fmt::print(stderr, "frugal history export: {}\n", choice.note);
  std::string text = choice.spec.spec_yaml;
  if (epoch) {
    Result<std::string> moved = Error{""};
    auto spec = parse_cluster_yaml(text, db + " (the recorded cluster spec)", catalog);
    if (spec.ok()) {
      auto at = with_epoch(spec.value(), *epoch, catalog);
      moved = at.ok() ? write_cluster_yaml(at.value(), catalog) : Result<std::string>(at.error());
    } else {
      moved = spec.error();
    }
    if (moved.ok())
      text = std::move(moved).value();
    else
      fmt::print(stderr, "frugal history export: warning: the cluster spec keeps its epoch ({})\n",
                 moved.error().message);
  }
  std::ofstream f(path);
  f << fmt::format("# The cluster frugal serve ran on, recorded in {} at {}:\n# {}\n", db,
                   utc_text(choice.spec.recorded_at), choice.spec.source)
    << text;
  if (!f) return Error{fmt::format("--cluster-out {}: cannot write", path)};
  fmt::print(stderr, "frugal history export: the cluster spec recorded at {} to {}\n",
             utc_text(choice.spec.recorded_at), path);
  return Status::Ok();
}

Status run_export(const ExportOptions& o) {
  auto catalog = load_builtin_catalog();
  if (!catalog.ok()) return catalog.error();
  HistoryOptions h;
  if (!o.since.empty()) {
    auto since = parse_since(o.since);
    if (!since.ok()) return since.error();
    h.since_unix_s = since.value();
  }
  if (o.reference_model != "none") {
    const auto m = catalog.value().find(o.reference_model);
    if (!m)
      return Error{fmt::format("--reference-model: unknown GPU model '{}'", o.reference_model)};
    h.reference = *m;
  }
  auto history = read_history(o.db, catalog.value(), h);
  if (!history.ok()) return history.error();
  const History& got = history.value();
  std::optional<ClusterSpecChoice> cluster;
  if (!o.cluster_out.empty()) {  // before anything is written: a database without one fails
    auto c = choose_cluster_spec(
        o.db, got.jobs.empty() ? -1 : got.epoch_unix_s + got.jobs.front().submit);
    if (!c.ok()) return Error{"--cluster-out: " + c.error().message};
    cluster = std::move(c).value();
  }
  if (Status st = write_history_csv(got.jobs, catalog.value(), o.out); !st.ok()) return st;
  const std::string epoch =
      got.jobs.empty() ? std::string("none")
                       : date::format("%FT%TZ", date::sys_seconds(std::chrono::seconds(
                                                    static_cast<int64_t>(got.epoch_unix_s))));
  fmt::print(stderr,
             "frugal history export: {} job(s) to {} (times in seconds from {}, durations on {}); "
             "left out: {} not ended yet, {} ended without running\n",
             got.jobs.size(), o.out, epoch, o.reference_model, got.unfinished, got.never_started);
  if (cluster)
    return write_cluster_spec(o.db, *cluster,
                              got.jobs.empty()
                                  ? std::nullopt
                                  : std::optional<int64_t>(static_cast<int64_t>(got.epoch_unix_s)),
                              catalog.value(), o.cluster_out);
  return Status::Ok();
}

}  // namespace

void add_history_command(CLI::App& app, int& exit_code) {
  auto* history = app.add_subcommand("history", "The live service's history (docs/WHATIF.md)");
  history->require_subcommand(1);
  auto o = std::make_shared<ExportOptions>();
  auto* cmd = history->add_subcommand(
      "export",
      "Write the jobs a frugal serve database ran as a native CSV trace, with what "
      "happened to them (first_start, end, restarts)");
  cmd->add_option("--db", o->db, "The service's database (frugal serve --db); opened read-only")
      ->required();
  cmd->add_option("--out", o->out, "The trace to write (CSV)")->required();
  cmd->add_option("--since", o->since,
                  "Only jobs submitted at or after: Unix seconds or a UTC date/time "
                  "(2026-11-01, 2026-11-01T08:00:00Z)");
  cmd->add_option("--reference-model", o->reference_model,
                  "GPU model the durations are given on (replay with the same "
                  "--reference-model), or 'none' for run times as measured")
      ->capture_default_str();
  cmd->add_option("--cluster-out", o->cluster_out,
                  "Also write the cluster spec the service ran on (the latest one it recorded; "
                  "YAML for --cluster)");
  cmd->callback([o, &exit_code] {
    if (Status st = run_export(*o); !st.ok()) {
      fmt::print(stderr, "frugal history export: {}\n", st.error().message);
      exit_code = 1;
    }
  });
}

}  // namespace frugal
