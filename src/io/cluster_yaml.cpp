// The YAML cluster spec (docs/CLUSTER_SPEC.md): regions -> pools -> node groups, expanded
// into one NodeSpec per node. One function per level, so later keys (prices, PUE, ...) slot
// in at the level they belong to.
#include "io/cluster_yaml.h"

#include <cctype>
#include <cmath>
#include <set>

#include "io/yaml_util.h"

namespace frugal {
namespace {

using yamlio::index;
using yamlio::join;
using yamlio::Reader;

constexpr int64_t kMaxGroupCount = 100000;
constexpr size_t kMaxNodes = 1000000;      // whole cluster
constexpr double kMaxCpus = 1000000;       // per node
constexpr double kMaxMemoryGib = 1 << 24;  // per node (16 PiB)

// Names become node names, report keys and CSV cells.
void check_name(const Reader& r, const YAML::Node& n, const std::string& path,
                const std::string& name) {
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '|' || c == '"')
      r.fail(path, n, "'" + name + "' must not contain spaces, ',', '|' or '\"'");
  }
}

// State shared while walking the document.
struct Walk {
  const Reader& r;
  const GpuCatalog& catalog;
  ClusterSpec spec;
  std::set<std::string> region_names, pool_names, group_names;
};

std::string known_models(const GpuCatalog& catalog) {
  std::string out;
  for (const auto& m : catalog.models()) out += (out.empty() ? "" : ", ") + m.name;
  return out.empty() ? "(none)" : out;
}

int64_t bounded_integer(const Reader& r, const YAML::Node& n, const std::string& path, int64_t lo,
                        int64_t hi) {
  const int64_t v = r.integer_value(n, path);
  if (v < lo || v > hi)
    r.fail(path, n,
           "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
               n.Scalar());
  return v;
}

std::string unique_name(Walk& w, const YAML::Node& parent, const std::string& path,
                        std::set<std::string>& seen, const char* what) {
  const YAML::Node n = w.r.required(parent, path, "name");
  const std::string name = w.r.string_value(n, join(path, "name"));
  check_name(w.r, n, join(path, "name"), name);
  if (!seen.insert(name).second)
    w.r.fail(join(path, "name"), n, std::string("duplicate ") + what + " name '" + name + "'");
  return name;
}

void parse_node_group(Walk& w, const YAML::Node& n, const std::string& path, uint32_t pool) {
  const Reader& r = w.r;
  r.require_map(n, path);
  r.check_keys(n, path, {"name", "count", "gpu_model", "gpus_per_node", "cpus", "memory_gib"});
  const std::string name = unique_name(w, n, path, w.group_names, "node group");

  const int64_t count =
      bounded_integer(r, r.required(n, path, "count"), join(path, "count"), 1, kMaxGroupCount);
  const int gpus = static_cast<int>(bounded_integer(
      r, r.required(n, path, "gpus_per_node"), join(path, "gpus_per_node"), 0, kMaxGpusPerNode));

  GpuModelId model = kNoGpuModel;
  if (auto m = r.optional(n, "gpu_model")) {
    const std::string model_name = r.string_value(*m, join(path, "gpu_model"));
    auto id = w.catalog.find(model_name);
    if (!id)
      r.fail(join(path, "gpu_model"), *m,
             "unknown GPU model '" + model_name + "' in node group '" + name +
                 "' (known models: " + known_models(w.catalog) + ")");
    model = *id;
  } else if (gpus > 0) {
    r.fail(join(path, "gpu_model"), n,
           "required field is missing (node group '" + name + "' has gpus_per_node " +
               std::to_string(gpus) + ")");
  }

  int64_t cpu_milli = 0;
  if (auto c = r.optional(n, "cpus")) {
    const double cpus = r.number_value(*c, join(path, "cpus"));
    if (cpus < 0 || cpus > kMaxCpus)
      r.fail(join(path, "cpus"), *c, "must be between 0 and 1000000, got " + c->Scalar());
    cpu_milli = std::llround(cpus * 1000);
  }
  int64_t memory_mib = 0;
  if (auto m = r.optional(n, "memory_gib")) {
    const double gib = r.number_value(*m, join(path, "memory_gib"));
    if (gib < 0 || gib > kMaxMemoryGib)
      r.fail(join(path, "memory_gib"), *m, "must be between 0 and 16777216, got " + m->Scalar());
    memory_mib = std::llround(gib * 1024);
  }

  if (w.spec.nodes.size() + static_cast<size_t>(count) > kMaxNodes)
    r.fail(join(path, "count"), n, "the cluster would exceed 1000000 nodes");
  NodeSpec node;
  node.pool = pool;
  node.model = model;
  node.gpus = gpus;
  node.cpu_milli = cpu_milli;
  node.memory_mib = memory_mib;
  for (int64_t i = 0; i < count; ++i) {
    node.name = name + "-" + std::to_string(i);
    w.spec.nodes.push_back(node);
  }
}

