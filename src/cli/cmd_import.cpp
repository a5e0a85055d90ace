// `frugal import slurm`: a Slurm cluster's accounting (sacct --json, or the jobcomp file with
// frugal's GRES log) as a native CSV trace (drivers/slurm_import.h, docs/WHATIF.md).
#include <date/date.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "cli/commands.h"
#include "drivers/sacct_json.h"
#include "drivers/slurm_import.h"
#include "drivers/slurm_parse.h"
#include "io/catalog_yaml.h"
#include "io/trace_writer.h"
#include "io/yaml_util.h"

namespace frugal {
namespace {

struct ImportOptions {
  std::string sacct;
  std::string jobcomp;
  std::string gres_log;
  std::string sinfo;
  std::string map;
  std::string out;
  std::vector<std::string> gpu_map;  // "h100=H100"
  std::string default_model;
  std::string reference_model = "A100-80GB";
  int64_t utc_offset_s = 0;
  int shards_per_gpu = 8;
  bool pin_models = false;
};

// --reference-model, --default-gpu-model, --gpu-map and --sinfo into `opts`.
Status resolve_options(const ImportOptions& o, const GpuCatalog& catalog,
                       SlurmImportOptions& opts) {
  if (o.reference_model != "none") {
    const auto m = catalog.find(o.reference_model);
    if (!m)
      return Error{fmt::format("--reference-model: unknown GPU model '{}'", o.reference_model)};
    opts.reference = *m;
  }
  if (!o.default_model.empty()) {
    const auto m = catalog.find(o.default_model);
    if (!m)
      return Error{fmt::format("--default-gpu-model: unknown GPU model '{}'", o.default_model)};
    opts.default_model = *m;
  }
  for (const auto& m : o.gpu_map) {
    const size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size())
      return Error{"--gpu-map: expected TYPE=MODEL, got '" + m + "'"};
    const std::string type = m.substr(0, eq), model = m.substr(eq + 1);
    if (!catalog.find(model))
      return Error{fmt::format("--gpu-map: unknown GPU model '{}' in '{}'", model, m)};
    std::erase_if(opts.gpu_map, [&](const GresMapping& g) { return g.gres_type == type; });
    opts.gpu_map.insert(opts.gpu_map.begin(), GresMapping{model, type, ""});
  }
  opts.shards_per_gpu = o.shards_per_gpu;
  opts.pin_models = o.pin_models;
  if (!o.sinfo.empty()) {
    auto text = yamlio::read_text_file(o.sinfo);
    if (!text.ok()) return text.error();
    auto nodes = parse_nodes_json(text.value(), o.sinfo);
    if (!nodes.ok()) return nodes.error();
    opts.nodes = std::move(nodes).value();
  }
  return Status::Ok();
}

// The records of --sacct or --jobcomp (with --gres-log).
Result<std::vector<SlurmRecord>> read_records(const ImportOptions& o) {
  if (!o.sacct.empty()) {
    auto text = yamlio::read_text_file(o.sacct);
    if (!text.ok()) return text.error();
    return parse_sacct_json(text.value(), o.sacct);
  }
  auto text = yamlio::read_text_file(o.jobcomp);
  if (!text.ok()) return text.error();
  auto records = parse_jobcomp(text.value(), o.jobcomp, o.utc_offset_s);
  if (!records.ok()) return records.error();
  GresLog gres;
  if (!o.gres_log.empty()) {
    auto g = yamlio::read_text_file(o.gres_log);
    if (!g.ok()) return g.error();
    auto parsed = parse_gres_log(g.value(), o.gres_log);
    if (!parsed.ok()) return parsed.error();
    gres = std::move(parsed).value();
  }
  return records_from_jobcomp(records.value(), gres, o.jobcomp);
}

std::string summary(const SlurmImport& got, const ImportOptions& o) {
  const std::string epoch =
      got.jobs.empty() ? std::string("none")
                       : date::format("%FT%TZ", date::sys_seconds(std::chrono::seconds(
                                                    static_cast<int64_t>(got.epoch_unix_s))));
  std::string states;
  for (const auto& [state, n] : got.final_states)
    states += fmt::format("{}{} {}", states.empty() ? "" : ", ", state, n);
  std::string s = fmt::format(
      "frugal import slurm: {} job(s) from {} record(s) to {} (times in seconds from {}, "
      "durations on {}); final states: {}; left out: {} never ran (cancelled while pending), "
      "{} not ended yet, {} without GPUs (CPU-only, or no GPUs in the records{})\n",
      got.jobs.size(), got.records, o.out, epoch, o.reference_model,
      states.empty() ? "none" : states, got.never_started, got.unfinished, got.without_gpus,
      o.jobcomp.empty() || !o.gres_log.empty() ? "" : "; jobcomp carries none: give --gres-log");
  if (got.default_model > 0)
    s += fmt::format(
        "frugal import slurm: note: {} job(s) given --default-gpu-model {} (GRES type unknown, "
        "or untyped GPUs of unknown model)\n",
        got.default_model, o.default_model);
  return s;
}

Status run(const ImportOptions& o) {
  if (o.sacct.empty() == o.jobcomp.empty())
    return Error{"give exactly one of --sacct FILE and --jobcomp FILE"};
  // Real offsets run from UTC−12 to UTC+14.
  if (std::abs(o.utc_offset_s) > 14 * 3600)
    return Error{fmt::format("--utc-offset: {} s is not a UTC offset (-50400..50400 seconds)",
                             o.utc_offset_s)};
  auto catalog = load_builtin_catalog();
  if (!catalog.ok()) return catalog.error();
  SlurmImportOptions opts;
  if (Status st = resolve_options(o, catalog.value(), opts); !st.ok()) return st;
  SlurmImportMap map;
  if (!o.map.empty()) {
    auto text = yamlio::read_text_file(o.map);
    if (!text.ok()) return text.error();
    auto m = parse_import_map_yaml(text.value(), o.map, catalog.value());
    if (!m.ok()) return m.error();
    map = std::move(m).value();
  }
  auto records = read_records(o);
  if (!records.ok()) return records.error();
  auto got = import_slurm(records.value(), catalog.value(), map, opts);
  if (!got.ok()) return got.error();
  if (Status st = write_history_csv(got.value().jobs, catalog.value(), o.out); !st.ok()) return st;
  fmt::print(stderr, "{}", summary(got.value(), o));
  return Status::Ok();
}

}  // namespace

