#include "service/capacity_pools.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "drivers/slurm_parse.h"

namespace frugal {
namespace {

constexpr const char* kPoolKeys[] = {"name",
                                     "nodes",
                                     "features",
                                     "capacity",
                                     "provisioning_delay_s",
                                     "idle_timeout_s",
                                     "rental",
                                     "spot_price_factor",
                                     "reclaim_notice_s",
                                     "reclaim_rate_per_node_hour"};

Result<Capacity> capacity_named(const std::string& s, const std::string& where) {
  if (s == "owned") return Capacity::kOwned;
  if (s == "reserved") return Capacity::kReserved;
  if (s == "on_demand") return Capacity::kOnDemand;
  if (s == "spot") return Capacity::kSpot;
  return Error{
      fmt::format("{}: must be one of owned, reserved, on_demand, spot, got '{}'", where, s)};
}

Result<double> seconds(const YAML::Node& n, const std::string& where) {
  double v = -1;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    return Error{fmt::format("{}: expected a number of seconds", where)};
  }
  if (!(v >= 0 && v <= 7 * 86400)) return Error{fmt::format("{}: 0..604800 seconds", where)};
  return v;
}

Result<std::vector<PoolRate>> rates_of(const YAML::Node& n, const std::string& where) {
  if (!n.IsMap())
    return Error{
        fmt::format("{}: expected a map of MODEL: {{on_demand_usd_h, "
                    "reserved_usd_h}}",
                    where)};
  std::vector<PoolRate> out;
  for (const auto& kv : n) {
    PoolRate r;
    r.model = kv.first.as<std::string>();
    const std::string at = fmt::format("{}.{}", where, r.model);
    if (!kv.second.IsMap()) return Error{fmt::format("{}: expected a map", at)};
    for (const auto& p : kv.second) {
      const std::string k = p.first.as<std::string>();
      double* dst = k == "on_demand_usd_h"  ? &r.on_demand_usd_h
                    : k == "reserved_usd_h" ? &r.reserved_usd_h
                                            : nullptr;
      if (dst == nullptr) return Error{fmt::format("{}: unknown key '{}'", at, k)};
      try {
        *dst = p.second.as<double>();
      } catch (const YAML::Exception&) {
        return Error{fmt::format("{}.{}: expected a number", at, k)};
      }
      if (!(*dst >= 0 && *dst <= 100000))
        return Error{fmt::format("{}.{}: 0..100000 USD per GPU-hour", at, k)};
    }
    out.push_back(r);
  }
  return out;
}

// spot_price_factor, reclaim_notice_s and reclaim_rate_per_node_hour (the rate frugal's spot
// placement plans with; live reclaims are the provider's): spot pools only.
Status spot_terms(const YAML::Node& n, const std::string& where, CapacityPoolConfig& p) {
  for (const char* key : {"spot_price_factor", "reclaim_notice_s", "reclaim_rate_per_node_hour"}) {
    if (!n[key]) continue;
    const std::string at = fmt::format("{}.{}", where, key);
    if (p.capacity != Capacity::kSpot)
      return Error{fmt::format("{}: only a pool of capacity spot takes it", at)};
    double v = 0;
    try {
      v = n[key].as<double>();
    } catch (const YAML::Exception&) {
      return Error{fmt::format("{}: expected a number", at)};
    }
    if (std::string(key) == "spot_price_factor") {
      if (!(v > 0 && v <= 1))
        return Error{fmt::format("{}: a share of the on-demand rate in (0, 1]", at)};
      p.spot.price_factor = v;
    } else if (std::string(key) == "reclaim_rate_per_node_hour") {
      if (!(v >= 0 && v <= 1000)) return Error{fmt::format("{}: 0..1000 per node-hour", at)};
      p.spot.reclaim_rate_per_node_hour = v;
    } else {
      if (!(v >= 0 && v <= 86400)) return Error{fmt::format("{}: 0..86400 seconds", at)};
      p.spot.reclaim_notice_s = v;
    }
  }
  return Status::Ok();
}

Result<CapacityPoolConfig> pool_of(const YAML::Node& n, const std::string& where) {
  if (!n.IsMap()) return Error{fmt::format("{}: expected a map", where)};
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (std::find(std::begin(kPoolKeys), std::end(kPoolKeys), k) == std::end(kPoolKeys))
      return Error{fmt::format("{}: unknown key '{}'", where, k)};
  }
  CapacityPoolConfig p;
  if (!n["name"] || !n["name"].IsScalar() || n["name"].as<std::string>().empty())
    return Error{fmt::format("{}.name: required", where)};
  p.name = n["name"].as<std::string>();
  if (n["nodes"]) {
    if (!n["nodes"].IsScalar()) return Error{fmt::format("{}.nodes: expected a host list", where)};
    p.nodes = n["nodes"].as<std::string>();
  }
  if (n["features"]) {
    if (n["features"].IsScalar()) {
      p.features.push_back(n["features"].as<std::string>());
    } else if (n["features"].IsSequence()) {
      for (const auto& f : n["features"]) p.features.push_back(f.as<std::string>());
    } else {
      return Error{fmt::format("{}.features: expected a list of Slurm features", where)};
    }
  }
  if (p.nodes.empty() && p.features.empty())
    return Error{fmt::format("{}: give nodes (a Slurm host list), features, or both", where)};
  if (n["capacity"]) {
    auto c = capacity_named(n["capacity"].as<std::string>(), where + ".capacity");
    if (!c.ok()) return c.error();
    p.capacity = c.value();
  }
  for (auto [key, dst] : {std::pair{"provisioning_delay_s", &p.provisioning_delay_s},
                          std::pair{"idle_timeout_s", &p.idle_timeout_s}}) {
    if (!n[key]) continue;
    auto v = seconds(n[key], fmt::format("{}.{}", where, key));
    if (!v.ok()) return v.error();
    *dst = v.value();
  }
  if (Status st = spot_terms(n, where, p); !st.ok()) return st.error();
  if (n["rental"]) {
    auto r = rates_of(n["rental"], where + ".rental");
    if (!r.ok()) return r.error();
    p.rates = std::move(r).value();
  }
  return p;
}

