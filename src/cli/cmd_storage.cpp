// `frugal storage`: the storage manager of a serve config, from the command line (safe while
// the service runs: SQLite WAL and a busy timeout). ls, du, policy, gc, bill, dataset add|ls.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "storage/storage_manager.h"
#include "storage/storage_yaml.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using storage::StorageManager;

struct StorageOptions {
  std::string config;
  std::string db;  // default: the config's db:, else frugal.db beside it
  bool json = false;
  bool dry_run = false;
  std::string job;
  std::string spec, path, team = "default";
  double at = -1;  // bill: the time to bill up to (< 0: now)
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string beside(const std::string& config, const std::string& p) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (fs::absolute(config).parent_path() / p).lexically_normal().string();
}

// The config's storage: section (tier folders relative to the file) and database path.
Result<std::pair<storage::StorageConfig, std::string>> load(const StorageOptions& o) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(o.config);
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}: {}", o.config, e.what())};
  }
  const YAML::Node n = root["storage"];
  if (!n || n.IsNull()) return Error{fmt::format("{}: storage: section missing", o.config)};
  auto c = storage::parse_storage_yaml(n, o.config);
  if (!c.ok()) return c.error();
  if (!c.value().enabled) return Error{fmt::format("{}: storage.enabled is false", o.config)};
  for (storage::TierConfig& t : c.value().tiers) {
    t.path = beside(o.config, t.path);
    t.standby_path = beside(o.config, t.standby_path);
  }
  std::string db = o.db;
  if (db.empty()) db = beside(o.config, root["db"] ? root["db"].as<std::string>() : "frugal.db");
  return std::make_pair(std::move(c).value(), db);
}

// A writer (gc, dataset add) takes the storage writer lock and so fails, saying so, while
// `frugal serve` runs on the same database; the read-only commands open as readers.
Result<std::unique_ptr<StorageManager>> open(const StorageOptions& o, storage::Access access) {
  auto c = load(o);
  if (!c.ok()) return c.error();
  auto m = StorageManager::open(c.value().first, c.value().second, {}, access);
  if (!m.ok()) return Error{fmt::format("{}: {}", o.config, m.error().message)};
  return m;
}

std::string human(uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 5) {
    v /= 1000;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

int cmd_ls(StorageManager& m, const StorageOptions& o) {
  const auto recs = m.checkpoints(o.job);
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& c : recs)
      j.push_back({{"job", c.job},
                   {"team", c.team},
                   {"name", c.name},
                   {"step", c.step},
                   {"complete", c.completed_at >= 0},
                   {"tier", storage::tier_name(c.tier)},
                   {"path", c.path},
                   {"bytes", c.bytes}});
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{:<20} {:<24} {:>10} {:<5} {:>10} {}\n", "job", "checkpoint", "step", "tier", "size",
             "complete");
  for (const auto& c : recs)
    fmt::print("{:<20} {:<24} {:>10} {:<5} {:>10} {}\n", c.job, c.name, c.step,
               storage::tier_name(c.tier), human(c.bytes), c.completed_at >= 0 ? "yes" : "no");
  return 0;
}

int cmd_du(StorageManager& m, const StorageOptions& o) {
  const storage::StorageView v = m.view();
  if (o.json) {
    fmt::print("{}\n", storage::view_json(v));
    return 0;
  }
  fmt::print("{:<5} {:>10} {:>10} {:>9}  {}\n", "tier", "used", "capacity", "$/GB-mo", "path");
  for (const auto& t : v.tiers)
    fmt::print("{:<5} {:>10} {:>10} {:>9.4f}  {}{}\n", t.name, human(t.used_bytes),
               t.capacity_bytes ? human(t.capacity_bytes) : "unlimited", t.usd_per_gb_month,
               t.active_path.empty() ? t.path : t.active_path,
               t.active_path == t.path ? "" : " (standby/unavailable)");
  fmt::print("\n{:<20} {:>10}\n", "team", "bytes");
  for (const auto& [team, bytes] : v.team_bytes) fmt::print("{:<20} {:>10}\n", team, human(bytes));
  fmt::print("\ndatasets {}  objects {}  checkpoints {}  staged {}\n", v.datasets, v.objects,
             v.checkpoints, v.staged);
  fmt::print("dedup: {} logical stored as {} ({:.2f}x)\n", human(v.dataset_logical_bytes),
             human(v.dataset_stored_bytes), v.dedup_ratio);
  for (const std::string& a : v.alerts) fmt::print("ALERT: {}\n", a);
  return 0;
}

