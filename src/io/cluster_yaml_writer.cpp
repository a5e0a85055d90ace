// A ClusterSpec as cluster YAML (io/cluster_yaml_writer.h): one function per level, the
// mirror of cluster_yaml.cpp's reader.
#include "io/cluster_yaml_writer.h"

#include "io/cluster_yaml.h"

#include <date/date.h>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <chrono>
#include <set>
#include <string_view>

namespace frugal {
namespace {

// Shortest text that reads back as the same double.
std::string number(double v) {
  return fmt::format("{}", v);
}

// Whether `s` reads back as the same text when written plain (not a number, bool or null).
bool plain_safe(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' &&
        c != '/' && c != '+')
      return false;
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::string_view kReserved[] = {"true", "false", "yes", "no", "on",
                                                   "off",  "null",  "y",   "n"};
  for (std::string_view r : kReserved)
    if (lower == r) return false;
  return true;
}

void text(YAML::Emitter& out, const std::string& s) {
  if (plain_safe(s))
    out << s;
  else
    out << YAML::DoubleQuoted << s;
}

void key_text(YAML::Emitter& out, const char* key, const std::string& s) {
  out << YAML::Key << key << YAML::Value;
  text(out, s);
}

void key_number(YAML::Emitter& out, const char* key, double v) {
  out << YAML::Key << key << YAML::Value << number(v);
}

// A name the reader takes: no spaces, ',', '|' or '"' (those become '_'), not empty.
std::string valid_name(const std::string& s) {
  std::string out = s.empty() ? "node" : s;
  for (char& c : out)
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '|' || c == '"') c = '_';
  return out;
}

// `name`, or name_2, name_3, ... when taken; marks it taken.
std::string unique_name(const std::string& name, std::set<std::string>& used) {
  std::string out = name;
  for (int i = 2; used.count(out) != 0; ++i) out = fmt::format("{}_{}", name, i);
  used.insert(out);
  return out;
}

bool same_hardware(const NodeSpec& a, const NodeSpec& b) {
  return a.model == b.model && a.gpus == b.gpus && a.cpu_milli == b.cpu_milli &&
         a.memory_mib == b.memory_mib && a.overhead_w == b.overhead_w;
}

struct Group {
  std::string name;
  const NodeSpec* node = nullptr;  // the first; the others are identical
  int64_t count = 0;
};

// The run of nodes starting at nodes[i] named P-0, P-1, ... (identical, at most the
// reader's group size): its length, and P in `prefix`; 0 when nodes[i] starts none.
size_t run_length(const std::vector<const NodeSpec*>& nodes, size_t i, std::string& prefix) {
  const std::string& first = nodes[i]->name;
  if (first.size() < 3 || !first.ends_with("-0")) return 0;
  prefix = first.substr(0, first.size() - 2);
  if (valid_name(prefix) != prefix) return 0;
  size_t k = 1;
  while (i + k < nodes.size() && k < static_cast<size_t>(kMaxNodeGroupCount) &&
         same_hardware(*nodes[i], *nodes[i + k]) &&
         nodes[i + k]->name == fmt::format("{}-{}", prefix, k))
    ++k;
  return k;
}

// A pool's nodes as node groups (group names unique across the cluster through `used`).
std::vector<Group> plan_groups(const std::vector<const NodeSpec*>& nodes,
                               std::set<std::string>& used) {
  std::vector<Group> out;
  for (size_t i = 0; i < nodes.size();) {
    std::string prefix;
    const size_t run = run_length(nodes, i, prefix);
    if (run > 0 && used.count(prefix) == 0) {
      used.insert(prefix);
      out.push_back(Group{prefix, nodes[i], static_cast<int64_t>(run)});
      i += run;
      continue;
    }
    out.push_back(Group{unique_name(valid_name(nodes[i]->name), used), nodes[i], 1});
    ++i;
  }
  return out;
}

void write_group(YAML::Emitter& out, const Group& g, const GpuCatalog& catalog) {
  const NodeSpec& n = *g.node;
  out << YAML::Flow << YAML::BeginMap;
  key_text(out, "name", g.name);
  out << YAML::Key << "count" << YAML::Value << g.count;
  if (n.model != kNoGpuModel) key_text(out, "gpu_model", catalog.at(n.model).name);
  out << YAML::Key << "gpus_per_node" << YAML::Value << n.gpus;
  if (n.cpu_milli > 0) key_number(out, "cpus", static_cast<double>(n.cpu_milli) / 1000);
  if (n.memory_mib > 0) key_number(out, "memory_gib", static_cast<double>(n.memory_mib) / 1024);
  if (n.overhead_w > 0) key_number(out, "overhead_w", n.overhead_w);
  out << YAML::EndMap;
}

