#include "drivers/slurm_import_map.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/yaml_util.h"

namespace frugal {
namespace {

using yamlio::index;
using yamlio::join;
using yamlio::Reader;

template <class T>
T lookup(const std::map<std::string, T>& by_qos, const std::map<std::string, T>& by_partition,
         T fallback, const std::string& qos, const std::string& partition) {
  if (auto it = by_qos.find(qos); it != by_qos.end()) return it->second;
  if (auto it = by_partition.find(partition); it != by_partition.end()) return it->second;
  return fallback;
}

Tier read_tier(const Reader& r, const YAML::Node& n, const std::string& path) {
  const std::string s = r.string_value(n, path);
  auto t = parse_tier(s);
  if (!t)
    r.fail(path, n, fmt::format("unknown tier '{}' (valid: {})", s, fmt::join(kTierNames, ", ")));
  return *t;
}

JobClass read_class(const Reader& r, const YAML::Node& n, const std::string& path) {
  const std::string s = r.string_value(n, path);
  auto c = parse_job_class(s);
  if (!c)
    r.fail(path, n,
           fmt::format("unknown job class '{}' (valid: {})", s, fmt::join(kJobClassNames, ", ")));
  return *c;
}

// A map of names to values read by `read` (`key: value` pairs).
template <class T, class F>
std::map<std::string, T> read_table(const Reader& r, const YAML::Node& n, const std::string& path,
                                    F read) {
  r.require_map(n, path);
  std::map<std::string, T> out;
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    out[key] = read(r, kv.second, join(path, key));
  }
  return out;
}

void read_tiers(const Reader& r, const YAML::Node& n, const std::string& path, SlurmImportMap& m) {
  r.require_map(n, path);
  r.check_keys(n, path, {"qos", "partition", "default"});
  if (auto q = r.optional(n, "qos"))
    m.tier_by_qos = read_table<Tier>(r, *q, join(path, "qos"), read_tier);
  if (auto p = r.optional(n, "partition"))
    m.tier_by_partition = read_table<Tier>(r, *p, join(path, "partition"), read_tier);
  if (auto d = r.optional(n, "default")) m.default_tier = read_tier(r, *d, join(path, "default"));
}

void read_classes(const Reader& r, const YAML::Node& n, const std::string& path,
                  SlurmImportMap& m) {
  r.require_map(n, path);
  r.check_keys(n, path, {"qos", "partition", "default"});
  if (auto q = r.optional(n, "qos"))
    m.class_by_qos = read_table<JobClass>(r, *q, join(path, "qos"), read_class);
  if (auto p = r.optional(n, "partition"))
    m.class_by_partition = read_table<JobClass>(r, *p, join(path, "partition"), read_class);
  if (auto d = r.optional(n, "default")) m.default_class = read_class(r, *d, join(path, "default"));
}

GpuModelId read_model(const Reader& r, const YAML::Node& n, const std::string& path,
                      const GpuCatalog& catalog) {
  const std::string s = r.string_value(n, path);
  auto id = catalog.find(s);
  if (!id) r.fail(path, n, fmt::format("unknown GPU model '{}' (not in the GPU catalog)", s));
  return *id;
}

void read_partitions(const Reader& r, const YAML::Node& n, const std::string& path,
                     const GpuCatalog& catalog, SlurmImportMap& m) {
  r.require_map(n, path);
  for (const auto& kv : n) {
    const std::string name = kv.first.as<std::string>();
    const std::string p = join(path, name);
    r.require_map(kv.second, p);
    r.check_keys(kv.second, p, {"models"});
    const YAML::Node models = r.required(kv.second, p, "models");
    const std::string mp = join(p, "models");
    r.require_sequence(models, mp);
    std::vector<GpuModelId>& out = m.partition_models[name];
    for (size_t i = 0; i < models.size(); ++i)
      out.push_back(read_model(r, models[i], index(mp, i), catalog));
  }
}

SlurmImportMap parse_map(const Reader& r, std::string_view text, const GpuCatalog& catalog) {
  const YAML::Node doc = yamlio::parse_document(text, r.origin());
  SlurmImportMap m;
  r.require_map(doc, "");
  r.check_keys(doc, "", {"tiers", "teams", "classes", "partitions", "gpu_types"});
  if (auto t = r.optional(doc, "tiers")) read_tiers(r, *t, "tiers", m);
  if (auto c = r.optional(doc, "classes")) read_classes(r, *c, "classes", m);
  if (auto t = r.optional(doc, "teams")) {
    const std::string s = r.string_value(*t, "teams");
    if (s != "account" && s != "user")
      r.fail("teams", *t, "expected 'account' or 'user', got '" + s + "'");
    m.team_from_user = s == "user";
  }
  if (auto p = r.optional(doc, "partitions")) read_partitions(r, *p, "partitions", catalog, m);
  if (auto g = r.optional(doc, "gpu_types")) {
    m.gpu_types = read_table<std::string>(
        r, *g, "gpu_types", [&](const Reader& rr, const YAML::Node& n, const std::string& path) {
          return catalog.at(read_model(rr, n, path, catalog)).name;
        });
  }
  return m;
}

}  // namespace

Tier SlurmImportMap::tier(const std::string& qos, const std::string& partition) const {
  return lookup(tier_by_qos, tier_by_partition, default_tier, qos, partition);
}

JobClass SlurmImportMap::job_class(const std::string& qos, const std::string& partition) const {
  return lookup(class_by_qos, class_by_partition, default_class, qos, partition);
}

Result<SlurmImportMap> parse_import_map_yaml(std::string_view text, const std::string& origin,
                                             const GpuCatalog& catalog) {
  try {
    return parse_map(Reader(origin), text, catalog);
  } catch (const yamlio::YamlInputError& e) {
    return Error{e.what()};
  } catch (const YAML::Exception& e) {
    return Error{origin + ": " + e.what()};
  } catch (const std::exception& e) {
    return Error{origin + ": " + e.what()};
  }
}

}  // namespace frugal
