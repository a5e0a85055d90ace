// `frugal predict`: how well the online runtime predictor (src/policy/runtime_predictor.h)
// would have predicted each trace's durations, replayed with no look-ahead.
#include <fmt/format.h>
#include <memory>

#include "cli/commands.h"
#include "cli/inputs.h"
#include "io/catalog_yaml.h"
#include "io/trace_reader.h"
#include "policy/runtime_predictor.h"

namespace frugal {
namespace {

struct PredictOptions {
  std::vector<std::string> traces;
  std::string trace_format;
  bool skip_bad_rows = false;
  std::string catalog;
  PredictorOptions predictor;
};

}  // namespace

void add_predict_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PredictOptions>();
  auto* cmd = app.add_subcommand(
      "predict", "Replay traces in submit order and report runtime-prediction error");
  cmd->add_option("--trace", o->traces, "Trace file (repeat for several)")->required();
  cmd->add_option("--trace-format", o->trace_format, "Force a trace format (default: detect)");
  cmd->add_flag("--skip-bad-rows", o->skip_bad_rows, "Skip and count malformed trace rows");
  cmd->add_option("--catalog", o->catalog, "GPU catalog YAML replacing the built-in one");
  cmd->add_option("--quantile", o->predictor.quantile, "Quantile predicted (0.5 = median)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--min-samples", o->predictor.min_samples,
                  "Observations a key needs before it is trusted")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}))
      ->capture_default_str();
  cmd->add_option("--window", o->predictor.window, "Observations kept per key")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}))
      ->capture_default_str();
  cmd->callback([o, &exit_code] {
    auto cat = o->catalog.empty() ? load_builtin_catalog() : load_catalog_file(o->catalog);
    if (!cat.ok()) {
      fmt::print(stderr, "error: {}\n", cat.error().message);
      exit_code = 1;
      return;
    }
    fmt::print("{:<48} {:>7} {:>10} {:>9} {:>9} {:>9}  {}\n", "trace", "jobs", "MAE (h)", "med |%|",
               "within2x", "under", "answered by");
    for (const std::string& path : o->traces) {
      TraceOptions to;
      to.format = o->trace_format;
      to.skip_bad_rows = o->skip_bad_rows;
      to.catalog = &cat.value();
      auto tr = read_trace(path, to);
      if (!tr.ok()) {
        fmt::print(stderr, "error: {}\n", tr.error().message);
        exit_code = 1;
        return;
      }
      warn_skipped_rows(path, tr.value());
      const PredictionReport r = replay_predictions(tr.value().jobs, o->predictor);
      std::string levels;
      for (int l = 0; l < kPredictionLevels; ++l) {
        if (r.by_level[l] == 0) continue;
        if (!levels.empty()) levels += ", ";
        levels +=
            fmt::format("{} {:.0f}%", to_string(static_cast<PredictionLevel>(l)),
                        100.0 * static_cast<double>(r.by_level[l]) / static_cast<double>(r.jobs));
      }
      // The median relative error needs jobs with a positive duration.
      const std::string median =
          r.pct_jobs > 0 ? fmt::format("{:.1f}%", r.median_abs_pct_error) : std::string("-");
      fmt::print("{:<48} {:>7} {:>10.2f} {:>9} {:>8.1f}% {:>8.1f}%  {}\n", path, r.jobs,
                 r.mae_s / 3600, median, 100 * r.within_2x_share, 100 * r.underestimate_share,
                 levels);
    }
  });
}

}  // namespace frugal
