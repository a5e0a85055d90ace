#include "io/policy_yaml.h"

#include <fmt/format.h>

#include "policy/frugal_profile.h"

namespace frugal {
namespace {

[[noreturn]] void fail(const YAML::Node& n, const std::string& what) {
  throw YAML::Exception(n.Mark(), what);
}

std::string scalar(const YAML::Node& n, const char* what) {
  if (!n.IsScalar()) fail(n, fmt::format("{}: expected a single value", what));
  return n.Scalar();
}

// An option value: YAML booleans as 0/1, anything else as written (typed by make_profile).
std::string option_value(const YAML::Node& n, const std::string& key) {
  const std::string v = scalar(n, fmt::format("options.{}", key).c_str());
  if (v == "true" || v == "True" || v == "yes") return "1";
  if (v == "false" || v == "False" || v == "no") return "0";
  return v;
}

}  // namespace

std::string policy_text(const YAML::Node& n) {
  if (!n || n.IsNull()) return default_profile_name();
  if (n.IsScalar()) return n.Scalar().empty() ? default_profile_name() : n.Scalar();
  if (!n.IsMap()) fail(n, "expected a policy string or a map (name, options, placer, suffixes)");
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (k != "name" && k != "options" && k != "placer" && k != "suffixes")
      fail(kv.first, fmt::format("unknown key '{}' (known: name, options, placer, suffixes)", k));
  }
  if (!n["name"]) fail(n, "a policy map needs 'name'");
  std::string text = scalar(n["name"], "name");
  if (const YAML::Node opts = n["options"]; opts && !opts.IsNull()) {
    if (!opts.IsMap()) fail(opts, "options: expected a map of key: value");
    for (const auto& kv : opts) {
      const std::string key = kv.first.as<std::string>();
      text += fmt::format(":{}={}", key, option_value(kv.second, key));
    }
  }
  if (const YAML::Node placer = n["placer"]; placer && !placer.IsNull())
    text += "/" + scalar(placer, "placer");
  if (const YAML::Node suffixes = n["suffixes"]; suffixes && !suffixes.IsNull()) {
    if (!suffixes.IsSequence()) fail(suffixes, "suffixes: expected a list of names");
    for (const YAML::Node& s : suffixes) text += "+" + scalar(s, "suffixes[]");
  }
  return text;
}

}  // namespace frugal
