// `frugal pack`: the FGD paper's static-fill experiment (openb, ATC'23) with its baselines and
// frugal's own packer. See src/pack/ and bench/PACK_RESULTS.md.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "io/catalog_yaml.h"
#include "pack/experiment.h"
#include "pack/pack_inputs.h"

namespace frugal {
namespace {

struct PackOptions {
  std::string nodes, pods, policies = "random,dotprod,gpuclustering,gpupacking,bestfit,fgd,frugal";
  int seeds = 10;
  uint64_t first_seed = 42;
  double tune = 1.3;
  std::string replay_order, node_ranks;
  std::string format = "table";
  std::string rng = "go";
  std::string out;
};

// The levels of the paper's tables (Fig. 9a).
std::vector<int> paper_levels() {
  std::vector<int> v;
  for (int x = 10; x <= 80; x += 10) v.push_back(x);
  for (int x : {85, 90, 92, 94, 95, 96, 98}) v.push_back(x);
  for (int x = 100; x <= 130; x += 5) v.push_back(x);
  return v;
}

std::string render_table(const pack::ExperimentResult& r, int runs) {
  std::ostringstream o;
  const auto levels = paper_levels();
  auto block = [&](const char* title, auto value) {
    o << title << "\n" << fmt::format("{:<14}", "arrived %");
    for (int x : levels) o << fmt::format("{:>7}", x);
    o << "\n";
    for (const pack::PolicyRuns& pr : r.runs) {
      o << fmt::format("{:<14}", pack::policy_name(pr.policy));
      for (int x : levels) o << fmt::format("{:>7}", value(pr, x));
      o << "\n";
    }
    o << "\n";
  };
  auto fmt_stat = [](const pack::LevelStats& s, bool invert) {
    if (s.n == 0) return std::string("-");
    return fmt::format("{:.2f}", invert ? 100 - s.median : s.median);
  };
  block(fmt::format("Unallocated GPU % (100 - median alloc %, {} run(s))", runs).c_str(),
        [&](const pack::PolicyRuns& pr, int x) {
          return fmt_stat(pack::level_stats(pr, pack::Metric::kAlloc, x), true);
        });
  block("Fragmentation, % of GPU capacity (Fig. 7a, median)",
        [&](const pack::PolicyRuns& pr, int x) {
          return fmt_stat(pack::level_stats(pr, pack::Metric::kFrag, x), false);
        });
  block("Fragmentation ratio, % of idle GPU (Fig. 7b, median)",
        [&](const pack::PolicyRuns& pr, int x) {
          return fmt_stat(pack::level_stats(pr, pack::Metric::kRatio, x), false);
        });
  o << fmt::format(
      "typical pods: {} ({:.2f}% of pods); {} arrivals per run; {:.2f} s for all fills\n",
      r.typical.pods.size(), 100 * r.typical.coverage, r.pods_per_run, r.seconds);
  return o.str();
}

nlohmann::json render_json(const pack::ExperimentResult& r, const PackOptions& o, int runs) {
  using nlohmann::json;
  json summary = json::array();
  json curves = json::object();
  auto opt = [](const pack::LevelStats& s, double v) { return s.n ? json(v) : json(nullptr); };
  for (const pack::PolicyRuns& pr : r.runs) {
    const std::string name(pack::policy_name(pr.policy));
    for (int x : paper_levels()) {
      const auto a = pack::level_stats(pr, pack::Metric::kAlloc, x);
      const auto f = pack::level_stats(pr, pack::Metric::kFrag, x);
      const auto q = pack::level_stats(pr, pack::Metric::kRatio, x);
      summary.push_back({{"policy", name},
                         {"arrived_pct", x},
                         {"alloc_pct", opt(a, a.median)},
                         {"alloc_pct_mean", opt(a, a.mean)},
                         {"unallocated_gpu_pct", opt(a, 100 - a.median)},
                         {"fragmentation_pct", opt(f, f.median)},
                         {"frag_ratio_pct", opt(q, q.median)},
                         {"seeds", a.n},
                         {"stdev", opt(a, a.stdev)}});
    }
    json c;
    json alloc = json::array(), mean = json::array(), frag = json::array(), ratio = json::array(),
         per_seed = json::array();
    for (int x = 0; x < pack::kLevels; ++x) {
      const auto a = pack::level_stats(pr, pack::Metric::kAlloc, x);
      alloc.push_back(opt(a, a.median));
      mean.push_back(opt(a, a.mean));
      const auto f = pack::level_stats(pr, pack::Metric::kFrag, x);
      frag.push_back(opt(f, f.median));
      const auto q = pack::level_stats(pr, pack::Metric::kRatio, x);
      ratio.push_back(opt(q, q.median));
    }
    for (const pack::LevelSeries& s : pr.seeds) {
      json row = json::array();
      for (int x = 0; x < pack::kLevels; ++x)
        row.push_back(s.has[static_cast<size_t>(x)] ? json(s.alloc[static_cast<size_t>(x)])
                                                    : json(nullptr));
      per_seed.push_back(row);
    }
    c["alloc_pct"] = alloc;
    c["alloc_pct_mean"] = mean;
    c["fragmentation_pct"] = frag;
    c["frag_ratio_pct"] = ratio;
    c["per_seed_alloc_pct"] = per_seed;
    c["failed_pods"] = pr.failed;
    curves[name] = c;
  }
  json meta = {{"nodes", o.nodes},
               {"pods", o.pods},
               {"runs", runs},
               {"first_seed", o.first_seed},
               {"tune", o.tune},
               {"rng", o.rng},
               {"replay", !o.replay_order.empty()},
               {"typical_pods", r.typical.pods.size()},
               {"typical_coverage", r.typical.coverage},
               {"pods_per_run", r.pods_per_run},
               {"seconds", r.seconds},
               {"levels", "curves arrays are indexed by arrived % 0..130"},
               {"fragmentation_pct",
                "median over runs of the fragment milli-GPU (all classes but q3) as % of the "
                "cluster GPU capacity (FGD Fig. 7a); frag_ratio_pct is the same fragment as % "
                "of the idle GPU (Fig. 7b); alloc/unallocated are medians, stdev is of alloc"}};
  return json{{"meta", meta}, {"summary", summary}, {"curves", curves}};
}

int run_pack(const PackOptions& o) {
  auto fail = [](const std::string& msg) {
    fmt::print(stderr, "error: {}\n", msg);
    return 1;
  };
  if (o.replay_order.empty() != o.node_ranks.empty())
    return fail("--replay-order and --node-ranks go together");
  if (o.rng != "go" && o.rng != "std")
    return fail(fmt::format("unknown --rng '{}' (go or std)", o.rng));
  if (o.format != "table" && o.format != "json")
    return fail(fmt::format("unknown --format '{}' (table or json)", o.format));
  pack::ExperimentConfig cfg;
  std::stringstream ss(o.policies);
  for (std::string name; std::getline(ss, name, ',');) {
    auto p = pack::parse_policy(name);
    if (!p)
      return fail(
          fmt::format("unknown policy '{}' (random, dotprod, gpuclustering, gpupacking, "
                      "bestfit, fgd, frugal)",
                      name));
    cfg.policies.push_back(*p);
  }
  if (cfg.policies.empty()) return fail("--policies is empty");
  auto catalog = load_builtin_catalog();
  if (!catalog.ok()) return fail(catalog.error().message);
  auto nodes = pack::load_pack_nodes(o.nodes, catalog.value());
  if (!nodes.ok()) return fail(nodes.error().message);
  auto pods = pack::load_pack_pods(o.pods, catalog.value());
  if (!pods.ok()) return fail(pods.error().message);
  pack::Replay replay;
  if (!o.replay_order.empty()) {
    auto order = pack::load_replay_order(o.replay_order);
    if (!order.ok()) return fail(order.error().message);
    auto ranks = pack::load_node_ranks(o.node_ranks, nodes.value());
    if (!ranks.ok()) return fail(ranks.error().message);
    replay.order = std::move(order).value();
    replay.rank = std::move(ranks).value();
    cfg.replay = &replay;
  }
  // A fill experiment needs GPUs to fill and pods that ask for them; without either every
  // level of the table is empty.
  const bool has_gpus = std::any_of(nodes.value().begin(), nodes.value().end(),
                                    [](const pack::NodeSpec& n) { return n.num_gpu > 0; });
  if (!has_gpus) return fail(fmt::format("{}: no node has a GPU: nothing to fill", o.nodes));
  const bool asks_gpus = std::any_of(pods.value().begin(), pods.value().end(),
                                     [](const pack::Pod& p) { return p.total_milli() > 0; });
  if (!asks_gpus) return fail(fmt::format("{}: no pod asks for a GPU: nothing to pack", o.pods));
  cfg.seeds = o.seeds;
  cfg.first_seed = o.first_seed;
  cfg.tune = o.tune;
  cfg.go_rand = o.rng == "go";
  const auto result = pack::run_experiment(nodes.value(), pods.value(), cfg);
  if (result.pods_per_run == 0)
    return fail(fmt::format("--tune {}: tuning the pods down to {} × the GPU capacity left none",
                            o.tune, o.tune));
  const int runs = cfg.replay ? 1 : cfg.seeds;
  const std::string text =
      o.format == "json" ? render_json(result, o, runs).dump(1) + "\n" : render_table(result, runs);
  if (o.out.empty()) {
    fmt::print("{}", text);
    return 0;
  }
  std::ofstream f(o.out);
  f << text;
  if (!f) return fail(fmt::format("cannot write {}", o.out));
  return 0;
}

}  // namespace

void add_pack_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PackOptions>();
  auto* cmd = app.add_subcommand(
      "pack", "FGD static-fill experiment (openb): baselines vs FGD vs frugal's packer");
  cmd->add_option("--nodes", o->nodes, "openb node list CSV")->required();
  cmd->add_option("--pods", o->pods, "openb pod list CSV")->required();
  cmd->add_option("--policies", o->policies, "Comma-separated policies")->capture_default_str();
  cmd->add_option("--seeds", o->seeds, "Seeded runs per policy")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--first-seed", o->first_seed, "Seed of the first run")->capture_default_str();
  cmd->add_option("--tune", o->tune, "Up-sample arrivals to this multiple of GPU capacity")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--replay-order", o->replay_order, "Exact arrival order (seed42_pod_order.csv)");
  cmd->add_option("--node-ranks", o->node_ranks, "Node tie-break ranks (seed42_node_prefix.csv)");
  auto* rng = cmd->add_option("--rng", o->rng,
                              "Seeded draws: go = the artifact's own Go math/rand stream (exact "
                              "for its seeds 42..51), std = std::mt19937_64")
                  ->capture_default_str();
  // Same as --rng go; given with --rng the two could disagree, so CLI11 refuses the pair.
  cmd->add_flag_callback(
         "--go-rand", [o] { o->rng = "go"; }, "Same as --rng go (the default)")
      ->excludes(rng);
  cmd->add_option("--format", o->format, "table or json")->capture_default_str();
  cmd->add_option("--out", o->out, "Write to this file instead of stdout");
  cmd->callback([o, &exit_code] { exit_code = run_pack(*o); });
}

}  // namespace frugal
