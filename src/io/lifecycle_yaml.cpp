// Lifecycle policies from YAML (lifecycle_yaml.h).
#include "io/lifecycle_yaml.h"

#include <yaml-cpp/yaml.h>

#include "io/yaml_util.h"

namespace frugal {

namespace {

using storage::LifecyclePolicies;
using storage::LifecyclePolicy;
using yamlio::join;
using yamlio::Reader;

double non_negative(const Reader& r, const YAML::Node& n, const std::string& path) {
  const double v = r.number_value(n, path);
  if (v < 0) r.fail(path, n, "must be >= 0");
  return v;
}

int count(const Reader& r, const YAML::Node& n, const std::string& path) {
  const int64_t v = r.integer_value(n, path);
  if (v < 0 || v > 1'000'000) r.fail(path, n, "must be between 0 and 1000000");
  return static_cast<int>(v);
}

// A policy map over `p` (the fields it leaves out keep p's values).
LifecyclePolicy read_policy(const Reader& r, const YAML::Node& n, const std::string& path,
                            LifecyclePolicy p) {
  r.require_map(n, path);
  r.check_keys(n, path,
               {"keep_hot", "warm_after_s", "cold_after_s", "retain_count", "retain_age_s"});
  if (auto v = r.optional(n, "keep_hot")) p.keep_hot = count(r, *v, join(path, "keep_hot"));
  // < 0: never (lifecycle.h).
  if (auto v = r.optional(n, "warm_after_s"))
    p.warm_after_s = r.number_value(*v, join(path, "warm_after_s"));
  if (auto v = r.optional(n, "cold_after_s"))
    p.cold_after_s = r.number_value(*v, join(path, "cold_after_s"));
  if (auto v = r.optional(n, "retain_count"))
    p.retain_count = count(r, *v, join(path, "retain_count"));
  if (auto v = r.optional(n, "retain_age_s"))
    p.retain_age_s = non_negative(r, *v, join(path, "retain_age_s"));
  return p;
}

LifecyclePolicies read_policies(const Reader& r, const YAML::Node& doc) {
  r.require_map(doc, "");
  YAML::Node section = doc;
  std::string path;
  if (auto s = r.optional(doc, "storage")) {  // a whole serve config
    section = *s;
    path = "storage";
    r.require_map(section, path);
    r.check_keys(section, path,
                 {"enabled", "tiers", "lifecycle", "team_policies", "checkpoint_marker",
                  "lifecycle_interval_s"});
  } else {
    r.check_keys(doc, path, {"lifecycle", "team_policies", "lifecycle_interval_s"});
  }
  LifecyclePolicies out;
  if (auto l = r.optional(section, "lifecycle"))
    out.default_policy = read_policy(r, *l, join(path, "lifecycle"), out.default_policy);
  if (auto tp = r.optional(section, "team_policies")) {
    const std::string tp_path = join(path, "team_policies");
    r.require_map(*tp, tp_path);
    for (const auto& kv : *tp) {
      const std::string team = r.string_value(kv.first, tp_path);
      out.team_policies[team] = read_policy(r, kv.second, join(tp_path, team), out.default_policy);
    }
  }
  if (auto i = r.optional(section, "lifecycle_interval_s")) {
    const std::string ipath = join(path, "lifecycle_interval_s");
    out.sweep_s = r.number_value(*i, ipath);
    if (out.sweep_s <= 0) r.fail(ipath, *i, "must be > 0");
  }
  return out;
}

}  // namespace

Result<LifecyclePolicies> parse_lifecycle_yaml(std::string_view text, const std::string& origin) {
  try {
    const Reader r(origin);
    return read_policies(r, yamlio::parse_document(text, origin));
  } catch (const yamlio::YamlInputError& e) {
    return Error{e.what()};
  } catch (const YAML::Exception& e) {
    return Error{origin + ": " + e.what()};
  }
}

Result<LifecyclePolicies> load_lifecycle_file(const std::string& path) {
  auto text = yamlio::read_text_file(path);
  if (!text.ok()) return text.error();
  return parse_lifecycle_yaml(text.value(), path);
}

}  // namespace frugal
