#include "service/config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "io/hourly_csv.h"
#include "io/policy_yaml.h"
#include "io/yaml_util.h"

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

}  // namespace

Result<ServiceConfig> load_service_config(const std::string& path) {
  Result<std::string> text = yamlio::read_text_file(path);
  if (!text.ok()) return text.error();
  ServiceConfig c;
  std::string key = "(document)";
  try {
    const YAML::Node root = YAML::Load(text.value());
    if (!root.IsMap()) return Error{fmt::format("{}: expected a map of settings", path)};
    static const char* kKeys[] = {"listen",
                                  "db",
                                  "backend",
                                  "policy",
                                  "checkpoint_grace_s",
                                  "term_grace_s",
                                  "log_dir",
                                  "checkpoint_dir",
                                  "max_request_bytes",
                                  "http_threads",
                                  "node",
                                  "cluster",
                                  "teams",
                                  "admin",
                                  "alerts",
                                  "telemetry_period_s",
                                  "price_fallback",
                                  "slurm"};
    for (const auto& kv : root) {
      const std::string k = kv.first.as<std::string>();
      if (std::find(std::begin(kKeys), std::end(kKeys), k) == std::end(kKeys))
        return Error{fmt::format("{}: unknown key '{}'", path, k)};
    }
    key = "listen";
    get(root, "listen", c.listen);
    key = "db";
    get(root, "db", c.db);
    key = "backend";
    get(root, "backend", c.backend);
    key = "policy";
    c.policy = policy_text(root["policy"]);  // a string or a map; default: `frugal`
    key = "checkpoint_grace_s";
    get(root, "checkpoint_grace_s", c.checkpoint_grace_s);
    key = "term_grace_s";
    get(root, "term_grace_s", c.term_grace_s);
    key = "log_dir";
    get(root, "log_dir", c.log_dir);
    key = "checkpoint_dir";
    get(root, "checkpoint_dir", c.checkpoint_dir);
    key = "max_request_bytes";
    get(root, "max_request_bytes", c.max_request_bytes);
    key = "http_threads";
    get(root, "http_threads", c.http_threads);
    key = "telemetry_period_s";
    get(root, "telemetry_period_s", c.telemetry_period_s);
    if (const YAML::Node n = root["node"]; n) {
      key = "node";
      if (!n.IsMap()) return Error{fmt::format("{}: node: expected a map", path)};
      get(n, "name", c.node_name);
      get(n, "nvml", c.use_nvml);
      get(n, "gpu_model", c.gpu_model);
      key = "node.gpus";
      get(n, "gpus", c.gpus);
    }
    key = "cluster";
    if (root["cluster"] && !root["cluster"].IsNull()) {
      const std::filesystem::path p = root["cluster"].as<std::string>();
      c.cluster_file =
          p.is_absolute() ? p.string() : (std::filesystem::path(path).parent_path() / p).string();
    }
    if (const YAML::Node pf = root["price_fallback"]; pf) {
      key = "price_fallback";
      if (!pf.IsMap())
        return Error{
            fmt::format("{}: price_fallback: expected a map (usd_per_mwh, file or command)", path)};
      for (const auto& kv : pf) {
        const std::string k = kv.first.as<std::string>();
        if (k != "usd_per_mwh" && k != "file" && k != "command" && k != "refresh_s" &&
            k != "timeout_s")
          return Error{fmt::format("{}: price_fallback: unknown key '{}'", path, k)};
      }
      PriceFallbackConfig& f = c.price_fallback;
      key = "price_fallback.usd_per_mwh";
      get(pf, "usd_per_mwh", f.usd_per_mwh);
      if (pf["usd_per_mwh"] && !(f.usd_per_mwh >= 0 && f.usd_per_mwh <= kMaxUsdPerMwh))
        return Error{fmt::format("{}: {}: 0..{}", path, key, kMaxUsdPerMwh)};
      key = "price_fallback.file";
      if (pf["file"] && !pf["file"].IsNull()) {
        const std::filesystem::path p = pf["file"].as<std::string>();
        f.file =
            p.is_absolute() ? p.string() : (std::filesystem::path(path).parent_path() / p).string();
      }
      key = "price_fallback.command";
      get(pf, "command", f.command);
      key = "price_fallback.refresh_s";
      get(pf, "refresh_s", f.refresh_s);
      if (!(f.refresh_s >= 1 && f.refresh_s <= 7 * 86400))
        return Error{fmt::format("{}: {}: 1..604800", path, key)};
      key = "price_fallback.timeout_s";
      get(pf, "timeout_s", f.timeout_s);
      if (!(f.timeout_s >= 1 && f.timeout_s <= 3600))
        return Error{fmt::format("{}: {}: 1..3600", path, key)};
      const int sources = (f.usd_per_mwh >= 0) + !f.file.empty() + !f.command.empty();
      if (sources != 1)
        return Error{fmt::format(
            "{}: price_fallback: give exactly one of usd_per_mwh, file or command (got {})", path,
            sources)};
    }
    if (const YAML::Node t = root["teams"]; t) {
      key = "teams";
      if (!t.IsMap()) return Error{fmt::format("{}: teams: expected a map of team names", path)};
      for (const auto& kv : t) {
        TeamConfig team;
        team.name = kv.first.as<std::string>();
        if (team.name == kExternalTeam)
          return Error{
              fmt::format("{}: teams.{}: reserved for jobs submitted to the backend directly", path,
                          team.name)};
        key = "teams." + team.name + ".token_sha256";
        team.token_sha256 = kv.second["token_sha256"].as<std::string>();
        if (!is_hex_digest(team.token_sha256))
          return Error{fmt::format("{}: {}: expected 64 lower-case hex digits", path, key)};
        c.teams.push_back(team);
      }
    }
    if (const YAML::Node a = root["admin"]; a) {
      key = "admin.token_sha256";
      c.admin_token_sha256 = a["token_sha256"].as<std::string>();
      if (!is_hex_digest(c.admin_token_sha256))
        return Error{fmt::format("{}: {}: expected 64 lower-case hex digits", path, key)};
    }
    if (const YAML::Node a = root["alerts"]; a) {
      key = "alerts";
      if (const YAML::Node lu = a["low_utilization"]; lu) {
        key = "alerts.low_utilization";
        get(lu, "below", c.alerts.low_utilization_below);
        get(lu, "minutes", c.alerts.low_utilization_minutes);
      }
      key = "alerts.gpu_memory_above";
      get(a, "gpu_memory_above", c.alerts.gpu_memory_above);
      key = "alerts.node_silent_s";
      get(a, "node_silent_s", c.alerts.node_silent_s);
      key = "alerts.deadline_risk";
      get(a, "deadline_risk", c.alerts.deadline_risk);
      key = "alerts.webhook";
      get(a, "webhook", c.alerts.webhook);
    }
    if (const YAML::Node sl = root["slurm"]; sl) {
      key = "slurm";
      if (!sl.IsMap()) return Error{fmt::format("{}: slurm: expected a map", path)};
      static const char* kSlurmKeys[] = {
          "rest_url",        "api_version",     "user",          "jwt",
          "scontrol",        "partition",       "timeout_s",     "shards_per_gpu",
          "manage_external", "poll_interval_s", "stale_after_s", "max_backoff_s",
          "gres_log",        "gpu_map",         "priority_core", "priority_important",
          "priority_general"};
      for (const auto& kv : sl) {
        const std::string k = kv.first.as<std::string>();
        if (std::find(std::begin(kSlurmKeys), std::end(kSlurmKeys), k) == std::end(kSlurmKeys))
          return Error{fmt::format("{}: slurm: unknown key '{}'", path, k)};
      }
      SlurmConfig& s = c.slurm;
      key = "slurm.rest_url";
      get(sl, "rest_url", s.rest_url);
      key = "slurm.api_version";
      get(sl, "api_version", s.api_version);
      key = "slurm.user";
      get(sl, "user", s.user);
      key = "slurm.jwt";
      get(sl, "jwt", s.jwt);
      key = "slurm.scontrol";
      get(sl, "scontrol", s.scontrol);
      key = "slurm.partition";
      get(sl, "partition", s.partition);
      key = "slurm.timeout_s";
      get(sl, "timeout_s", s.timeout_s);
      key = "slurm.shards_per_gpu";
      get(sl, "shards_per_gpu", s.shards_per_gpu);
      key = "slurm.manage_external";
      get(sl, "manage_external", s.manage_external);
      if (s.manage_external)
        return Error{fmt::format(
            "{}: slurm.manage_external: true is not supported: frugal observes and accounts "
            "for jobs submitted to Slurm directly but never holds, releases or preempts them "
            "(docs/SLURM.md)",
            path)};
      key = "slurm.priority_core";
      get(sl, "priority_core", s.priority_core);
      key = "slurm.priority_important";
      get(sl, "priority_important", s.priority_important);
      key = "slurm.priority_general";
      get(sl, "priority_general", s.priority_general);
      if (!(s.priority_core > s.priority_important && s.priority_important > s.priority_general &&
            s.priority_general > 0))
        return Error{fmt::format(
            "{}: slurm.priority_core/important/general: need core > important > general > 0",
            path)};
      key = "slurm.poll_interval_s";
      get(sl, "poll_interval_s", c.slurm_poll_interval_s);
      key = "slurm.stale_after_s";
      get(sl, "stale_after_s", c.slurm_stale_after_s);
      key = "slurm.max_backoff_s";
      get(sl, "max_backoff_s", c.slurm_max_backoff_s);
      key = "slurm.gres_log";
      get(sl, "gres_log", c.slurm_gres_log);
      if (const YAML::Node m = sl["gpu_map"]; m) {
        key = "slurm.gpu_map";
        if (!m.IsMap())
          return Error{fmt::format("{}: slurm.gpu_map: expected GRES type: model pairs", path)};
        s.gpu_map.clear();
        for (const auto& kv : m)
          s.gpu_map.push_back({kv.second.as<std::string>(), kv.first.as<std::string>(), ""});
      }
      if (!(s.timeout_s > 0) || !(c.slurm_poll_interval_s > 0) ||
          !(c.slurm_stale_after_s > c.slurm_poll_interval_s) ||
          !(c.slurm_max_backoff_s >= c.slurm_poll_interval_s))
        return Error{
            fmt::format("{}: slurm: need timeout_s > 0, poll_interval_s > 0, "
                        "stale_after_s > poll_interval_s, max_backoff_s >= poll_interval_s",
                        path)};
      if (s.shards_per_gpu < 1 || s.shards_per_gpu > 1000)
        return Error{fmt::format("{}: slurm.shards_per_gpu: 1..1000", path)};
    }
  } catch (const YAML::Exception& e) {
    return Error{fmt::format("{}: {}: {}", path, key, e.what())};
  }
  if (c.backend != "local" && c.backend != "dry-run" && c.backend != "slurm")
    return Error{fmt::format("{}: backend: '{}' is not local, dry-run or slurm", path, c.backend)};
  if (!(c.checkpoint_grace_s >= 0) || !(c.term_grace_s >= 0))
    return Error{fmt::format("{}: grace periods must be >= 0", path)};
  if (c.gpus < 0 || c.gpus > 64) return Error{fmt::format("{}: node.gpus: 0..64", path)};
  if (!(c.telemetry_period_s >= 0.01) || c.telemetry_period_s > 3600)
    return Error{fmt::format("{}: telemetry_period_s: 0.01..3600", path)};
  if (c.http_threads < 1 || c.http_threads > 256)
    return Error{fmt::format("{}: http_threads: 1..256", path)};
  if (c.max_request_bytes < 1024) return Error{fmt::format("{}: max_request_bytes: >= 1024", path)};
  if (c.teams.empty() && c.admin_token_sha256.empty())
    return Error{fmt::format("{}: no teams and no admin: nobody could use the API", path)};
  if (!c.alerts.webhook.empty() && c.alerts.webhook.rfind("http://", 0) != 0)
    return Error{fmt::format("{}: alerts.webhook: only http:// URLs are supported", path)};
  return c;
}

}  // namespace frugal
