#include "storage/storage_yaml.h"

#include <fmt/format.h>

#include <set>

namespace frugal::storage {
namespace {

// Reads scalar fields of one map, collecting the first error; rejects unknown keys.
class Fields {
 public:
  Fields(const YAML::Node& n, std::string where) : n_(n), where_(std::move(where)) {}

  Status check_keys(const std::set<std::string>& known) const {
    if (!n_.IsMap()) return Error{fmt::format("{}: expected a map", where_)};
    for (const auto& kv : n_) {
      const std::string key = kv.first.as<std::string>();
      if (!known.count(key)) return Error{fmt::format("{}.{}: unknown key", where_, key)};
    }
    return {};
  }

  template <class T>
  Status get(const std::string& key, T& out) const {
    const YAML::Node v = n_[key];
    if (!v) return {};
    try {
      out = v.as<T>();
    } catch (const YAML::Exception&) {
      return Error{fmt::format("{}.{}: expected {}", where_, key, kind<T>())};
    }
    return {};
  }

  const std::string& where() const { return where_; }

 private:
  template <class T>
  static const char* kind() {
    if constexpr (std::is_same_v<T, std::string>) return "a string";
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    if constexpr (std::is_integral_v<T>) return "an integer";
    return "a number";
  }
  YAML::Node n_;
  std::string where_;
};

#define FRUGAL_TRY(expr) \
  if (Status s_ = (expr); !s_.ok()) return s_.error()

Result<TierConfig> parse_tier_yaml(const YAML::Node& n, const std::string& name,
                                   const std::string& where) {
  const Fields f(n, where);
  FRUGAL_TRY(
      f.check_keys({"path", "standby_path", "capacity_gb", "capacity_bytes", "usd_per_gb_month",
                    "read_mb_s", "write_mb_s", "mover_command", "transfer_usd_per_gb"}));
  TierConfig t;
  t.name = name;
  double capacity_gb = 0;
  FRUGAL_TRY(f.get("path", t.path));
  FRUGAL_TRY(f.get("standby_path", t.standby_path));
  FRUGAL_TRY(f.get("capacity_gb", capacity_gb));
  FRUGAL_TRY(f.get("capacity_bytes", t.capacity_bytes));
  FRUGAL_TRY(f.get("usd_per_gb_month", t.usd_per_gb_month));
  FRUGAL_TRY(f.get("read_mb_s", t.read_mb_s));
  FRUGAL_TRY(f.get("write_mb_s", t.write_mb_s));
  FRUGAL_TRY(f.get("mover_command", t.mover_command));
  FRUGAL_TRY(f.get("transfer_usd_per_gb", t.transfer_usd_per_gb));
  if (t.transfer_usd_per_gb < 0)
    return Error{fmt::format("{}.transfer_usd_per_gb: must be >= 0", where)};
  if (t.path.empty()) return Error{fmt::format("{}.path: required", where)};
  if (capacity_gb < 0) return Error{fmt::format("{}.capacity_gb: must be >= 0", where)};
  if (capacity_gb > 0) t.capacity_bytes = static_cast<uint64_t>(capacity_gb * 1e9);
  return t;
}

Result<LifecyclePolicy> parse_policy_yaml(const YAML::Node& n, LifecyclePolicy p,
                                          const std::string& where) {
  const Fields f(n, where);
  FRUGAL_TRY(
      f.check_keys({"keep_hot", "warm_after_s", "cold_after_s", "retain_count", "retain_age_s"}));
  FRUGAL_TRY(f.get("keep_hot", p.keep_hot));
  FRUGAL_TRY(f.get("warm_after_s", p.warm_after_s));
  FRUGAL_TRY(f.get("cold_after_s", p.cold_after_s));
  FRUGAL_TRY(f.get("retain_count", p.retain_count));
  FRUGAL_TRY(f.get("retain_age_s", p.retain_age_s));
  return p;
}

}  // namespace

Result<StorageConfig> parse_storage_yaml(const YAML::Node& node, const std::string& where) {
  const std::string w = where.empty() ? "storage" : where + ": storage";
  const Fields f(node, w);
  FRUGAL_TRY(f.check_keys({"enabled", "tiers", "lifecycle", "team_policies", "checkpoint_marker",
                           "lifecycle_interval_s", "dataset_roots", "hot_unused_after_s"}));
  StorageConfig c;
  c.enabled = true;
  FRUGAL_TRY(f.get("enabled", c.enabled));
  FRUGAL_TRY(f.get("checkpoint_marker", c.marker));
  FRUGAL_TRY(f.get("lifecycle_interval_s", c.lifecycle_interval_s));
  FRUGAL_TRY(f.get("hot_unused_after_s", c.hot_unused_after_s));
  if (c.hot_unused_after_s < 0) return Error{fmt::format("{}.hot_unused_after_s: must be >= 0", w)};
  if (const YAML::Node roots = node["dataset_roots"]) {
    if (!roots.IsSequence())
      return Error{fmt::format("{}.dataset_roots: expected a list of folders", w)};
    for (const auto& r : roots) {
      if (!r.IsScalar() || r.as<std::string>().empty())
        return Error{fmt::format("{}.dataset_roots: expected a list of folders", w)};
      c.dataset_roots.push_back(r.as<std::string>());
    }
  }
  if (const YAML::Node tiers = node["tiers"]) {
    if (!tiers.IsMap()) return Error{fmt::format("{}.tiers: expected a map of hot, warm, cold", w)};
    for (const auto& kv : tiers) {
      const std::string name = kv.first.as<std::string>();
      Tier t{};
      if (!parse_tier(name, t))
        return Error{fmt::format("{}.tiers.{}: unknown tier (hot, warm or cold)", w, name)};
      auto tier = parse_tier_yaml(kv.second, name, fmt::format("{}.tiers.{}", w, name));
      if (!tier.ok()) return tier.error();
      c.tiers.push_back(std::move(tier).value());
    }
  }
  if (const YAML::Node l = node["lifecycle"]) {
    auto p = parse_policy_yaml(l, c.default_policy, w + ".lifecycle");
    if (!p.ok()) return p.error();
    c.default_policy = p.value();
  }
  if (const YAML::Node tp = node["team_policies"]) {
    if (!tp.IsMap()) return Error{fmt::format("{}.team_policies: expected a map", w)};
    for (const auto& kv : tp) {
      const std::string team = kv.first.as<std::string>();
      auto p = parse_policy_yaml(kv.second, c.default_policy,
                                 fmt::format("{}.team_policies.{}", w, team));
      if (!p.ok()) return p.error();
      c.team_policies[team] = p.value();
    }
  }
  return c;
}

}  // namespace frugal::storage
