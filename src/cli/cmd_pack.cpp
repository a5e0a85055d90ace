// `frugal pack`: the FGD paper's static-fill experiment (openb, ATC'23) with its baselines and
// frugal's own packer. See src/pack/ and bench/PACK_RESULTS.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "io/catalog_yaml.h"
#include "io/html_report.h"
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
  std::string html;  // --html FILE: the page of the run (io/html_pack.h)
  double migrations_per_100 = 0;
  std::string bound = "lp";           // lp (default), ilp (Cbc's dual bound, slower), none
  std::string frugal_rules = "auto";  // auto (calibrated per workload), own, fgd
  int calibration_streams = pack::kCalibrationStreams;
  double ilp_seconds = 2.0;
  bool repack = false;  // --repack-bound
};

// The levels of the paper's tables (Fig. 9a).
std::vector<int> paper_levels() {
  std::vector<int> v;
  for (int x = 10; x <= 80; x += 10) v.push_back(x);
  for (int x : {85, 90, 92, 94, 95, 96, 98}) v.push_back(x);
  for (int x = 100; x <= 130; x += 5) v.push_back(x);
  return v;
}

// Median over the runs of 100 − a series' alloc at level x (nullopt: no run has it).
std::optional<double> median_unallocated(const std::vector<pack::LevelSeries>& s, int x) {
  const auto a = pack::level_stats(s, pack::Metric::kAlloc, x);
  return a.n ? std::optional<double>(100 - a.median) : std::nullopt;
}

// Median unallocated % of a policy at a level (nullopt: no run reached it).
std::optional<double> unallocated(const pack::PolicyRuns& pr, int x) {
  return median_unallocated(pr.seeds, x);
}

std::optional<double> bound_unallocated(const pack::ExperimentResult& r, int x) {
  return median_unallocated(r.bound, x);
}

// The share of FGD's gap to the bound that `pr` closes at level x: (fgd − pr) / (fgd − bound),
// unallocated %; nullopt without FGD in the run, a bound, or a gap of at least 0.01 points.
std::optional<double> gap_closed(const pack::ExperimentResult& r, const pack::PolicyRuns& pr,
                                 int x) {
  const auto fgd = std::find_if(r.runs.begin(), r.runs.end(), [](const pack::PolicyRuns& q) {
    return q.policy == pack::Policy::kFgd;
  });
  if (fgd == r.runs.end()) return std::nullopt;
  const auto f = unallocated(*fgd, x), u = unallocated(pr, x), b = bound_unallocated(r, x);
  if (!f || !u || !b || *f - *b < 0.01) return std::nullopt;
  return (*f - *u) / (*f - *b);
}

// The bound's row under the unallocated block, and frugal's share of FGD's gap closed.
std::string bound_rows(const pack::ExperimentResult& r, const std::vector<int>& levels) {
  std::ostringstream o;
  if (r.bound.empty()) return fmt::format("bound: not computed ({})\n", r.bound_error);
  o << fmt::format("{:<14}", "bound");
  for (int x : levels) {
    const auto b = bound_unallocated(r, x);
    o << fmt::format("{:>7}", b ? fmt::format("{:.2f}", *b) : std::string("-"));
  }
  o << "\n";
  for (const pack::PolicyRuns& pr : r.runs) {
    if (pr.policy != pack::Policy::kFrugal) continue;
    o << fmt::format("{:<14}", "gap closed");
    for (int x : levels) {
      const auto g = gap_closed(r, pr, x);
      o << fmt::format("{:>7}", g ? fmt::format("{:.0f}%", 100 * *g) : std::string("-"));
    }
    o << "\n";
  }
  return o.str();
}

// Whether the run was asked for the repack bound (its series, or the error that dropped them).
bool asked_repack(const pack::ExperimentResult& r) {
  return !r.repack_error.empty() || (!r.runs.empty() && !r.runs[0].repack.empty());
}