// Which pool (index into `pools`, or -1) each inventory node falls in; error on overlaps and
// on pools naming nodes the inventory lacks or matching none.
Result<std::vector<int>> assign(const Inventory& inv,
                                const std::vector<CapacityPoolConfig>& pools) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < inv.nodes.size(); ++i) index[inv.nodes[i].name] = i;
  std::vector<int> of(inv.nodes.size(), -1);
  const auto put = [&](size_t node, size_t pool) -> Status {
    if (of[node] >= 0 && of[node] != static_cast<int>(pool))
      return Error{fmt::format("slurm.pools: node {} is in two pools: '{}' and '{}'",
                               inv.nodes[node].name, pools[static_cast<size_t>(of[node])].name,
                               pools[pool].name)};
    of[node] = static_cast<int>(pool);
    return Status::Ok();
  };
  for (size_t p = 0; p < pools.size(); ++p) {
    auto names = expand_hostlist(pools[p].nodes);
    if (!names.ok())
      return Error{
          fmt::format("slurm.pools '{}': nodes: {}", pools[p].name, names.error().message)};
    std::vector<std::string> missing;
    size_t matched = 0;
    for (const std::string& n : names.value()) {
      const auto it = index.find(n);
      if (it == index.end()) {
        missing.push_back(n);
        continue;
      }
      if (Status st = put(it->second, p); !st.ok()) return st.error();
      ++matched;
    }
    if (!missing.empty())
      return Error{fmt::format("slurm.pools '{}': no Slurm node {} (in the configured partitions)",
                               pools[p].name, fmt::join(missing, ", "))};
    for (size_t i = 0; i < inv.nodes.size(); ++i)
      for (const std::string& f : pools[p].features)
        if (std::find(inv.nodes[i].features.begin(), inv.nodes[i].features.end(), f) !=
            inv.nodes[i].features.end()) {
          if (Status st = put(i, p); !st.ok()) return st.error();
          ++matched;
          break;
        }
    if (matched == 0)
      return Error{fmt::format("slurm.pools '{}': no Slurm node has feature {}", pools[p].name,
                               fmt::join(pools[p].features, " or "))};
  }
  return of;
}

}  // namespace

Result<std::vector<CapacityPoolConfig>> parse_capacity_pools(const YAML::Node& list,
                                                             const std::string& path) {
  if (!list.IsSequence())
    return Error{fmt::format("{}: slurm.pools: expected a list of pools", path)};
  std::vector<CapacityPoolConfig> out;
  for (size_t i = 0; i < list.size(); ++i) {
    auto p = pool_of(list[i], fmt::format("{}: slurm.pools[{}]", path, i));
    if (!p.ok()) return p.error();
    for (const CapacityPoolConfig& q : out)
      if (q.name == p.value().name)
        return Error{
            fmt::format("{}: slurm.pools[{}].name: '{}' is taken", path, i, p.value().name)};
    out.push_back(std::move(p).value());
  }
  return out;
}

Result<ClusterSpec> apply_capacity_pools(ClusterSpec cluster, const Inventory& inv,
                                         const std::vector<CapacityPoolConfig>& pools,
                                         const GpuCatalog& catalog) {
  if (pools.empty()) return cluster;
  if (cluster.nodes.size() != inv.nodes.size())
    return Error{"slurm.pools: the cluster does not match the inventory"};
  for (const CapacityPoolConfig& c : pools)
    for (const Pool& p : cluster.pools)
      if (p.name == c.name)
        return Error{
            fmt::format("slurm.pools '{}': the name of the default pool (nodes in no "
                        "pool); pick another",
                        c.name)};
  auto of = assign(inv, pools);
  if (!of.ok()) return of.error();
  const uint32_t first = static_cast<uint32_t>(cluster.pools.size());
  for (const CapacityPoolConfig& c : pools) {
    Pool p;
    p.name = c.name;
    p.region = cluster.pools.empty() ? 0 : cluster.pools[0].region;
    p.capacity = c.capacity;
    p.provisioning_delay_s = c.provisioning_delay_s;
    p.idle_timeout_s = c.idle_timeout_s;
    p.spot = c.spot;
    for (const PoolRate& r : c.rates) {
      const auto m = catalog.find(r.model);
      if (!m)
        return Error{fmt::format("slurm.pools '{}': rental: '{}' is not a catalog GPU model",
                                 c.name, r.model)};
      p.rental.push_back(RentalOverride{*m, r.on_demand_usd_h, r.reserved_usd_h});
    }
    cluster.pools.push_back(std::move(p));
  }
  for (size_t i = 0; i < cluster.nodes.size(); ++i)
    if (of.value()[i] >= 0) cluster.nodes[i].pool = first + static_cast<uint32_t>(of.value()[i]);
  return cluster;
}

std::vector<std::string> powered_nodes(const ClusterSpec& cluster) {
  std::vector<std::string> out;
  for (const NodeSpec& n : cluster.nodes)
    if (rented(cluster.pools[n.pool].capacity)) out.push_back(n.name);
  return out;
}

}  // namespace frugal
