#include "service/local_cluster.h"

#include <fmt/format.h>

#include <map>

namespace frugal {
namespace {

// "2 x L4" / "1 node(s): 2 x L4; 1 node(s): 8 x H100" for messages.
std::string describe(const ClusterSpec& c, const GpuCatalog& catalog) {
  std::map<std::pair<std::string, int>, int> groups;
  for (const NodeSpec& n : c.nodes)
    ++groups[{n.model == kNoGpuModel ? std::string("no GPU") : catalog.at(n.model).name, n.gpus}];
  std::string out;
  for (const auto& [k, count] : groups)
    out +=
        fmt::format("{}{} node(s) of {} x {}", out.empty() ? "" : ", ", count, k.second, k.first);
  return out.empty() ? "no nodes" : out;
}

}  // namespace

Result<ClusterSpec> place_local_host(ClusterSpec host, const ClusterSpec& file,
                                     const std::string& file_name, const GpuCatalog& catalog) {
  if (file.regions.size() != 1)
    return Error{fmt::format(
        "{}: regions: the local backend takes exactly one region (where this host is); the "
        "file has {}",
        file_name, file.regions.size())};
  if (file.pools.size() > 1)
    return Error{fmt::format(
        "{}: pools: the local backend takes at most one pool (this host); the file has {}",
        file_name, file.pools.size())};
  if (!file.pools.empty() && !file.nodes.empty()) {
    bool same = file.nodes.size() == host.nodes.size();
    for (size_t i = 0; same && i < file.nodes.size(); ++i)
      same = file.nodes[i].gpus == host.nodes[i].gpus && file.nodes[i].model == host.nodes[i].model;
    if (!same)
      return Error{fmt::format(
          "{}: pools[0] '{}': node_groups declare {}, but this host has {} (the local backend "
          "uses the real GPUs; drop node_groups, or make them match)",
          file_name, file.pools[0].name, describe(file, catalog), describe(host, catalog))};
  }
  if (!file.pools.empty()) {
    Pool p = file.pools[0];
    p.region = 0;
    host.pools = {p};
    for (NodeSpec& n : host.nodes) n.pool = 0;
  }
  host.regions = {file.regions[0]};
  if (!file.storage_tiers.empty()) host.storage_tiers = file.storage_tiers;
  return host;
}

}  // namespace frugal