// The repack bound's lines (experiment.h), one per policy; empty when not asked for.
std::string repack_rows(const pack::ExperimentResult& r, bool asked) {
  if (!asked) return "";
  if (!r.repack_error.empty())
    return fmt::format("repack bound: not computed ({})\n", r.repack_error);
  std::ostringstream o;
  o << "repack bound: unallocated % at the last arrival of each level, the policy's own -> the "
       "least any rearrangement of the pods it placed (plus any it failed) leaves\n";
  for (const pack::PolicyRuns& pr : r.runs) {
    o << fmt::format("{:<14}", pack::policy_name(pr.policy));
    for (int x : pack::kRepackLevels) {
      const auto own = median_unallocated(pr.repack_policy, x);
      const auto lim = median_unallocated(pr.repack, x);
      o << fmt::format("  {} %: {}", x,
                       own && lim ? fmt::format("{:.2f} -> {:.2f}", *own, *lim) : "-");
    }
    o << "\n";
  }
  return o.str();
}

// Which rules frugal placed with, and why (calibrate.h); empty without frugal.
std::string rules_line(const pack::ExperimentResult& r) {
  const bool has = std::any_of(r.runs.begin(), r.runs.end(), [](const pack::PolicyRuns& pr) {
    return pr.policy == pack::Policy::kFrugal;
  });
  if (!has) return "";
  const char* rules = r.rules.own_rules ? "its own" : "FGD's";
  if (r.rules.streams == 0)
    return fmt::format("frugal placed with {} rules (--frugal-rules)\n", rules);
  std::string gains;
  for (size_t l = 0; l < pack::kCalibrationLevels.size(); ++l)
    gains += fmt::format("{}{} %: {:+.2f} ± {:.2f}", l ? ", " : "", pack::kCalibrationLevels[l],
                         r.rules.gain[l], r.rules.stdev[l]);
  return fmt::format(
      "frugal placed with {} rules: over {} calibration fills of this workload its own rules "
      "gained {} points of allocation over FGD's (mean ± stdev); kept only if mean - {} · "
      "stdev / sqrt(fills) >= 0 at every level (src/pack/calibrate.h); {:.2f} s\n",
      rules, r.rules.streams, gains, pack::kCalibrationZ, r.rules.seconds);
}