// The storage bill (storage_bill.h) up to --at (default now): per team and tier GB-hours and USD,
// transfers, waste, dedup; a reader.
int cmd_bill(StorageManager& m, const StorageOptions& o) {
  auto b = m.bill(o.at >= 0 ? o.at : now_s());
  if (!b.ok()) {
    fmt::print(stderr, "error: {}\n", b.error().message);
    return 1;
  }
  if (o.json) {
    fmt::print("{}\n", storage::bill_json(b.value()));
    return 0;
  }
  fmt::print("{:<16} {:<5} {:>14} {:>12}\n", "team", "tier", "GB-hours", "USD");
  auto rows = [](const std::string& who, const storage::TeamBill& t) {
    for (const auto& [tier, tb] : t.tiers)
      fmt::print("{:<16} {:<5} {:>14.6f} {:>12.6f}\n", who, tier, tb.gb_hours, tb.usd);
    fmt::print("{:<16} {:<5} {:>11.6f} GB {:>12.6f}\n", who, "xfer", t.transfer_gb, t.transfer_usd);
    std::string waste;
    for (const auto& [c, usd] : t.waste_usd) waste += fmt::format(" {} ${:.6f}", c, usd);
    fmt::print(
        "{:<16} total ${:.6f}; waste:{}; dedup {} logical, {:.0f} B stored, avoids "
        "${:.6f}/month\n",
        who, t.total_usd, waste.empty() ? " none" : waste, human(t.dataset_logical_bytes),
        t.dataset_stored_bytes, t.cas_avoided_usd_per_month);
  };
  for (const auto& [team, t] : b.value().teams) rows(team.empty() ? "(no team)" : team, t);
  rows("TOTAL", b.value().total);
  return 0;
}

nlohmann::json policy_json(const storage::LifecyclePolicy& p) {
  return {{"keep_hot", p.keep_hot},
          {"warm_after_s", p.warm_after_s},
          {"cold_after_s", p.cold_after_s},
          {"retain_count", p.retain_count},
          {"retain_age_s", p.retain_age_s}};
}

int cmd_policy(const StorageOptions& o) {
  auto c = load(o);
  if (!c.ok()) {
    fmt::print(stderr, "error: {}\n", c.error().message);
    return 1;
  }
  const storage::StorageConfig& s = c.value().first;
  nlohmann::json j{{"default", policy_json(s.default_policy)},
                   {"checkpoint_marker", s.marker},
                   {"lifecycle_interval_s", s.lifecycle_interval_s}};
  for (const auto& [team, p] : s.team_policies) j["teams"][team] = policy_json(p);
  if (o.json) {
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{:<12} {:>8} {:>12} {:>12} {:>12} {:>12}\n", "policy", "keep_hot", "warm_after_s",
             "cold_after_s", "retain_count", "retain_age_s");
  auto row = [](const std::string& who, const storage::LifecyclePolicy& p) {
    fmt::print("{:<12} {:>8} {:>12} {:>12} {:>12} {:>12}\n", who, p.keep_hot, p.warm_after_s,
               p.cold_after_s, p.retain_count, p.retain_age_s);
  };
  row("default", s.default_policy);
  for (const auto& [team, p] : s.team_policies) row(team, p);
  fmt::print("checkpoint marker: {}; lifecycle every {} s\n", s.marker, s.lifecycle_interval_s);
  return 0;
}

int cmd_gc(StorageManager& m, const StorageOptions& o) {
  // The CLI does not know which jobs may restart: it treats every job as restartable, so the
  // newest complete checkpoint of each job is kept.
  auto items = m.gc(o.dry_run, now_s(), [](const std::string&) { return true; });
  if (!items.ok()) {
    fmt::print(stderr, "error: {}\n", items.error().message);
    return 1;
  }
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& i : items.value())
      j.push_back({{"kind", i.kind}, {"path", i.path}, {"bytes", i.bytes}, {"reason", i.reason}});
    fmt::print("{}\n", nlohmann::json{{"dry_run", o.dry_run}, {"items", j}}.dump(2));
    return 0;
  }
  uint64_t total = 0;
  for (const auto& i : items.value()) {
    fmt::print("{:<15} {:>10}  {}  ({})\n", i.kind, human(i.bytes), i.path, i.reason);
    total += i.bytes;
  }
  fmt::print("{} {} item(s), {}\n", o.dry_run ? "would delete" : "deleted", items.value().size(),
             human(total));
  return 0;
}

