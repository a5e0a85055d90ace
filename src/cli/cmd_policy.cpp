// `frugal policy` and `frugal shadow`: the live service's active policy (GET/POST /v1/policy)
// and its shadow policies (GET /v1/shadow); docs/WHATIF.md.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/client_options.h"
#include "cli/commands.h"

namespace frugal {
namespace {

void print_policy(const nlohmann::json& b) {
  fmt::print("active policy: {} (from {})\n", b.value("policy", ""),
             b.value("source", "") == "api" ? "a policy change" : "the config");
  if (b.contains("guard")) {
    const auto& g = b["guard"];
    fmt::print("policy guard: fallback {}, {}", g.value("fallback", ""),
               g.value("armed", false) ? "armed" : "fell back (POST a policy to rearm)");
    if (g.value("worse_since", -1.0) >= 0)
      fmt::print(", active worse since {:.0f}", g["worse_since"].get<double>());
    fmt::print("\n");
  }
  if (b.contains("pause_general")) {
    const auto& p = b["pause_general"];
    if (p.value("paused", false))
      fmt::print("general tier: paused by {} ({} job(s) waiting)\n",
                 fmt::join(p["paused_by"].get<std::vector<std::string>>(), ", "),
                 p.value("paused_jobs", 0));
    else
      fmt::print("general tier: not paused (pauses on {})\n",
                 fmt::join(p["on"].get<std::vector<std::string>>(), ", "));
    const nlohmann::json teams = p.value("teams", nlohmann::json::object());  // outlives items()
    for (const auto& [team, rules] : teams.items())
      fmt::print("  team {}: general tier paused by {}\n", team,
                 fmt::join(rules.get<std::vector<std::string>>(), ", "));
  }
  for (const auto& c : b.value("changes", nlohmann::json::array()))
    fmt::print("  {:.0f}  {} -> {}  by {}: {}\n", c.value("at", 0.0), c.value("from", ""),
               c.value("to", ""), c.value("by", ""), c.value("reason", ""));
}

std::string seconds(double s) {
  if (s < 120) return fmt::format("{:.0f}s", s);
  if (s < 7200) return fmt::format("{:.1f}m", s / 60);
  return fmt::format("{:.1f}h", s / 3600);
}

void print_row(const std::string& name, const nlohmann::json& f) {
  fmt::print("{:<24} {:>7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>6.1f}% {:>7}\n", name,
             f.value("started", 0), f.value("completed", 0),
             seconds(f["wait_s"].value("mean", 0.0)), seconds(f["wait_s"].value("p99", 0.0)),
             seconds(f["wait_by_tier_s"]["core"].value("p95", 0.0)),
             fmt::format("${:.2f}", f.value("cost_usd", 0.0)),
             100 * f.value("gpu_utilization", 0.0), f.value("deadline_misses", 0));
}

void print_shadow(const nlohmann::json& b, const std::string& window) {
  fmt::print("window {}; {} event(s) fed to the shadows\n", window, b.value("events", 0));
  fmt::print("{:<24} {:>7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7}\n", "", "started", "done",
             "wait mean", "wait p99", "core p95", "cost", "util", "dl miss");
  print_row(b["real"].value("policy", "") + " (real)", b["real"]["windows"][window]);
  for (const auto& s : b["shadows"])
    print_row(s.value("policy", "") + (s.value("active", false) ? " (shadow)" : ""),
              s["windows"][window]);
}

}  // namespace

void add_policy_commands(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ClientOptions>();
  auto set = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "policy", "The live service's active policy and its changes; --set switches it (admin)");
  o->add_to(cmd);
  cmd->add_option("--set", *set, "Make this policy the active one now (POST /v1/policy)");
  cmd->add_option("--reason", *reason, "Why (kept in the audit log), with --set");
  cmd->add_flag("--json", *json, "Print the service's answer as JSON");
  cmd->callback([=, &exit_code] {
    if (!reason->empty() && set->empty()) {
      fmt::print(stderr, "error: --reason goes with --set\n");
      exit_code = 1;
      return;
    }
    if (!set->empty()) {
      nlohmann::json body = {{"policy", *set}};
      if (!reason->empty()) body["reason"] = *reason;
      exit_code = report(o->client().post("/v1/policy", body));
      return;
    }
    const auto r = o->client().get("/v1/policy");
    if (const int rc = report(r, *json); rc != 0 || *json) {
      exit_code = rc;
      return;
    }
    print_policy(r.value().body);
  });

  auto so = std::make_shared<ClientOptions>();
  auto window = std::make_shared<std::string>("24h");
  auto sjson = std::make_shared<bool>(false);
  auto* sh = app.add_subcommand(
      "shadow", "Shadow policies beside the active one as it really ran (GET /v1/shadow)");
  so->add_to(sh);
  sh->add_option("--window", *window, "Window shown")
      ->check(CLI::IsMember({"1h", "24h", "7d"}))
      ->capture_default_str();
  sh->add_flag("--json", *sjson, "Print the service's answer as JSON");
  sh->callback([=, &exit_code] {
    const auto r = so->client().get("/v1/shadow");
    if (const int rc = report(r, *sjson); rc != 0 || *sjson) {
      exit_code = rc;
      return;
    }
    print_shadow(r.value().body, *window);
  });
}

}  // namespace frugal