std::string render_table(const pack::ExperimentResult& r, int runs, double migrations) {
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
  o << bound_rows(r, levels) << repack_rows(r, asked_repack(r)) << "\n";
  if (migrations > 0)
    block(fmt::format("Migrations used by frugal, cumulative (median; budget {} per 100 arrivals)",
                      migrations)
              .c_str(),
          [&](const pack::PolicyRuns& pr, int x) {
            if (pr.policy != pack::Policy::kFrugal) return std::string("-");
            const auto m = pack::level_stats(pr, pack::Metric::kMigrations, x);
            return m.n ? fmt::format("{:.0f}", m.median) : std::string("-");
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
  o << rules_line(r);
  o << fmt::format(
      "bound: LP over pod classes x node classes (src/pack/bound.h), no packer can leave less "
      "unallocated; {:.2f} s for all runs' bounds. gap closed = frugal's share of FGD's gap to "
      "the bound: (fgd - frugal) / (fgd - bound), unallocated %\n",
      r.bound_seconds);
  return o.str();
}

// meta.repack: what the repack keys mean, the LP's wall time, and any error.
nlohmann::json repack_meta(const pack::ExperimentResult& r) {
  // wall_s: a timing field (bench/identity.py drops it).
  nlohmann::json m = {
      {"about",
       "at the last arrival of 100/110/120/130 % arrived, per run: repack_policy_unallocated_pct "
       "is the policy's own unallocated %, repack_unallocated_pct a bound: the least that any "
       "rearrangement of the pods the policy has placed (unlimited migrations), with any of "
       "the pods it failed added, leaves (the LP of src/pack/bound.h with the placed pods "
       "kept); medians over the runs that arrive exactly at the level (no neighbour fallback); "
       "curves.<policy>.repack_*_per_run: one value per run, keyed by level"},
      {"wall_s", r.repack_seconds}};
  if (!r.repack_error.empty()) m["error"] = r.repack_error;
  return m;
}

// The repack bound's keys of a summary row (policy pr, level x).
void add_repack(nlohmann::json& row, const pack::PolicyRuns& pr, int x) {
  auto optd = [](std::optional<double> v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  row["repack_unallocated_pct"] = optd(median_unallocated(pr.repack, x));
  row["repack_policy_unallocated_pct"] = optd(median_unallocated(pr.repack_policy, x));
}

// Per level of kRepackLevels, one unallocated % per run (null where the run has none).
nlohmann::json repack_per_run(const std::vector<pack::LevelSeries>& runs) {
  using nlohmann::json;
  json out = json::object();
  for (int x : pack::kRepackLevels) {
    const auto b = static_cast<size_t>(x);
    json v = json::array();
    for (const pack::LevelSeries& s : runs)
      v.push_back(s.has[b] ? json(100 - s.alloc[b]) : json(nullptr));
    out[std::to_string(x)] = v;
  }
  return out;
}

nlohmann::json render_json(const pack::ExperimentResult& r, const PackOptions& o, int runs) {
  using nlohmann::json;
  json summary = json::array();
  json curves = json::object();
  auto opt = [](const pack::LevelStats& s, double v) { return s.n ? json(v) : json(nullptr); };
  auto optd = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
  // Median cumulative migrations of a run by level x (0 for a policy that never migrates).
  auto migrations_used = [&](const pack::PolicyRuns& pr, int x) {
    const auto m = pack::level_stats(pr, pack::Metric::kMigrations, x);
    return m.n ? json(m.median) : json(nullptr);
  };
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
                         {"stdev", opt(a, a.stdev)},
                         {"bound_unallocated_pct", optd(bound_unallocated(r, x))},
                         {"gap_closed_vs_fgd", optd(gap_closed(r, pr, x))},
                         {"migrations_used", migrations_used(pr, x)}});
      if (o.repack) add_repack(summary.back(), pr, x);
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
    if (o.repack && !pr.repack.empty()) {
      c["repack_unallocated_per_run"] = repack_per_run(pr.repack);
      c["repack_policy_unallocated_per_run"] = repack_per_run(pr.repack_policy);
    }
    if (o.migrations_per_100 > 0) {
      json moved = json::array();
      for (int x = 0; x < pack::kLevels; ++x) moved.push_back(migrations_used(pr, x));
      c["migrations_used"] = moved;
      c["migrations_per_run"] = pr.migrations;
    }
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
  json bound = json::array();
  for (int x = 0; x < pack::kLevels; ++x) {
    const auto b = pack::level_stats(r.bound, pack::Metric::kAlloc, x);
    bound.push_back(opt(b, b.median));
  }
  meta["migrations_per_100"] = o.migrations_per_100;
  if (r.rules.streams > 0) {
    json levels = json::array(), gain = json::array(), stdev = json::array(), med = json::array();
    for (size_t l = 0; l < pack::kCalibrationLevels.size(); ++l) {
      levels.push_back(pack::kCalibrationLevels[l]);
      gain.push_back(std::round(r.rules.gain[l] * 1000) / 1000);
      stdev.push_back(std::round(r.rules.stdev[l] * 1000) / 1000);
      med.push_back(std::round(r.rules.median_gain[l] * 1000) / 1000);
    }
    // wall_s: a timing field (bench/identity.py drops it).
    meta["frugal_rules"] = {{"rules", r.rules.own_rules ? "own" : "fgd"},
                            {"streams", r.rules.streams},
                            {"arrived_pct", levels},
                            {"gain_mean", gain},
                            {"gain_stdev", stdev},
                            {"median_gain", med},
                            {"wall_s", r.rules.seconds}};
  }
  if (!r.bound_error.empty()) meta["bound_error"] = r.bound_error;
  if (o.repack) meta["repack"] = repack_meta(r);
  meta["bound"] =
      "bound_unallocated_pct: 100 - median over runs of the LP bound on the allocatable GPU "
      "(src/pack/bound.h), discretised like alloc_pct: no packer, in any order and with any "
      "number of migrations, leaves less unallocated; gap_closed_vs_fgd = (fgd - policy) / "
      "(fgd - bound) in unallocated %; migrations_used: median cumulative migrations by the "
      "level (frugal only migrates, within migrations_per_100 per 100 arrivals)";
  // wall_s: the LP solves' wall time (a timing field; bench/identity.py drops it).
  return json{{"meta", meta},
              {"summary", summary},
              {"curves", curves},
              {"bound", {{"alloc_pct", bound}, {"wall_s", r.bound_seconds}}}};
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
                      "bestfit, fgd, frugal, fgd-alt)",
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
  cfg.migrations_per_100 = o.migrations_per_100;
  cfg.bound = o.bound != "none";
  cfg.frugal_rules = o.frugal_rules == "own"   ? pack::ExperimentConfig::Rules::kOwn
                     : o.frugal_rules == "fgd" ? pack::ExperimentConfig::Rules::kFgd
                                               : pack::ExperimentConfig::Rules::kAuto;
  cfg.calibration_streams = o.calibration_streams;
  cfg.bound_options.ilp = o.bound == "ilp";
  cfg.bound_options.ilp_seconds = o.ilp_seconds;
  cfg.repack = o.repack;
  const auto result = pack::run_experiment(nodes.value(), pods.value(), cfg);
  if (result.pods_per_run == 0)
    return fail(fmt::format("--tune {}: tuning the pods down to {} × the GPU capacity left none",
                            o.tune, o.tune));
  const int runs = cfg.replay ? 1 : cfg.seeds;
  const nlohmann::json doc = render_json(result, o, runs);
  if (!o.html.empty()) {
    HtmlReportOptions h;
    h.title = "frugal pack";
    if (Status st = write_html_report(o.html, nlohmann::json{{"pack", doc}}, h); !st.ok())
      return fail(st.error().message);
  }
  const std::string text =
      o.format == "json" ? doc.dump(1) + "\n" : render_table(result, runs, o.migrations_per_100);
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
      "pack",
      "FGD static-fill experiment (openb): baselines vs FGD vs frugal's packer, with the LP "
      "bound on what any packer can allocate and, optionally, migrations for frugal");
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
  cmd->add_option("--html", o->html,
                  "Also write the HTML report: unallocated and fragmentation against arrived "
                  "load, per policy, with the bound (docs/REPORT.md)");
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
  cmd->add_option("--migrations-per-100", o->migrations_per_100,
                  "frugal may move placed pods to make room for a pod no node takes: at most "
                  "this many migrations per 100 arrivals, cumulative (0 = never)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--bound", o->bound,
                  "The limit reported beside the runs: lp (the LP relaxation with card patterns, "
                  "src/pack/bound.h), "
                  "ilp (also the integer model's dual bound from Cbc at every binding level, "
                  "never looser, slower), none")
      ->check(CLI::IsMember({"lp", "ilp", "none"}))
      ->capture_default_str();
  cmd->add_option("--frugal-rules", o->frugal_rules,
                  "frugal's placement rules: auto (its own, unless they lose to FGD's on "
                  "calibration fills of this workload, src/pack/calibrate.h), own, fgd")
      ->check(CLI::IsMember({"auto", "own", "fgd"}))
      ->capture_default_str();
  cmd->add_option("--calibration-streams", o->calibration_streams,
                  "With --frugal-rules auto: the paired FGD / frugal fills of this workload that "
                  "choose frugal's rules (more: a surer choice, slower)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--ilp-seconds", o->ilp_seconds, "Cbc's time limit per solve with --bound ilp")
      ->check(CLI::Range(0.01, 600.0))
      ->capture_default_str();
  cmd->add_flag("--repack-bound", o->repack,
                "Also bound, per policy at 100/110/120/130 % arrived, what any rearrangement of "
                "the pods it placed (unlimited migrations) could allocate (slower: one LP per "
                "run, policy and level)");
  cmd->add_option("--format", o->format, "table or json")->capture_default_str();
  cmd->add_option("--out", o->out, "Write to this file instead of stdout");
  cmd->callback([o, &exit_code] { exit_code = run_pack(*o); });
}

}  // namespace frugal
