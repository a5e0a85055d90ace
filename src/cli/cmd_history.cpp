// `frugal history export`: the service's database as a native CSV trace (service/history.h).
#include <date/date.h>
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "io/catalog_yaml.h"
#include "io/trace_writer.h"
#include "service/history.h"

namespace frugal {
namespace {

struct ExportOptions {
  std::string db;
  std::string out;
  std::string since;
  std::string reference_model = "A100-80GB";
};

// Unix seconds, or a UTC date or time: 2026-11-01, 2026-11-01T08:00:00Z.
Result<double> parse_since(const std::string& s) {
  double v = 0;
  if (const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      !s.empty() && ec == std::errc() && end == s.data() + s.size() && v >= 0)
    return v;
  // YYYY-MM-DD, optionally THH:MM:SS and Z (UTC either way).
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, n = 0;
  const bool date_only = std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) == 3 &&
                         static_cast<size_t>(n) == s.size();
  const bool with_time =
      !date_only &&
      std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6 &&
      (static_cast<size_t>(n) == s.size() ||
       (static_cast<size_t>(n) + 1 == s.size() && s.back() == 'Z'));
  const date::year_month_day ymd{date::year(y), date::month(static_cast<unsigned>(mo)),
                                 date::day(static_cast<unsigned>(d))};
  if ((date_only || with_time) && ymd.ok() && h < 24 && mi < 60 && sec < 60)
    return static_cast<double>((date::sys_days(ymd) + std::chrono::hours(h) +
                                std::chrono::minutes(mi) + std::chrono::seconds(sec))
                                   .time_since_epoch()
                                   .count());
  return Error{fmt::format(
      "--since: '{}' is neither Unix seconds nor a UTC date (2026-11-01 or 2026-11-01T08:00:00Z)",
      s)};
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
  if (Status st = write_history_csv(got.jobs, catalog.value(), o.out); !st.ok()) return st;
  const std::string epoch =
      got.jobs.empty() ? std::string("none")
                       : date::format("%FT%TZ", date::sys_seconds(std::chrono::seconds(
                                                    static_cast<int64_t>(got.epoch_unix_s))));
  fmt::print(stderr,
             "frugal history export: {} job(s) to {} (times in seconds from {}, durations on {}); "
             "left out: {} not ended yet, {} ended without running\n",
             got.jobs.size(), o.out, epoch, o.reference_model, got.unfinished, got.never_started);
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
  cmd->callback([o, &exit_code] {
    if (Status st = run_export(*o); !st.ok()) {
      fmt::print(stderr, "frugal history export: {}\n", st.error().message);
      exit_code = 1;
    }
  });
}

}  // namespace frugal
