// `frugal attribute`: cost and waste of an existing Slurm cluster from its jobcomp records.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "drivers/slurm_accounting.h"
#include "drivers/slurm_inventory.h"
#include "drivers/slurm_parse.h"
#include "io/catalog_yaml.h"
#include "io/report.h"
#include "io/yaml_util.h"

namespace frugal {
namespace {

struct AttributeOptions {
  std::string jobcomp;
  std::string cluster;  // sinfo --json / slurmrestd GET /nodes answer
  std::string gres_log;
  std::string partition;
  std::vector<std::string> gpu_map;  // "h100=H100"
  double utc_offset_h = 0;
  int shards_per_gpu = 8;
  bool json = false;
};

Status run(const AttributeOptions& o) {
  auto catalog = load_builtin_catalog();
  if (!catalog.ok()) return catalog.error();
  SlurmConfig cfg;
  cfg.shards_per_gpu = o.shards_per_gpu;
  for (const auto& m : o.gpu_map) {
    const size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size())
      return Error{"--gpu-map: expected TYPE=MODEL, got '" + m + "'"};
    const std::string type = m.substr(0, eq), model = m.substr(eq + 1);
    std::erase_if(cfg.gpu_map, [&](const GresMapping& g) { return g.gres_type == type; });
    cfg.gpu_map.push_back({model, type, ""});
  }
  auto nodes_text = yamlio::read_text_file(o.cluster);
  if (!nodes_text.ok()) return nodes_text.error();
  auto nodes = parse_nodes_json(nodes_text.value(), o.cluster);
  if (!nodes.ok()) return nodes.error();
  auto cluster = cluster_from_slurm(nodes.value(), cfg, catalog.value(), o.partition);
  if (!cluster.ok()) return cluster.error();
  // Real offsets run from UTC−12 to UTC+14; NaN would make every time undefined.
  if (!(o.utc_offset_h >= -14 && o.utc_offset_h <= 14))
    return Error{
        fmt::format("--utc-offset-h: {} is not a UTC offset (−14..14 hours)", o.utc_offset_h)};
  auto text = yamlio::read_text_file(o.jobcomp);
  if (!text.ok()) return text.error();
  auto records =
      parse_jobcomp(text.value(), o.jobcomp, static_cast<int64_t>(o.utc_offset_h * 3600));
  if (!records.ok()) return records.error();
  GresLog gres;
  if (!o.gres_log.empty()) {
    auto g = yamlio::read_text_file(o.gres_log);
    if (!g.ok()) return g.error();
    auto parsed = parse_gres_log(g.value(), o.gres_log);
    if (!parsed.ok()) return parsed.error();
    gres = std::move(parsed).value();
  }
  auto a = attribute_jobcomp(records.value(), gres, cluster.value(), catalog.value(), cfg);
  if (!a.ok()) return a.error();
  const SlurmAttribution& r = a.value();
  if (o.json) {
    nlohmann::json j = to_json(r.ledger);
    j["slurm"] = {{"records", r.records},
                  {"runs", r.runs},
                  {"runs_without_gpus", r.runs_without_gpus},
                  {"gpu_hours", r.gpu_hours},
                  {"first_unix", r.first_unix},
                  {"last_unix", r.last_unix},
                  {"warnings", r.warnings}};
    fmt::print("{}\n", j.dump(2));
    return Status::Ok();
  }
  fmt::print("{} records, {} runs on {} nodes, {:.3f} GPU-hours over {} s\n", r.records, r.runs,
             cluster.value().nodes.size(), r.gpu_hours, r.last_unix - r.first_unix);
  if (r.runs_without_gpus > 0)
    fmt::print(
        "note: {} runs without GPU information (no gres/gpu in Tres, not in --gres-log): "
        "counted as CPU-only\n",
        r.runs_without_gpus);
  for (const auto& w : r.warnings) fmt::print("warning: {}\n", w);
  fmt::print("{}", ledger_table("slurm", r.ledger));
  for (const auto& [team, acc] : r.ledger.by_team)
    fmt::print("  team {:<16} ${:.4f} ({:.3f} GPU-h)\n", team, acc.total_usd(), acc.gpu_hours);
  return Status::Ok();
}

}  // namespace

void add_attribute_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<AttributeOptions>();
  auto* cmd = app.add_subcommand(
      "attribute", "Cost and waste of an existing Slurm cluster from its jobcomp records");
  cmd->add_option("--slurm-jobcomp", o->jobcomp, "jobcomp/filetxt file (JobCompLoc)")->required();
  cmd->add_option("--cluster", o->cluster,
                  "The cluster's nodes: `sinfo --json` or slurmrestd GET /nodes output")
      ->required();
  cmd->add_option("--gres-log", o->gres_log,
                  "frugal's GRES log (GPUs per run; jobcomp records carry none)");
  cmd->add_option("--partition", o->partition, "Only this partition's nodes");
  cmd->add_option("--gpu-map", o->gpu_map, "GRES type to catalog model, e.g. h100=H100");
  cmd->add_option("--utc-offset-h", o->utc_offset_h,
                  "The controller's UTC offset in hours (jobcomp times are local)")
      ->capture_default_str();
  cmd->add_option("--shards-per-gpu", o->shards_per_gpu, "gres/shard per GPU")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([o, &exit_code] {
    const Status s = run(*o);
    if (!s.ok()) {
      fmt::print(stderr, "error: {}\n", s.error().message);
      exit_code = 1;
    }
  });
}

}  // namespace frugal
