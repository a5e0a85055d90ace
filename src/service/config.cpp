#include "service/config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <span>
#include <tuple>

#include "io/hourly_csv.h"
#include "io/policy_yaml.h"
#include "io/yaml_util.h"
#include "storage/storage_yaml.h"

namespace frugal {
namespace {

bool is_hex_digest(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

template <class T>
void get(const YAML::Node& n, const char* key, T& out) {
  if (n[key] && !n[key].IsNull()) out = n[key].as<T>();
}

// Reading one config file: errors name `path`; `key` names the setting a YAML exception
// (caught by load_service_config) is about.
struct Reader {
  const std::string& path;
  std::string key = "(document)";

  // n[name] into `out` when given, under the key prefix + name.
  template <class T>
  void read(const YAML::Node& n, const std::string& prefix, const char* name, T& out) {
    key = prefix + name;
    get(n, name, out);
  }
  // A file named in the config: relative paths are relative to the config file's directory.
  std::string beside(const std::filesystem::path& p) const {
    return p.is_absolute() ? p.string() : (std::filesystem::path(path).parent_path() / p).string();
  }
};

// Error naming the first key of map `n` that is not `known`; `where` prefixes its text.
Status check_keys(const YAML::Node& n, std::span<const char* const> known, const char* where,
                  const std::string& path) {
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (std::find(known.begin(), known.end(), k) == known.end())
      return Error{fmt::format("{}: {}unknown key '{}'", path, where, k)};
  }
  return Status::Ok();
}

constexpr const char* kKeys[] = {"listen",
                                 "db",
                                 "backend",
                                 "policy",
                                 "shadow_policies",
                                 "shadow_thread",
                                 "policy_guard",
                                 "checkpoint_grace_s",
                                 "term_grace_s",
                                 "log_dir",
                                 "checkpoint_dir",
                                 "max_request_bytes",
                                 "http_threads",
                                 "http_read_timeout_s",
                                 "read_snapshot_s",
                                 "min_free_mb",
                                 "max_job_output_mb",
                                 "retain_jobs_s",
                                 "retain_logs_s",
                                 "max_jobs_per_cycle",
                                 "node",
                                 "cluster",
                                 "teams",
                                 "admin",
                                 "alerts",
                                 "pause_general",
                                 "agents",
                                 "telemetry",
                                 "telemetry_period_s",
                                 "usage_interval_s",
                                 "usage_retention_s",
                                 "sharing",
                                 "price_fallback",
                                 "slurm",
                                 "storage"};
constexpr const char* kPriceFallbackKeys[] = {"usd_per_mwh", "file", "command", "refresh_s",
                                              "timeout_s"};
constexpr const char* kSlurmKeys[] = {
    "rest_url",         "api_version",     "user",          "jwt",
    "scontrol",         "partition",       "timeout_s",     "shards_per_gpu",
    "manage_external",  "poll_interval_s", "stale_after_s", "max_backoff_s",
    "gres_log",         "gpu_map",         "priority_core", "priority_important",
    "priority_general", "pools",           "reclaim_reason"};

// One section of the file (or the top level's settings), read into the config; each leaves
// what it does not name alone. Error: the first setting at fault.
using Section = Status (*)(const YAML::Node& root, Reader& r, ServiceConfig& c);

Status read_top_level(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  if (Status st = check_keys(root, kKeys, "", r.path); !st.ok()) return st;
  r.read(root, "", "listen", c.listen);
  r.read(root, "", "db", c.db);
  r.read(root, "", "backend", c.backend);
  r.key = "policy";
  c.policy = policy_text(root["policy"]);  // a string or a map; default: `frugal`
  r.key = "shadow_policies";
  if (const YAML::Node sp = root["shadow_policies"]; sp && !sp.IsNull()) {
    if (!sp.IsSequence())
      return Error{fmt::format("{}: shadow_policies: expected a list of policies", r.path)};
    for (const YAML::Node& p : sp) c.shadow_policies.push_back(policy_text(p));
  }
  r.read(root, "", "shadow_thread", c.shadow_thread);
  r.read(root, "", "checkpoint_grace_s", c.checkpoint_grace_s);
  r.read(root, "", "term_grace_s", c.term_grace_s);
  r.read(root, "", "log_dir", c.log_dir);
  r.read(root, "", "checkpoint_dir", c.checkpoint_dir);
  r.read(root, "", "max_request_bytes", c.max_request_bytes);
  r.read(root, "", "http_threads", c.http_threads);
  r.read(root, "", "http_read_timeout_s", c.http_read_timeout_s);
  r.read(root, "", "read_snapshot_s", c.read_snapshot_s);
  r.read(root, "", "min_free_mb", c.min_free_mb);
  r.read(root, "", "max_job_output_mb", c.max_job_output_mb);
  r.read(root, "", "retain_jobs_s", c.retain_jobs_s);
  r.read(root, "", "retain_logs_s", c.retain_logs_s);
  r.read(root, "", "max_jobs_per_cycle", c.max_jobs_per_cycle);
  r.read(root, "", "telemetry_period_s", c.telemetry_period_s);
  r.read(root, "", "usage_interval_s", c.usage_interval_s);
  r.read(root, "", "usage_retention_s", c.usage_retention_s);
  return Status::Ok();
}

Status read_node(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node n = root["node"];
  if (!n) return Status::Ok();
  r.key = "node";
  if (!n.IsMap()) return Error{fmt::format("{}: node: expected a map", r.path)};
  get(n, "name", c.node_name);
  get(n, "nvml", c.use_nvml);
  get(n, "gpu_model", c.gpu_model);
  r.read(n, "node.", "gpus", c.gpus);
  return Status::Ok();
}

Status read_cluster(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  r.key = "cluster";
  if (root["cluster"] && !root["cluster"].IsNull())
    c.cluster_file = r.beside(root["cluster"].as<std::string>());
  return Status::Ok();
}

Status read_price_fallback(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node pf = root["price_fallback"];
  if (!pf) return Status::Ok();
  const std::string& path = r.path;
  r.key = "price_fallback";
  if (!pf.IsMap())
    return Error{
        fmt::format("{}: price_fallback: expected a map (usd_per_mwh, file or command)", path)};
  if (Status st = check_keys(pf, kPriceFallbackKeys, "price_fallback: ", path); !st.ok()) return st;
  PriceFallbackConfig& f = c.price_fallback;
  r.read(pf, "price_fallback.", "usd_per_mwh", f.usd_per_mwh);
  if (pf["usd_per_mwh"] && !(f.usd_per_mwh >= 0 && f.usd_per_mwh <= kMaxUsdPerMwh))
    return Error{fmt::format("{}: {}: 0..{}", path, r.key, kMaxUsdPerMwh)};
  r.key = "price_fallback.file";
  if (pf["file"] && !pf["file"].IsNull()) f.file = r.beside(pf["file"].as<std::string>());
  r.read(pf, "price_fallback.", "command", f.command);
  r.read(pf, "price_fallback.", "refresh_s", f.refresh_s);
  if (!(f.refresh_s >= 1 && f.refresh_s <= 7 * 86400))
    return Error{fmt::format("{}: {}: 1..604800", path, r.key)};
  r.read(pf, "price_fallback.", "timeout_s", f.timeout_s);
  if (!(f.timeout_s >= 1 && f.timeout_s <= 3600))
    return Error{fmt::format("{}: {}: 1..3600", path, r.key)};
  const int sources = (f.usd_per_mwh >= 0) + !f.file.empty() + !f.command.empty();
  if (sources != 1)
    return Error{
        fmt::format("{}: price_fallback: give exactly one of usd_per_mwh, file or command (got {})",
                    path, sources)};
  return Status::Ok();
}

Status read_teams(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node t = root["teams"];
  if (!t) return Status::Ok();
  r.key = "teams";
  if (!t.IsMap()) return Error{fmt::format("{}: teams: expected a map of team names", r.path)};
  for (const auto& kv : t) {
    TeamConfig team;
    team.name = kv.first.as<std::string>();
    if (team.name == kExternalTeam)
      return Error{fmt::format("{}: teams.{}: reserved for jobs submitted to the backend directly",
                               r.path, team.name)};
    if (team.name == "admin")
      return Error{fmt::format(
          "{}: teams.admin: reserved (the administrator is configured with `admin:`; a team of "
          "that name would pass for it)",
          r.path)};
    r.key = "teams." + team.name + ".token_sha256";
    team.token_sha256 = kv.second["token_sha256"].as<std::string>();
    if (!is_hex_digest(team.token_sha256))
      return Error{fmt::format("{}: {}: expected 64 lower-case hex digits", r.path, r.key)};
    c.teams.push_back(team);
  }
  return Status::Ok();
}

Status read_admin(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node a = root["admin"];
  if (!a) return Status::Ok();
  r.key = "admin.token_sha256";
  c.admin_token_sha256 = a["token_sha256"].as<std::string>();
  if (!is_hex_digest(c.admin_token_sha256))
    return Error{fmt::format("{}: {}: expected 64 lower-case hex digits", r.path, r.key)};
  return Status::Ok();
}

Status read_agents(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node t = root["agents"];
  if (!t) return Status::Ok();
  r.key = "agents";
  if (!t.IsMap()) return Error{fmt::format("{}: agents: expected a map of agent names", r.path)};
  constexpr const char* kAgentKeys[] = {"token_sha256", "nodes"};
  for (const auto& kv : t) {
    AgentConfig a;
    a.name = kv.first.as<std::string>();
    const std::string where = "agents." + a.name + ": ";
    if (!kv.second.IsMap())
      return Error{fmt::format("{}: {}expected a map with token_sha256", r.path, where)};
    if (Status st = check_keys(kv.second, kAgentKeys, where.c_str(), r.path); !st.ok()) return st;
    r.key = "agents." + a.name + ".token_sha256";
    a.token_sha256 = kv.second["token_sha256"].as<std::string>();
    if (!is_hex_digest(a.token_sha256))
      return Error{fmt::format("{}: {}: expected 64 lower-case hex digits", r.path, r.key)};
    r.key = "agents." + a.name + ".nodes";
    get(kv.second, "nodes", a.nodes);
    c.agents.push_back(std::move(a));
  }
  return Status::Ok();
}

Status read_telemetry(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node t = root["telemetry"];
  if (!t) return Status::Ok();
  constexpr const char* kTelemetryKeys[] = {"max_skew_s", "max_age_s", "min_post_interval_s",
                                            "stale_after_s"};
  if (Status st = check_keys(t, kTelemetryKeys, "telemetry.", r.path); !st.ok()) return st;
  TelemetryRules& x = c.telemetry;
  r.read(t, "telemetry.", "max_skew_s", x.max_skew_s);
  r.read(t, "telemetry.", "max_age_s", x.max_age_s);
  r.read(t, "telemetry.", "min_post_interval_s", x.min_post_interval_s);
  r.read(t, "telemetry.", "stale_after_s", x.stale_after_s);
  for (const auto& [name, v] : {std::pair{"max_skew_s", x.max_skew_s},
                                {"max_age_s", x.max_age_s},
                                {"min_post_interval_s", x.min_post_interval_s},
                                {"stale_after_s", x.stale_after_s}})
    if (!(v >= 0)) return Error{fmt::format("{}: telemetry.{}: must be >= 0", r.path, name)};
  return Status::Ok();
}

// alerts.budget_burn: {usd_per_hour, minutes, teams: {team: usd_per_hour}}.
Status read_budget_burn(const YAML::Node& bb, Reader& r, AlertRules& x) {
  constexpr const char* kBurnKeys[] = {"usd_per_hour", "minutes", "teams"};
  r.key = "alerts.budget_burn";
  if (!bb.IsMap())
    return Error{fmt::format("{}: alerts.budget_burn: expected a map of settings", r.path)};
  if (Status st = check_keys(bb, kBurnKeys, "alerts.budget_burn.", r.path); !st.ok()) return st;
  r.read(bb, "alerts.budget_burn.", "usd_per_hour", x.budget_burn_usd_per_hour);
  r.read(bb, "alerts.budget_burn.", "minutes", x.budget_burn_minutes);
  if (const YAML::Node t = bb["teams"]; t && !t.IsNull()) {
    r.key = "alerts.budget_burn.teams";
    if (!t.IsMap())
      return Error{
          fmt::format("{}: alerts.budget_burn.teams: expected team: usd_per_hour pairs", r.path)};
    for (const auto& kv : t) {
      const std::string team = kv.first.as<std::string>();
      r.key = "alerts.budget_burn.teams." + team;
      const double limit = kv.second.as<double>();
      if (!(limit > 0))
        return Error{fmt::format("{}: {}: must be above 0 (USD per hour)", r.path, r.key)};
      x.budget_burn_teams[team] = limit;
    }
  }
  if (!(x.budget_burn_usd_per_hour >= 0))
    return Error{fmt::format("{}: alerts.budget_burn.usd_per_hour: must be >= 0", r.path)};
  if (!(x.budget_burn_minutes > 0 && x.budget_burn_minutes <= 10080))
    return Error{fmt::format("{}: alerts.budget_burn.minutes: above 0, at most 10080", r.path)};
  if (!x.budget_burn_on())
    return Error{
        fmt::format("{}: alerts.budget_burn: no limit (usd_per_hour above 0, or teams)", r.path)};
  return Status::Ok();
}

Status read_alerts(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node a = root["alerts"];
  if (!a) return Status::Ok();
  r.key = "alerts";
  if (const YAML::Node lu = a["low_utilization"]; lu) {
    r.key = "alerts.low_utilization";
    get(lu, "below", c.alerts.low_utilization_below);
    get(lu, "minutes", c.alerts.low_utilization_minutes);
  }
  if (const YAML::Node ji = a["job_idle"]; ji) {
    r.key = "alerts.job_idle";
    get(ji, "below", c.alerts.job_idle_below);
    get(ji, "minutes", c.alerts.job_idle_minutes);
    get(ji, "requeue_after_minutes", c.alerts.job_idle_requeue_minutes);
    get(ji, "requeue_hold_s", c.alerts.job_idle_requeue_hold_s);
  }
  if (const YAML::Node nh = a["node_hot"]; nh) {
    constexpr const char* kNodeHotKeys[] = {"temperature_c", "power_fraction", "minutes",
                                            "stop_general"};
    if (Status st = check_keys(nh, kNodeHotKeys, "alerts.node_hot.", r.path); !st.ok()) return st;
    r.key = "alerts.node_hot";
    get(nh, "temperature_c", c.alerts.node_hot_temperature_c);
    get(nh, "power_fraction", c.alerts.node_hot_power_fraction);
    get(nh, "minutes", c.alerts.node_hot_minutes);
    get(nh, "stop_general", c.alerts.node_hot_stop_general);
    for (const auto& [name, v, most] :
         {std::tuple{"temperature_c", c.alerts.node_hot_temperature_c, 200.0},
          {"power_fraction", c.alerts.node_hot_power_fraction, 2.0},
          {"minutes", c.alerts.node_hot_minutes, 10080.0}})
      if (!(v >= 0 && v <= most))
        return Error{
            fmt::format("{}: alerts.node_hot.{}: must be between 0 and {:g}", r.path, name, most)};
  }
  if (const YAML::Node bb = a["budget_burn"]; bb && !bb.IsNull())
    if (Status st = read_budget_burn(bb, r, c.alerts); !st.ok()) return st;
  r.read(a, "alerts.", "gpu_memory_above", c.alerts.gpu_memory_above);
  r.read(a, "alerts.", "node_silent_s", c.alerts.node_silent_s);
  r.read(a, "alerts.", "deadline_risk", c.alerts.deadline_risk);
  r.read(a, "alerts.", "webhook", c.alerts.webhook);
  return Status::Ok();
}

Status read_pause_general(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node n = root["pause_general"];
  if (!n || n.IsNull()) return Status::Ok();
  constexpr const char* kPauseKeys[] = {"on", "requeue_running"};
  r.key = "pause_general";
  if (!n.IsMap())
    return Error{fmt::format("{}: pause_general: expected a map with `on` (alert rules)", r.path)};
  if (Status st = check_keys(n, kPauseKeys, "pause_general.", r.path); !st.ok()) return st;
  PauseGeneralConfig& p = c.pause_general;
  p.enabled = true;
  r.key = "pause_general.on";
  const YAML::Node on = n["on"];
  if (!on || !on.IsSequence() || on.size() == 0)
    return Error{fmt::format("{}: pause_general.on: expected a list of alert rules", r.path)};
  for (const YAML::Node& rule : on) p.on.push_back(rule.as<std::string>());
  r.read(n, "pause_general.", "requeue_running", p.requeue_running);
  return Status::Ok();
}

Status read_policy_guard(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node n = root["policy_guard"];
  if (!n || n.IsNull()) return Status::Ok();
  constexpr const char* kGuardKeys[] = {"fallback",       "window_s",   "check_every_s",
                                        "core_p95_wait",  "min_wait_s", "usd_per_useful_gpu_hour",
                                        "deadline_misses"};
  r.key = "policy_guard";
  if (!n.IsMap()) return Error{fmt::format("{}: policy_guard: expected a map of settings", r.path)};
  if (Status st = check_keys(n, kGuardKeys, "policy_guard.", r.path); !st.ok()) return st;
  PolicyGuardConfig& g = c.policy_guard;
  g.enabled = true;
  r.key = "policy_guard.fallback";
  if (!n["fallback"]) return Error{fmt::format("{}: policy_guard.fallback: missing", r.path)};
  g.fallback = policy_text(n["fallback"]);
  r.read(n, "policy_guard.", "window_s", g.window_s);
  r.read(n, "policy_guard.", "check_every_s", g.check_every_s);
  r.read(n, "policy_guard.", "core_p95_wait", g.core_p95_wait);
  r.read(n, "policy_guard.", "min_wait_s", g.min_wait_s);
  r.read(n, "policy_guard.", "usd_per_useful_gpu_hour", g.usd_per_useful_gpu_hour);
  r.read(n, "policy_guard.", "deadline_misses", g.deadline_misses);
  if (!(g.window_s >= 1 && g.window_s <= 7 * 86400))
    return Error{fmt::format("{}: policy_guard.window_s: 1..604800", r.path)};
  if (!(g.check_every_s > 0 && g.check_every_s <= g.window_s))
    return Error{fmt::format("{}: policy_guard.check_every_s: above 0, at most window_s", r.path)};
  if (!(g.min_wait_s >= 0)) return Error{fmt::format("{}: policy_guard.min_wait_s: >= 0", r.path)};
  if (g.core_p95_wait < 0 && g.usd_per_useful_gpu_hour < 0 && g.deadline_misses < 0)
    return Error{
        fmt::format("{}: policy_guard: no KPI to watch (core_p95_wait, usd_per_useful_gpu_hour, "
                    "deadline_misses)",
                    r.path)};
  return Status::Ok();
}

Status read_sharing(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node n = root["sharing"];
  if (!n) return Status::Ok();
  constexpr const char* kSharingKeys[] = {"lend_below",   "memory_below", "window_minutes",
                                          "return_above", "min_headroom", "general_lends"};
  SharingConfig& x = c.sharing;
  x.enabled = true;
  if (n.IsNull()) return Status::Ok();  // `sharing:` alone: the defaults
  if (!n.IsMap()) return Error{fmt::format("{}: sharing: expected a map of settings", r.path)};
  if (Status st = check_keys(n, kSharingKeys, "sharing.", r.path); !st.ok()) return st;
  r.read(n, "sharing.", "lend_below", x.lend_below);
  r.read(n, "sharing.", "memory_below", x.memory_below);
  r.read(n, "sharing.", "window_minutes", x.window_minutes);
  r.read(n, "sharing.", "return_above", x.return_above);
  r.read(n, "sharing.", "min_headroom", x.min_headroom);
  r.read(n, "sharing.", "general_lends", x.general_lends);
  for (const auto& [name, v, most] : {std::tuple{"lend_below", x.lend_below, 1.0},
                                      {"memory_below", x.memory_below, 1.0},
                                      {"return_above", x.return_above, 1.0},
                                      {"min_headroom", x.min_headroom, 1.0},
                                      {"window_minutes", x.window_minutes, 1440.0}})
    if (!(v > 0 && v <= most))
      return Error{
          fmt::format("{}: sharing.{}: must be above 0 and at most {:g}", r.path, name, most)};
  if (x.return_above < x.lend_below)
    return Error{fmt::format(
        "{}: sharing.return_above ({:g}) is below sharing.lend_below ({:g}): a guest would be "
        "recalled as soon as it started",
        r.path, x.return_above, x.lend_below)};
  return Status::Ok();
}

// slurm: how to reach it and the priorities frugal gives its jobs.
Status read_slurm_access(const YAML::Node& sl, Reader& r, SlurmConfig& s) {
  r.read(sl, "slurm.", "rest_url", s.rest_url);
  r.read(sl, "slurm.", "api_version", s.api_version);
  r.read(sl, "slurm.", "user", s.user);
  r.read(sl, "slurm.", "jwt", s.jwt);
  r.read(sl, "slurm.", "scontrol", s.scontrol);
  r.read(sl, "slurm.", "partition", s.partition);
  r.read(sl, "slurm.", "reclaim_reason", s.reclaim_reason);
  r.read(sl, "slurm.", "timeout_s", s.timeout_s);
  r.read(sl, "slurm.", "shards_per_gpu", s.shards_per_gpu);
  r.read(sl, "slurm.", "manage_external", s.manage_external);
  if (s.manage_external)
    return Error{fmt::format(
        "{}: slurm.manage_external: true is not supported: frugal observes and accounts "
        "for jobs submitted to Slurm directly but never holds, releases or preempts them "
        "(docs/SLURM.md)",
        r.path)};
  r.read(sl, "slurm.", "priority_core", s.priority_core);
  r.read(sl, "slurm.", "priority_important", s.priority_important);
  r.read(sl, "slurm.", "priority_general", s.priority_general);
  if (!(s.priority_core > s.priority_important && s.priority_important > s.priority_general &&
        s.priority_general > 0))
    return Error{fmt::format(
        "{}: slurm.priority_core/important/general: need core > important > general > 0", r.path)};
  return Status::Ok();
}

// slurm: polling, the GRES log and the GPU map, then the timing and sharing bounds.
Status read_slurm_state(const YAML::Node& sl, Reader& r, ServiceConfig& c) {
  r.read(sl, "slurm.", "poll_interval_s", c.slurm_poll_interval_s);
  r.read(sl, "slurm.", "stale_after_s", c.slurm_stale_after_s);
  r.read(sl, "slurm.", "max_backoff_s", c.slurm_max_backoff_s);
  r.read(sl, "slurm.", "gres_log", c.slurm_gres_log);
  if (const YAML::Node m = sl["gpu_map"]; m) {
    r.key = "slurm.gpu_map";
    if (!m.IsMap())
      return Error{fmt::format("{}: slurm.gpu_map: expected GRES type: model pairs", r.path)};
    c.slurm.gpu_map.clear();
    for (const auto& kv : m)
      c.slurm.gpu_map.push_back({kv.second.as<std::string>(), kv.first.as<std::string>(), ""});
  }
  if (!(c.slurm.timeout_s > 0) || !(c.slurm_poll_interval_s > 0) ||
      !(c.slurm_stale_after_s > c.slurm_poll_interval_s) ||
      !(c.slurm_max_backoff_s >= c.slurm_poll_interval_s))
    return Error{
        fmt::format("{}: slurm: need timeout_s > 0, poll_interval_s > 0, "
                    "stale_after_s > poll_interval_s, max_backoff_s >= poll_interval_s",
                    r.path)};
  if (c.slurm.shards_per_gpu < 1 || c.slurm.shards_per_gpu > 1000)
    return Error{fmt::format("{}: slurm.shards_per_gpu: 1..1000", r.path)};
  return Status::Ok();
}

Status read_slurm(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node sl = root["slurm"];
  if (!sl) return Status::Ok();
  r.key = "slurm";
  if (!sl.IsMap()) return Error{fmt::format("{}: slurm: expected a map", r.path)};
  if (Status st = check_keys(sl, kSlurmKeys, "slurm: ", r.path); !st.ok()) return st;
  if (Status st = read_slurm_access(sl, r, c.slurm); !st.ok()) return st;
  if (sl["pools"]) {
    r.key = "slurm.pools";
    auto pools = parse_capacity_pools(sl["pools"], r.path);
    if (!pools.ok()) return pools.error();
    c.capacity_pools = std::move(pools).value();
  }
  return read_slurm_state(sl, r, c);
}

// storage: the storage manager's section (storage/storage_yaml.h), its tier folders
// relative to the config file's directory, checked on the file system (storage::validate):
// a tier folder that is missing or not writable stops the service at start.
Status read_storage(const YAML::Node& root, Reader& r, ServiceConfig& c) {
  const YAML::Node n = root["storage"];
  if (!n || n.IsNull()) return Status::Ok();
  r.key = "storage";
  Result<storage::StorageConfig> parsed = storage::parse_storage_yaml(n, r.path);
  if (!parsed.ok()) return parsed.error();
  c.storage = std::move(parsed).value();
  if (!c.storage.enabled) return Status::Ok();  // `enabled: false`: storage off
  for (storage::TierConfig& t : c.storage.tiers) {
    if (!t.path.empty()) t.path = r.beside(t.path);
    if (!t.standby_path.empty()) t.standby_path = r.beside(t.standby_path);
  }
  for (std::string& folder : c.storage.dataset_roots) folder = r.beside(folder);
  if (Status st = storage::validate(c.storage); !st.ok())
    return Error{fmt::format("{}: {}", r.path, st.error().message)};
  return Status::Ok();
}

// The bounds on settings of several sections, checked once all are read.
Status check_bounds(const ServiceConfig& c, const std::string& path) {
  if (c.backend != "local" && c.backend != "dry-run" && c.backend != "slurm")
    return Error{fmt::format("{}: backend: '{}' is not local, dry-run or slurm", path, c.backend)};
  if (!(c.checkpoint_grace_s >= 0) || !(c.term_grace_s >= 0))
    return Error{fmt::format("{}: grace periods must be >= 0", path)};
  if (c.gpus < 0 || c.gpus > 64) return Error{fmt::format("{}: node.gpus: 0..64", path)};
  if (!(c.telemetry_period_s >= 0.01) || c.telemetry_period_s > 3600)
    return Error{fmt::format("{}: telemetry_period_s: 0.01..3600", path)};
  if (!(c.usage_interval_s >= 0.1) || c.usage_interval_s > 86400)
    return Error{fmt::format("{}: usage_interval_s: 0.1..86400", path)};
  if (!(c.usage_retention_s >= 86400) || c.usage_retention_s > 366 * 86400.0)
    return Error{fmt::format("{}: usage_retention_s: 86400..31622400 (1 to 366 days)", path)};
  if (c.http_threads < 1 || c.http_threads > 256)
    return Error{fmt::format("{}: http_threads: 1..256", path)};
  if (c.min_free_mb < 0) return Error{fmt::format("{}: min_free_mb: >= 0", path)};
  if (!(c.retain_jobs_s >= 0) || !(c.retain_logs_s >= 0))
    return Error{fmt::format("{}: retain_jobs_s and retain_logs_s: seconds >= 0", path)};
  if (c.max_job_output_mb < 0 || c.max_job_output_mb > (int64_t{1} << 30))
    return Error{fmt::format("{}: max_job_output_mb: 0 (no cap) to 2^30", path)};
  if (!(c.read_snapshot_s >= 0 && c.read_snapshot_s <= 300))
    return Error{fmt::format("{}: read_snapshot_s: 0..300", path)};
  if (!(c.http_read_timeout_s >= 0.1 && c.http_read_timeout_s <= 3600))
    return Error{fmt::format("{}: http_read_timeout_s: 0.1..3600", path)};
  if (c.max_request_bytes < 1024) return Error{fmt::format("{}: max_request_bytes: >= 1024", path)};
  if (c.teams.empty() && c.admin_token_sha256.empty())
    return Error{fmt::format("{}: no teams and no admin: nobody could use the API", path)};
  if (c.sharing.enabled && c.backend == "slurm")
    return Error{fmt::format(
        "{}: sharing: the slurm backend cannot start a guest on a GPU Slurm has allocated to "
        "another job (Slurm's own sharing is slurm.shards_per_gpu); sharing runs on the local "
        "and dry-run backends",
        path)};
  if (c.storage.enabled && c.backend == "slurm")
    return Error{fmt::format(
        "{}: storage: the slurm backend cannot stage datasets on its nodes' hot tiers yet (that "
        "is the node agent's part); storage runs on the local and dry-run backends",
        path)};
  if (!c.alerts.webhook.empty() && c.alerts.webhook.rfind("http://", 0) != 0)
    return Error{fmt::format("{}: alerts.webhook: only http:// URLs are supported", path)};
  for (const AgentConfig& a : c.agents) {
    const bool shared = a.token_sha256 == c.admin_token_sha256 ||
                        std::any_of(c.teams.begin(), c.teams.end(), [&](const TeamConfig& t) {
                          return t.token_sha256 == a.token_sha256;
                        });
    if (shared)
      return Error{fmt::format(
          "{}: agents.{}.token_sha256: the same token as a team's or the admin's (a node token "
          "must be its own)",
          path, a.name)};
  }
  return Status::Ok();
}

// The setting that turns alert rule `rule` on when `a` leaves it off; "" when it is on.
std::string rule_switch(const AlertRules& a, const std::string& rule) {
  const std::tuple<const char*, bool, const char*> kOff[] = {
      {"budget_burn", !a.budget_burn_on(), "alerts.budget_burn"},
      {"node_hot", !(a.node_hot_temperature_c > 0 || a.node_hot_power_fraction > 0),
       "alerts.node_hot"},
      {"gpu_memory_high", !(a.gpu_memory_above < 1), "alerts.gpu_memory_above"},
      {"low_utilization", !(a.low_utilization_minutes > 0), "alerts.low_utilization.minutes"},
      {"node_silent", !(a.node_silent_s > 0), "alerts.node_silent_s"},
      {"deadline_risk", !a.deadline_risk, "alerts.deadline_risk"},
      {"job_idle", !(a.job_idle_minutes > 0), "alerts.job_idle.minutes"}};
  for (const auto& [name, off, key] : kOff)
    if (rule == name && off) return key;
  return {};
}

// The alert reactions against the rest: budget_burn's teams exist, pause_general names
// rules that exist and are on.
Status check_reactions(const ServiceConfig& c, const std::string& path) {
  for (const auto& [team, limit] : c.alerts.budget_burn_teams)
    if (std::none_of(c.teams.begin(), c.teams.end(),
                     [&](const TeamConfig& t) { return t.name == team; }))
      return Error{
          fmt::format("{}: alerts.budget_burn.teams.{}: no such team (teams:)", path, team)};
  for (const std::string& rule : c.pause_general.on) {
    if (rule == "storage_tier_unavailable" && !c.storage.enabled)
      return Error{fmt::format(
          "{}: pause_general.on: 'storage_tier_unavailable' needs a `storage:` section", path)};
    if (std::find(std::begin(kPauseRules), std::end(kPauseRules), rule) == std::end(kPauseRules))
      return Error{fmt::format("{}: pause_general.on: unknown alert rule '{}' (one of {})", path,
                               rule, fmt::join(kPauseRules, ", "))};
    if (const std::string key = rule_switch(c.alerts, rule); !key.empty())
      return Error{fmt::format("{}: pause_general.on: '{}' is off (set {}): it would never pause",
                               path, rule, key)};
  }
  return Status::Ok();
}

}  // namespace

Result<ServiceConfig> load_service_config(const std::string& path) {
  Result<std::string> text = yamlio::read_text_file(path);
  if (!text.ok()) return text.error();
  ServiceConfig c;
  Reader r{path};
  try {
    const YAML::Node root = YAML::Load(text.value());
    if (!root.IsMap()) return Error{fmt::format("{}: expected a map of settings", path)};
    static constexpr Section kSections[] = {
        read_top_level, read_node,         read_cluster,       read_price_fallback, read_teams,
        read_admin,     read_alerts,       read_agents,        read_telemetry,      read_sharing,
        read_slurm,     read_policy_guard, read_pause_general, read_storage};
    for (const Section section : kSections)
      if (Status st = section(root, r, c); !st.ok()) return st.error();
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}: {}: {}", path, r.key, e.what())};
  }
  if (Status st = check_bounds(c, path); !st.ok()) return st.error();
  if (Status st = check_reactions(c, path); !st.ok()) return st.error();
  return c;
}

}  // namespace frugal