void add_import_command(CLI::App& app, int& exit_code) {
  auto* import = app.add_subcommand("import", "Other schedulers' accounting as traces");
  import->require_subcommand(1);
  auto o = std::make_shared<ImportOptions>();
  auto* cmd = import->add_subcommand(
      "slurm",
      "Write a Slurm cluster's finished jobs (sacct --json, or the jobcomp file) as a native "
      "CSV trace with what happened to them (first_start, end, restarts); docs/WHATIF.md");
  auto* sacct = cmd->add_option("--sacct", o->sacct,
                                "`sacct --json` output (Slurm 22.05; -D for every run of a "
                                "requeued job)");
  auto* jobcomp = cmd->add_option("--jobcomp", o->jobcomp, "jobcomp/filetxt file (JobCompLoc)");
  sacct->excludes(jobcomp);
  cmd->add_option("--gres-log", o->gres_log,
                  "frugal's GRES log: GPUs per run (jobcomp records carry none without "
                  "gres/gpu in AccountingStorageTRES)");
  cmd->add_option("--sinfo", o->sinfo,
                  "The cluster's nodes (`sinfo --json` or slurmrestd GET /nodes): GPU model "
                  "of untyped GPUs by node, and the models each partition allows");
  cmd->add_option("--map", o->map,
                  "YAML: tiers by QOS/partition, teams, classes, partition models, GRES types "
                  "(docs/WHATIF.md)");
  cmd->add_option("--gpu-map", o->gpu_map, "GRES type to catalog model, e.g. hopper=H100");
  cmd->add_option("--default-gpu-model", o->default_model,
                  "Model for GPUs whose GRES type is unknown or untyped (else an error)");
  cmd->add_option("--reference-model", o->reference_model,
                  "GPU model the durations are given on (replay with the same "
                  "--reference-model), or 'none' for run times as recorded")
      ->capture_default_str();
  cmd->add_option("--utc-offset", o->utc_offset_s,
                  "The controller's offset from UTC in seconds, e.g. 3600 (jobcomp times are "
                  "local; sacct --json times are Unix)")
      ->capture_default_str();
  cmd->add_option("--shards-per-gpu", o->shards_per_gpu, "gres/shard per GPU")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--pin-models", o->pin_models,
                "Each job may run only on the GPU model(s) it ran on (not its partition's): a "
                "replay keeps the placement's model, e.g. of jobs frugal placed");
  cmd->add_option("--out", o->out, "The trace to write (CSV)")->required();
  cmd->callback([o, &exit_code] {
    if (Status st = run(*o); !st.ok()) {
      fmt::print(stderr, "frugal import slurm: {}\n", st.error().message);
      exit_code = 1;
    }
  });
}

}  // namespace frugal