void print_datasets(const std::vector<storage::DatasetInfo>& ds, bool json) {
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& d : ds)
      j.push_back({{"dataset", d.spec},
                   {"teams", d.teams},
                   {"files", d.manifest.size()},
                   {"bytes", d.logical_bytes}});
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("{:<32} {:>7} {:>10}  {}\n", "dataset", "files", "size", "teams");
  for (const auto& d : ds) {
    std::string teams;
    for (const auto& t : d.teams) teams += (teams.empty() ? "" : ",") + t;
    fmt::print("{:<32} {:>7} {:>10}  {}\n", d.spec, d.manifest.size(), human(d.logical_bytes),
               teams);
  }
}

// Opens the manager (as `access`) and runs `body` on it; errors to stderr.
template <class F>
int with_manager(const StorageOptions& o, storage::Access access, F body) {
  auto m = open(o, access);
  if (!m.ok()) {
    fmt::print(stderr, "error: {}\n", m.error().message);
    return 1;
  }
  return body(*m.value());
}

void add_dataset_commands(CLI::App* storage_cmd, const std::shared_ptr<StorageOptions>& o,
                          int& exit_code) {
  auto* ds = storage_cmd->add_subcommand("dataset", "Datasets in the content-addressed store");
  ds->require_subcommand(1);
  auto* add = ds->add_subcommand("add", "Hash a folder's files and register NAME@VERSION");
  add->add_option("spec", o->spec, "NAME@VERSION")->required();
  add->add_option("path", o->path, "The dataset's folder (or one file)")->required();
  add->add_option("--team", o->team, "The team declaring it")->capture_default_str();
  add->callback([o, &exit_code] {
    exit_code = with_manager(*o, storage::Access::writer, [&o](StorageManager& m) {
      auto d = m.add_dataset(o->spec, o->path, o->team, now_s());
      if (!d.ok()) {
        fmt::print(stderr, "error: {}\n", d.error().message);
        return 1;
      }
      print_datasets({d.value()}, o->json);
      return 0;
    });
  });
  auto* ls = ds->add_subcommand("ls", "Registered datasets");
  ls->callback([o, &exit_code] {
    exit_code = with_manager(*o, storage::Access::reader, [&o](StorageManager& m) {
      print_datasets(m.list_datasets(), o->json);
      return 0;
    });
  });
}

}  // namespace

void add_storage_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<StorageOptions>();
  auto* cmd = app.add_subcommand(
      "storage", "The storage manager of a serve config: checkpoints and datasets on tiers");
  cmd->require_subcommand(1);
  cmd->add_option("--config", o->config, "Serve configuration (YAML) with a storage: section")
      ->required();
  cmd->add_option("--db", o->db, "The service's database (default: the config's db:)");
  cmd->add_flag("--json", o->json, "JSON instead of text tables");
  auto* ls = cmd->add_subcommand("ls", "Recorded checkpoints, their tier and completion");
  ls->add_option("--job", o->job, "Only this job's");
  ls->callback([o, &exit_code] {
    exit_code = with_manager(*o, storage::Access::reader,
                             [&o](StorageManager& m) { return cmd_ls(m, *o); });
  });
  cmd->add_subcommand("du", "Bytes per tier and team, dedup figures, tier alerts")
      ->callback([o, &exit_code] {
        exit_code = with_manager(*o, storage::Access::reader,
                                 [&o](StorageManager& m) { return cmd_du(m, *o); });
      });
  cmd->add_subcommand("policy", "The lifecycle policies (default and per team)")
      ->callback([o, &exit_code] { exit_code = cmd_policy(*o); });
  auto* gc = cmd->add_subcommand("gc", "Delete what the policy and refcounts say can go");
  gc->add_flag("--dry-run", o->dry_run, "Only list it");
  gc->callback([o, &exit_code] {
    exit_code = with_manager(*o, o->dry_run ? storage::Access::reader : storage::Access::writer,
                             [&o](StorageManager& m) { return cmd_gc(m, *o); });
  });
  auto* bill = cmd->add_subcommand("bill", "What the stored bytes cost: per team and tier");
  bill->add_option("--at", o->at, "Bill up to this UNIX time (default: now)");
  bill->callback([o, &exit_code] {
    exit_code = with_manager(*o, storage::Access::reader,
                             [&o](StorageManager& m) { return cmd_bill(m, *o); });
  });
  add_dataset_commands(cmd, o, exit_code);
  // --json, --config and --db may also follow the subcommand.
  for (CLI::App* sub : cmd->get_subcommands([](CLI::App*) { return true; })) {
    sub->fallthrough();
    for (CLI::App* leaf : sub->get_subcommands([](CLI::App*) { return true; })) leaf->fallthrough();
  }
}

}  // namespace frugal