const char* capacity_name(Capacity c) {
  switch (c) {
    case Capacity::kOwned:
      return "owned";
    case Capacity::kReserved:
      return "reserved";
    case Capacity::kOnDemand:
      return "on_demand";
    case Capacity::kSpot:
      return "spot";
  }
  return "owned";
}

void write_rental(YAML::Emitter& out, const Pool& p, const GpuCatalog& catalog) {
  bool any = false;
  for (const RentalOverride& o : p.rental) {
    if (o.model == kNoGpuModel || (o.on_demand_usd_h < 0 && o.reserved_usd_h < 0)) continue;
    if (!any) out << YAML::Key << "rental" << YAML::Value << YAML::BeginMap;
    any = true;
    out << YAML::Key;
    text(out, catalog.at(o.model).name);
    out << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (o.on_demand_usd_h >= 0) key_number(out, "on_demand_usd_h", o.on_demand_usd_h);
    if (o.reserved_usd_h >= 0) key_number(out, "reserved_usd_h", o.reserved_usd_h);
    out << YAML::EndMap;
  }
  if (any) out << YAML::EndMap;
}

void write_spot(YAML::Emitter& out, const SpotTerms& s) {
  key_number(out, "spot_price_factor", s.price_factor);
  key_number(out, "reclaim_notice_s", s.reclaim_notice_s);
  out << YAML::Key << "reclaim_rate_per_node_hour" << YAML::Value;
  if (s.reclaim_rate_series.empty()) {
    out << number(s.reclaim_rate_per_node_hour);
  } else {
    out << YAML::Flow << YAML::BeginSeq;
    for (double v : s.reclaim_rate_series.values()) out << number(v);
    out << YAML::EndSeq;
  }
  out << YAML::Key << "spot_allow_core" << YAML::Value << s.allow_core;
}

void write_pool(YAML::Emitter& out, const Pool& p, const std::vector<Group>& groups,
                const GpuCatalog& catalog) {
  out << YAML::BeginMap;
  key_text(out, "name", p.name);
  out << YAML::Key << "capacity" << YAML::Value << capacity_name(p.capacity);
  key_number(out, "provisioning_delay_s", p.provisioning_delay_s);
  key_number(out, "idle_timeout_s", p.idle_timeout_s);
  write_rental(out, p, catalog);
  if (p.capacity == Capacity::kSpot) write_spot(out, p.spot);
  out << YAML::Key << "node_groups" << YAML::Value << YAML::BeginSeq;
  for (const Group& g : groups) write_group(out, g, catalog);
  out << YAML::EndSeq << YAML::EndMap;
}

std::string clock_text(int minute) {
  return fmt::format("{:02}:{:02}", minute / 60, minute % 60);
}

void write_time_of_use(YAML::Emitter& out, const TimeOfUse& t) {
  if (t.windows.empty() && !t.weekends && t.holidays.empty()) return;
  out << YAML::Key << "time_of_use" << YAML::Value << YAML::BeginMap;
  if (!t.windows.empty()) {
    out << YAML::Key << "offpeak" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& [from, to] : t.windows)
      out << YAML::DoubleQuoted << clock_text(from) + "-" + clock_text(to);
    out << YAML::EndSeq;
  }
  if (t.weekends) out << YAML::Key << "weekends" << YAML::Value << true;
  if (!t.holidays.empty()) {
    out << YAML::Key << "holidays" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::string& d : t.holidays) out << YAML::DoubleQuoted << d;
    out << YAML::EndSeq;
  }
  key_number(out, "discount", t.discount);
  out << YAML::EndMap;
}

