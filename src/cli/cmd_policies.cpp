// `frugal policies`: every profile, placer and suffix a policy string may name, with its
// help, its pipeline and its options — generated from the registry (policy/registry.h).
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "policy/profile.h"
#include "policy/registry.h"

namespace frugal {
namespace {

using Kind = PolicyEntry::Kind;

// The pipeline a profile's defaults build ("sort=... place=... elastic ...").
std::string pipeline(const PolicyEntry& e) {
  auto p = make_profile(e.name);
  return p.ok() ? p.value().describe() : "error: " + p.error().message;
}

nlohmann::json to_json(const PolicyEntry& e) {
  nlohmann::json j{{"name", e.name}, {"help", e.help}};
  if (e.kind == Kind::kProfile) {
    j["pipeline"] = pipeline(e);
    nlohmann::json opts = nlohmann::json::array();
    for (const OptionSpec& o : e.options) {
      nlohmann::json oj{{"key", o.key},
                        {"type", o.type == OptionSpec::Type::kFlag ? "flag" : "number"},
                        {"default", o.fallback},
                        {"help", o.help}};
      if (o.most >= 0) oj["most"] = o.most;
      if (!o.unit.empty()) oj["unit"] = o.unit;
      opts.push_back(std::move(oj));
    }
    j["options"] = std::move(opts);
  }
  return j;
}

void print_text() {
  fmt::print("Policy strings: NAME[:key=value...][/PLACER][+SUFFIX...]\n\nProfiles (NAME):\n");
  for (const PolicyEntry& e : policy_registry()) {
    if (e.kind != Kind::kProfile) continue;
    fmt::print("  {:<13} {}\n  {:<13} {}\n", e.name, e.help, "", pipeline(e));
    for (const OptionSpec& o : e.options) {
      const std::string value =
          fmt::format("{}={}{}", o.key, default_text(o), o.unit.empty() ? "" : " " + o.unit);
      fmt::print("  {:<15} {:<28} {}{}\n", "", value, o.help,
                 o.most < 0      ? ""
                 : o.unit == "s" ? fmt::format(" (at most {:.0f} days)", o.most / 86400)
                                 : fmt::format(" (at most {:g})", o.most));
    }
  }
  for (const auto& [kind, title] : {std::pair{Kind::kPlacer, "Placers (/PLACER)"},
                                    std::pair{Kind::kSuffix, "Suffixes (+SUFFIX)"}}) {
    fmt::print("\n{}:\n", title);
    for (const PolicyEntry& e : policy_registry())
      if (e.kind == kind) fmt::print("  {:<13} {}\n", e.name, e.help);
  }
}

}  // namespace

void add_policies_command(CLI::App& app, int& exit_code) {
  auto format = std::make_shared<std::string>("table");
  auto* cmd = app.add_subcommand(
      "policies", "List the profiles, placers and suffixes a policy string may name, with options");
  cmd->add_option("--format", *format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->callback([format, &exit_code] {
    exit_code = 0;
    if (*format == "table") {
      print_text();
      return;
    }
    nlohmann::json out{{"profiles", nlohmann::json::array()},
                       {"placers", nlohmann::json::array()},
                       {"suffixes", nlohmann::json::array()}};
    for (const PolicyEntry& e : policy_registry()) {
      const char* key = e.kind == Kind::kProfile  ? "profiles"
                        : e.kind == Kind::kPlacer ? "placers"
                                                  : "suffixes";
      out[key].push_back(to_json(e));
    }
    fmt::print("{}\n", out.dump(2));
  });
}

}  // namespace frugal
