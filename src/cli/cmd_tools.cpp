// `frugal gen-trace` and `frugal catalog`.
#include <fmt/format.h>
#include <memory>

#include "cli/commands.h"
#include "io/catalog_yaml.h"
#include "io/trace_writer.h"
#include "sim/synthetic.h"

namespace frugal {

void add_gen_trace_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SyntheticOptions>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("gen-trace", "Write a seeded synthetic trace (native CSV)");
  cmd->add_option("--jobs", o->jobs, "Number of jobs")
      ->check(CLI::Range(size_t{1}, size_t{100'000'000}))
      ->capture_default_str();
  cmd->add_option("--cluster-gpus", o->cluster_gpus, "GPUs the offered load is relative to")
      ->check(CLI::Range(int64_t{1}, int64_t{10'000'000}))
      ->capture_default_str();
  cmd->add_option("--load", o->load, "Offered load (0-2)")
      ->check(CLI::Range(0.01, 2.0))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->add_option("--out", *out, "Output file")->required();
  cmd->callback([o, out, &exit_code] {
    const Status s = write_native_csv(make_synthetic_jobs(*o), *out);
    if (!s.ok()) {
      fmt::print(stderr, "error: {}\n", s.error().message);
      exit_code = 1;
    }
  });
}

void add_catalog_command(CLI::App& app, int& exit_code) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("catalog", "List the GPU models frugal knows");
  cmd->add_option("--catalog", *path, "Catalog YAML replacing the built-in one");
  cmd->callback([path, &exit_code] {
    auto c = path->empty() ? load_builtin_catalog() : load_catalog_file(*path);
    if (!c.ok()) {
      fmt::print(stderr, "error: {}\n", c.error().message);
      exit_code = 1;
      return;
    }
    fmt::print("{:<12} {:>7}  {:>8} {:>8} {:>8} {:>10}  aliases\n", "model", "mem GiB", "pretrain",
               "finetune", "eval", "preprocess");
    for (const GpuModel& m : c.value().models())
      fmt::print("{:<12} {:>7}  {:>8.2f} {:>8.2f} {:>8.2f} {:>10.2f}  {}\n", m.name,
                 m.memory_mib / 1024, m.speed[0], m.speed[1], m.speed[2], m.speed[3],
                 fmt::join(m.aliases, ", "));
  });
}

}  // namespace frugal