Status write_electricity(YAML::Emitter& out, const Region& r) {
  if (!r.electricity_usd_per_mwh.empty() && r.prices_file.empty())
    return Error{fmt::format("region '{}': its electricity prices came from no file", r.name)};
  if (!r.carbon_g_per_kwh.empty() && r.carbon_file.empty())
    return Error{fmt::format("region '{}': its carbon intensity came from no file", r.name)};
  out << YAML::Key << "electricity" << YAML::Value << YAML::BeginMap;
  if (!r.price_zone.empty()) key_text(out, "zone", r.price_zone);
  if (r.electricity_usd_per_mwh.empty())
    key_number(out, "usd_per_mwh", r.default_electricity_usd_per_mwh);
  else
    key_text(out, "prices", r.prices_file);
  if (r.carbon_g_per_kwh.empty())
    key_number(out, "carbon_g_per_kwh", r.default_carbon_g_per_kwh);
  else
    key_text(out, "carbon", r.carbon_file);
  out << YAML::EndMap;
  return Status::Ok();
}

// Region `r` with its pools that hold nodes (`pools`: index and groups).
Status write_region(YAML::Emitter& out, const ClusterSpec& spec, uint32_t r,
                    const std::vector<std::pair<uint32_t, std::vector<Group>>>& pools,
                    const GpuCatalog& catalog) {
  const Region& region = spec.regions[r];
  out << YAML::BeginMap;
  key_text(out, "name", region.name);
  key_text(out, "timezone", region.timezone);
  if (Status st = write_electricity(out, region); !st.ok()) return st;
  key_number(out, "pue", region.pue);
  key_number(out, "egress_usd_per_gb", region.egress_usd_per_gb);
  write_time_of_use(out, region.time_of_use);
  out << YAML::Key << "pools" << YAML::Value << YAML::BeginSeq;
  for (const auto& [p, groups] : pools)
    if (spec.pools[p].region == r) write_pool(out, spec.pools[p], groups, catalog);
  out << YAML::EndSeq << YAML::EndMap;
  return Status::Ok();
}

void write_storage_tiers(YAML::Emitter& out, const ClusterSpec& spec) {
  const std::vector<StorageTier> tiers =
      spec.storage_tiers.empty() ? default_storage_tiers() : spec.storage_tiers;
  out << YAML::Key << "storage_tiers" << YAML::Value << YAML::BeginSeq;
  for (const StorageTier& t : tiers) {
    out << YAML::Flow << YAML::BeginMap;
    key_text(out, "name", t.name);
    key_number(out, "usd_per_gb_month", t.usd_per_gb_month);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

}  // namespace

Result<std::string> write_cluster_yaml(const ClusterSpec& spec, const GpuCatalog& catalog) {
  // Each pool's nodes in order, then its node groups.
  std::vector<std::vector<const NodeSpec*>> by_pool(spec.pools.size());
  for (const NodeSpec& n : spec.nodes) {
    if (n.pool >= spec.pools.size())
      return Error{fmt::format("node '{}': pool {} does not exist", n.name, n.pool)};
    by_pool[n.pool].push_back(&n);
  }
  std::set<std::string> used;
  std::vector<std::pair<uint32_t, std::vector<Group>>> pools;
  std::vector<bool> region_used(spec.regions.size(), false);
  for (uint32_t p = 0; p < spec.pools.size(); ++p) {
    if (by_pool[p].empty()) continue;
    if (spec.pools[p].region >= spec.regions.size())
      return Error{fmt::format("pool '{}': region {} does not exist", spec.pools[p].name,
                               spec.pools[p].region)};
    region_used[spec.pools[p].region] = true;
    pools.emplace_back(p, plan_groups(by_pool[p], used));
  }
  if (pools.empty()) return Error{"the cluster has no nodes"};

  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "epoch" << YAML::Value << YAML::DoubleQuoted
      << date::format("%FT%TZ", date::sys_seconds(std::chrono::seconds(spec.epoch_unix_s)));
  write_storage_tiers(out, spec);
  out << YAML::Key << "regions" << YAML::Value << YAML::BeginSeq;
  for (uint32_t r = 0; r < spec.regions.size(); ++r)
    if (region_used[r])
      if (Status st = write_region(out, spec, r, pools, catalog); !st.ok()) return st.error();
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good()) return Error{"cannot write the cluster as YAML: " + out.GetLastError()};
  return std::string(out.c_str()) + "\n";
}

Result<ClusterSpec> with_epoch(const ClusterSpec& spec, int64_t epoch_unix_s,
                               const GpuCatalog& catalog) {
  ClusterSpec moved = spec;
  moved.epoch_unix_s = epoch_unix_s;
  auto text = write_cluster_yaml(moved, catalog);
  if (!text.ok()) return text.error();
  return parse_cluster_yaml(text.value(), "the cluster spec with its epoch moved", catalog);
}

}  // namespace frugal
