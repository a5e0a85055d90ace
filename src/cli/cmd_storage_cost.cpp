// `frugal storage-cost`: the simulated storage cost of one job's checkpoint series with and
// without a lifecycle policy (src/storage/plan/checkpoint_storage.h), and their ratio.
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cli/commands.h"
#include "io/catalog_yaml.h"
#include "io/cluster_yaml.h"
#include "io/lifecycle_yaml.h"
#include "storage/plan/checkpoint_storage.h"

namespace frugal {
namespace {

using storage::LifecyclePolicies;
using storage::LifecyclePolicy;
using storage::StorageSimResult;

struct StorageCostOptions {
  std::string lifecycle;  // policy file; empty: LifecyclePolicy's defaults
  std::string cluster;    // for the tier prices; empty: default_storage_tiers()
  double checkpoint_gb = 1000;
  double interval_h = 2;
  double run_days = 30;
  double horizon_days = -1;  // < 0: run_days
  double write_min = 0;
  std::string team = "default";
};

Result<storage::TierPrices> prices_of(const std::string& cluster) {
  if (cluster.empty()) return storage::tier_prices({});
  auto catalog = load_builtin_catalog();
  if (!catalog.ok()) return catalog.error();
  auto spec = load_cluster_file(cluster, catalog.value());
  if (!spec.ok()) return spec.error();
  return storage::tier_prices(spec.value().storage_tiers);
}

Result<StorageSimResult> run(const StorageCostOptions& o, const LifecyclePolicies& p,
                             const storage::TierPrices& prices) {
  storage::CheckpointSeries s;
  s.job = "run";
  s.team = o.team;
  s.run_s = o.run_days * 86400;
  s.interval_s = o.interval_h * 3600;
  s.gb = o.checkpoint_gb;
  s.write_s = o.write_min * 60;
  storage::StorageSimOptions so;
  so.until = (o.horizon_days < 0 ? o.run_days : o.horizon_days) * 86400;
  so.sweep_s = p.sweep_s;
  return storage::simulate_checkpoint_storage(
      {s}, [&](const std::string& team) -> const LifecyclePolicy& { return p.for_team(team); },
      prices, so);
}

std::string policy_text(const LifecyclePolicy& p) {
  auto after = [](double s) {
    return s < 0 ? std::string("never") : fmt::format("{:g} h", s / 3600);
  };
  return fmt::format("keep_hot {}, warm after {}, cold after {}, retain_count {}, retain_age {}",
                     p.keep_hot, after(p.warm_after_s), after(p.cold_after_s),
                     p.retain_count == 0 ? std::string("no limit") : std::to_string(p.retain_count),
                     p.retain_age_s > 0 ? fmt::format("{:g} h", p.retain_age_s / 3600) : "none");
}

void print_row(const std::string& name, const StorageSimResult& r) {
  constexpr double kTbMonth = 1000.0 * 720.0;  // GB-hours in a TB-month
  fmt::print("{:<26} {:>9.1f} {:>9.1f} {:>9.1f} {:>8.1f} {:>6} {:>7} {:>12.2f}\n", name,
             r.gb_hours[0] / kTbMonth, r.gb_hours[1] / kTbMonth, r.gb_hours[2] / kTbMonth,
             r.peak_gb / 1000, r.moves, r.deleted, r.total_usd());
}

int storage_cost(const StorageCostOptions& o) {
  LifecyclePolicies with;
  if (!o.lifecycle.empty()) {
    auto p = load_lifecycle_file(o.lifecycle);
    if (!p.ok()) {
      fmt::print(stderr, "error: {}\n", p.error().message);
      return 1;
    }
    with = p.value();
  }
  LifecyclePolicies without;
  without.default_policy = storage::keep_everything_policy();
  without.sweep_s = with.sweep_s;
  auto prices = prices_of(o.cluster);
  if (!prices.ok()) {
    fmt::print(stderr, "error: {}\n", prices.error().message);
    return 1;
  }
  auto a = run(o, without, prices.value());
  auto b = run(o, with, prices.value());
  if (!a.ok() || !b.ok()) {
    fmt::print(stderr, "error: {}\n", (a.ok() ? b.error() : a.error()).message);
    return 1;
  }
  const auto& pr = prices.value().usd_per_gb_month;
  fmt::print(
      "checkpoints: {:g} GB every {:g} h for {:g} d ({} written), counted over {:g} d; "
      "$/GB-month hot {:g}, warm {:g}, cold {:g}\n",
      o.checkpoint_gb, o.interval_h, o.run_days, a.value().written,
      o.horizon_days < 0 ? o.run_days : o.horizon_days, pr[0], pr[1], pr[2]);
  fmt::print("policy ({}): {}\n\n", o.lifecycle.empty() ? "defaults" : o.lifecycle,
             policy_text(with.for_team(o.team)));
  fmt::print("{:<26} {:>9} {:>9} {:>9} {:>8} {:>6} {:>7} {:>12}\n", "", "hot TB-mo", "warm", "cold",
             "peak TB", "moves", "deleted", "storage USD");
  print_row("without lifecycle (hot)", a.value());
  print_row("with lifecycle", b.value());
  const double base = a.value().total_usd();
  const double ratio = base > 0 ? b.value().total_usd() / base : 1.0;
  fmt::print("\nratio with/without: {:.4f} (saves ${:.2f}, {:.1f} %)\n", ratio,
             base - b.value().total_usd(), 100 * (1 - ratio));
  return 0;
}

}  // namespace

void add_storage_cost_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<StorageCostOptions>();
  auto* cmd = app.add_subcommand(
      "storage-cost",
      "Simulated storage cost of one job's checkpoints with and without a lifecycle policy");
  cmd->add_option("--lifecycle", o->lifecycle,
                  "Lifecycle policy YAML (lifecycle:, team_policies:, lifecycle_interval_s:; or "
                  "a serve config's storage: section); default: the built-in defaults");
  cmd->add_option("--cluster", o->cluster, "Cluster file whose storage_tiers give the prices");
  cmd->add_option("--checkpoint-gb", o->checkpoint_gb, "Size of one checkpoint (GB)")
      ->check(CLI::Range(1e-6, 1e9))
      ->capture_default_str();
  cmd->add_option("--interval-h", o->interval_h, "Hours between checkpoints")
      ->check(CLI::Range(1e-3, 1e5))
      ->capture_default_str();
  cmd->add_option("--run-days", o->run_days, "Length of the run (days)")
      ->check(CLI::Range(0.0, 3650.0))
      ->capture_default_str();
  cmd->add_option("--horizon-days", o->horizon_days,
                  "Days the storage is counted over (default: the run's length)")
      ->check(CLI::Range(0.0, 36500.0));
  cmd->add_option("--write-min", o->write_min,
                  "Minutes to write one checkpoint (held on hot, incomplete, meanwhile)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--team", o->team, "The job's team (picks team_policies)")->capture_default_str();
  cmd->callback([o, &exit_code] { exit_code = storage_cost(*o); });
}

}  // namespace frugal