void parse_pool(Walk& w, const YAML::Node& n, const std::string& path, uint32_t region) {
  const Reader& r = w.r;
  r.require_map(n, path);
  r.check_keys(n, path, {"name", "node_groups"});
  const std::string name = unique_name(w, n, path, w.pool_names, "pool");
  const auto pool = static_cast<uint32_t>(w.spec.pools.size());
  Pool p;
  p.name = name;
  p.region = region;
  w.spec.pools.push_back(p);

  const YAML::Node groups = r.required(n, path, "node_groups");
  const std::string gpath = join(path, "node_groups");
  r.require_sequence(groups, gpath);
  if (groups.size() == 0) r.fail(gpath, groups, "pool '" + name + "' has no node groups");
  for (size_t i = 0; i < groups.size(); ++i) parse_node_group(w, groups[i], index(gpath, i), pool);
}

void parse_region(Walk& w, const YAML::Node& n, const std::string& path) {
  const Reader& r = w.r;
  r.require_map(n, path);
  r.check_keys(n, path, {"name", "timezone", "pools"});
  Region region;
  region.name = unique_name(w, n, path, w.region_names, "region");
  if (auto tz = r.optional(n, "timezone"))
    region.timezone = r.string_value(*tz, join(path, "timezone"));
  else if (n["timezone"].IsDefined())
    r.fail(join(path, "timezone"), n, "must not be empty");
  const auto id = static_cast<uint32_t>(w.spec.regions.size());
  w.spec.regions.push_back(std::move(region));

  const YAML::Node pools = r.required(n, path, "pools");
  const std::string ppath = join(path, "pools");
  r.require_sequence(pools, ppath);
  if (pools.size() == 0) r.fail(ppath, pools, "region has no pools");
  for (size_t i = 0; i < pools.size(); ++i) parse_pool(w, pools[i], index(ppath, i), id);
}

ClusterSpec parse_cluster(const Reader& r, std::string_view text, const GpuCatalog& catalog) {
  const YAML::Node doc = yamlio::parse_document(text, r.origin());
  r.require_map(doc, "");
  r.check_keys(doc, "", {"regions"});
  const YAML::Node regions = r.required(doc, "", "regions");
  r.require_sequence(regions, "regions");
  if (regions.size() == 0) r.fail("regions", regions, "the cluster has no regions");

  Walk w{r, catalog, {}, {}, {}, {}};
  for (size_t i = 0; i < regions.size(); ++i) parse_region(w, regions[i], index("regions", i));
  if (w.spec.nodes.empty()) r.fail("", doc, "the cluster has no nodes");
  return std::move(w.spec);
}

}  // namespace

Result<ClusterSpec> parse_cluster_yaml(std::string_view text, const std::string& origin,
                                       const GpuCatalog& catalog) {
  try {
    return parse_cluster(Reader(origin), text, catalog);
  } catch (const yamlio::YamlInputError& e) {
    return Error{e.what()};
  } catch (const YAML::Exception& e) {
    return Error{origin + ": " + e.what()};
  } catch (const std::exception& e) {
    return Error{origin + ": " + e.what()};
  }
}

}  // namespace frugal
