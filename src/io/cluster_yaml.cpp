// The YAML cluster spec (docs/CLUSTER_SPEC.md): regions -> pools -> node groups, expanded
// into one NodeSpec per node. One function per level: the top level (epoch, storage tiers),
// regions (timezone, electricity, PUE, time-of-use), pools (capacity, autoscaling delays,
// rental overrides) and node groups.
#include "io/cluster_yaml.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <set>

#include "io/hourly_csv.h"
#include "io/time_of_use.h"
#include "io/yaml_util.h"

namespace frugal {
namespace {

using yamlio::index;
using yamlio::join;
using yamlio::Reader;

constexpr size_t kMaxNodes = 1000000;          // whole cluster
constexpr double kMaxCpus = 1000000;           // per node
constexpr double kMaxNodeMemoryGib = 1 << 24;  // per node (16 PiB)
constexpr double kMaxOverheadW = 20000;        // per node
constexpr double kMinPue = 1.0, kMaxPue = 3.0;
constexpr double kMaxEgressUsdPerGb = 10.0;
constexpr double kMaxTouDiscount = 0.9;
constexpr double kMaxGpuUsdPerHour = 100000;  // rental, per GPU-hour
constexpr double kMaxUsdPerGbMonth = 1000;
constexpr double kMaxProvisioningDelayS = 86400;  // a day
constexpr double kMaxIdleTimeoutS = 604800;       // a week
constexpr size_t kOffpeakHoursDefault = 8760;     // a year, when no price series sets it
constexpr double kMaxReclaimRate = 1000;          // spot reclaims per node-hour
constexpr size_t kMaxReclaimSeriesHours = 1000000;
constexpr double kMaxNoticeS = 86400;  // spot reclaim notice

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
  std::filesystem::path base_dir;  // relative data paths are resolved against this
  ClusterSpec spec;
  std::set<std::string> region_names, pool_names, group_names;
};

std::string fmt_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A finite number in [lo, hi].
double bounded_number(const Reader& r, const YAML::Node& n, const std::string& path, double lo,
                      double hi) {
  const double v = r.number_value(n, path);
  if (v < lo || v > hi)
    r.fail(path, n,
           "must be between " + fmt_double(lo) + " and " + fmt_double(hi) + ", got " + n.Scalar());
  return v;
}

bool bool_value(const Reader& r, const YAML::Node& n, const std::string& path) {
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v))
    r.fail(path, n, "expected true or false" + (n.IsScalar() ? ", got '" + n.Scalar() + "'" : ""));
  return v;
}

// Unix seconds of midnight (UTC) of the civil date y-m-d; nullopt when it is no real date.
std::optional<int64_t> civil_day_unix(int y, int m, int d) {
  const std::chrono::year_month_day ymd{std::chrono::year{y},
                                        std::chrono::month{static_cast<unsigned>(m)},
                                        std::chrono::day{static_cast<unsigned>(d)}};
  if (m < 1 || m > 12 || d < 1 || d > 31 || !ymd.ok()) return std::nullopt;
  return std::chrono::sys_seconds{std::chrono::sys_days{ymd}}.time_since_epoch().count();
}

// True when s[i] is a digit for every i in `at` (all within s).
bool digits_at(const std::string& s, std::initializer_list<size_t> at) {
  for (size_t i : at)
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// "YYYY-MM-DD" (exactly; a real date).
bool is_date(const std::string& s) {
  int y = 0, m = 0, d = 0, used = 0;
  if (s.size() != 10 || !digits_at(s, {0, 1, 2, 3, 5, 6, 8, 9}) ||
      std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &y, &m, &d, &used) != 3 || used != 10 ||
      s[4] != '-' || s[7] != '-')
    return false;
  return civil_day_unix(y, m, d).has_value();
}

// UTC ISO-8601 "YYYY-MM-DDTHH:MM:SSZ" (or with "+00:00") → Unix seconds.
std::optional<int64_t> parse_utc_timestamp(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, used = 0;
  if (!digits_at(s, {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18}) ||
      std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
      used != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  const std::string zone = s.substr(19);
  if (zone != "Z" && zone != "+00:00") return std::nullopt;
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return std::nullopt;
  const auto day = civil_day_unix(y, mo, d);
  if (!day) return std::nullopt;
  return *day + h * 3600 + mi * 60 + sec;
}

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
  r.check_keys(n, path,
               {"name", "count", "gpu_model", "gpus_per_node", "cpus", "memory_gib", "overhead_w"});
  const std::string name = unique_name(w, n, path, w.group_names, "node group");

  const int64_t count =
      bounded_integer(r, r.required(n, path, "count"), join(path, "count"), 1, kMaxNodeGroupCount);
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
    if (gib < 0 || gib > kMaxNodeMemoryGib)
      r.fail(join(path, "memory_gib"), *m, "must be between 0 and 16777216, got " + m->Scalar());
    memory_mib = std::llround(gib * 1024);
  }

  double overhead_w = 0;
  if (auto o = r.optional(n, "overhead_w"))
    overhead_w = bounded_number(r, *o, join(path, "overhead_w"), 0, kMaxOverheadW);

  if (w.spec.nodes.size() + static_cast<size_t>(count) > kMaxNodes)
    r.fail(join(path, "count"), n, "the cluster would exceed 1000000 nodes");
  NodeSpec node;
  node.pool = pool;
  node.model = model;
  node.gpus = gpus;
  node.cpu_milli = cpu_milli;
  node.memory_mib = memory_mib;
  node.overhead_w = overhead_w;
  for (int64_t i = 0; i < count; ++i) {
    node.name = name + "-" + std::to_string(i);
    w.spec.nodes.push_back(node);
  }
}

Capacity parse_capacity(const Reader& r, const YAML::Node& n, const std::string& path) {
  const std::string s = r.string_value(n, path);
  if (s == "owned") return Capacity::kOwned;
  if (s == "reserved") return Capacity::kReserved;
  if (s == "on_demand") return Capacity::kOnDemand;
  if (s == "spot") return Capacity::kSpot;
  r.fail(path, n, "must be one of owned, reserved, on_demand, spot, got '" + s + "'");
}

// reclaim_rate_per_node_hour: a number, or a list of hourly rates (hour i of the trace from
// the cluster's epoch, wrapping).
void parse_reclaim_rate(const Reader& r, const YAML::Node& n, const std::string& path,
                        SpotTerms& t) {
  if (!n.IsSequence()) {
    t.reclaim_rate_per_node_hour = bounded_number(r, n, path, 0, kMaxReclaimRate);
    return;
  }
  if (n.size() == 0 || n.size() > kMaxReclaimSeriesHours)
    r.fail(path, n, "a list of hourly reclaim rates needs 1 to 1000000 values");
  std::vector<double> hours;
  for (size_t i = 0; i < n.size(); ++i)
    hours.push_back(bounded_number(r, n[i], index(path, i), 0, kMaxReclaimRate));
  t.reclaim_rate_series = HourlySeries(0, std::move(hours));
  t.reclaim_rate_per_node_hour = t.mean_rate();
}

// The spot keys of a pool (spot_price_factor, reclaim_notice_s, reclaim_rate_per_node_hour,
// spot_allow_core): only a spot pool may give them.
void parse_spot_terms(const Reader& r, const YAML::Node& n, const std::string& path, Pool& p) {
  for (const char* key :
       {"spot_price_factor", "reclaim_notice_s", "reclaim_rate_per_node_hour", "spot_allow_core"})
    if (r.optional(n, key) && p.capacity != Capacity::kSpot)
      r.fail(join(path, key), n[key], "only a pool of capacity spot takes " + std::string(key));
  SpotTerms& t = p.spot;
  if (auto v = r.optional(n, "spot_price_factor")) {
    t.price_factor = r.number_value(*v, join(path, "spot_price_factor"));
    if (!(t.price_factor > 0 && t.price_factor <= 1))
      r.fail(join(path, "spot_price_factor"), *v,
             "must be above 0 and at most 1 (a share of the on-demand rate), got " + v->Scalar());
  }
  if (auto v = r.optional(n, "reclaim_notice_s"))
    t.reclaim_notice_s = bounded_number(r, *v, join(path, "reclaim_notice_s"), 0, kMaxNoticeS);
  if (auto v = r.optional(n, "reclaim_rate_per_node_hour"))
    parse_reclaim_rate(r, *v, join(path, "reclaim_rate_per_node_hour"), t);
  if (auto v = r.optional(n, "spot_allow_core"))
    t.allow_core = bool_value(r, *v, join(path, "spot_allow_core"));
}

// rental: {MODEL: {on_demand_usd_h: X, reserved_usd_h: Y}, ...}; either price may be left out
// (the catalog's then applies).
std::vector<RentalOverride> parse_rental(Walk& w, const YAML::Node& n, const std::string& path) {
  const Reader& r = w.r;
  r.require_map(n, path);
  std::vector<RentalOverride> out;
  for (const auto& kv : n) {
    const std::string model_name = r.string_value(kv.first, path + " key");
    const std::string p = join(path, model_name);
    auto id = w.catalog.find(model_name);
    if (!id)
      r.fail(
          p, kv.first,
          "unknown GPU model '" + model_name + "' (known models: " + known_models(w.catalog) + ")");
    for (const auto& o : out)
      if (o.model == *id)
        r.fail(p, kv.first,
               "model '" + w.catalog.at(*id).name +
                   "' is listed twice (names and aliases of "
                   "one model count as the same)");
    const YAML::Node prices = kv.second;
    r.require_map(prices, p);
    r.check_keys(prices, p, {"on_demand_usd_h", "reserved_usd_h"});
    RentalOverride o;
    o.model = *id;
    if (auto v = r.optional(prices, "on_demand_usd_h"))
      o.on_demand_usd_h = bounded_number(r, *v, join(p, "on_demand_usd_h"), 0, kMaxGpuUsdPerHour);
    if (auto v = r.optional(prices, "reserved_usd_h"))
      o.reserved_usd_h = bounded_number(r, *v, join(p, "reserved_usd_h"), 0, kMaxGpuUsdPerHour);
    if (o.on_demand_usd_h < 0 && o.reserved_usd_h < 0)
      r.fail(p, prices, "give on_demand_usd_h, reserved_usd_h or both");
    out.push_back(o);
  }
  return out;
}

void parse_pool(Walk& w, const YAML::Node& n, const std::string& path, uint32_t region) {
  const Reader& r = w.r;
  r.require_map(n, path);
  r.check_keys(
      n, path,
      {"name", "capacity", "provisioning_delay_s", "idle_timeout_s", "rental", "node_groups",
       "spot_price_factor", "reclaim_notice_s", "reclaim_rate_per_node_hour", "spot_allow_core"});
  const std::string name = unique_name(w, n, path, w.pool_names, "pool");
  const auto pool = static_cast<uint32_t>(w.spec.pools.size());
  Pool p;
  p.name = name;
  p.region = region;
  if (auto c = r.optional(n, "capacity"))
    p.capacity = parse_capacity(r, *c, join(path, "capacity"));
  if (auto d = r.optional(n, "provisioning_delay_s"))
    p.provisioning_delay_s =
        bounded_number(r, *d, join(path, "provisioning_delay_s"), 0, kMaxProvisioningDelayS);
  if (auto d = r.optional(n, "idle_timeout_s"))
    p.idle_timeout_s = bounded_number(r, *d, join(path, "idle_timeout_s"), 0, kMaxIdleTimeoutS);
  if (auto rent = r.optional(n, "rental")) p.rental = parse_rental(w, *rent, join(path, "rental"));
  parse_spot_terms(r, n, path, p);
  w.spec.pools.push_back(p);

  const YAML::Node groups = r.required(n, path, "node_groups");
  const std::string gpath = join(path, "node_groups");
  r.require_sequence(groups, gpath);
  if (groups.size() == 0) r.fail(gpath, groups, "pool '" + name + "' has no node groups");
  for (size_t i = 0; i < groups.size(); ++i) parse_node_group(w, groups[i], index(gpath, i), pool);
}

// A series file named at `n`, resolved against the spec's directory; its absolute path in
// `source`.
HourlySeries load_series(Walk& w, const YAML::Node& n, const std::string& path, const char* what,
                         Result<HourlySeries> (*read)(const std::string&), std::string& source) {
  const std::string given = w.r.string_value(n, path);
  std::filesystem::path file(given);
  if (file.is_relative()) file = w.base_dir / file;
  const std::string resolved = file.lexically_normal().string();
  std::error_code ec;
  source = std::filesystem::absolute(resolved, ec).lexically_normal().string();
  if (ec) source = resolved;
  auto series = read(resolved);
  if (!series.ok()) {
    std::string msg = series.error().message;
    if (msg.find(resolved) == std::string::npos) msg = resolved + ": " + msg;
    w.r.fail(path, n, std::string("cannot load ") + what + " '" + given + "': " + msg);
  }
  if (series.value().empty())
    w.r.fail(path, n, std::string("the ") + what + " file '" + resolved + "' holds no hours");
  return std::move(series).value();
}

// electricity: {zone, prices: PATH, carbon: PATH} and/or flat {usd_per_mwh, carbon_g_per_kwh}.
void parse_electricity(Walk& w, const YAML::Node& n, const std::string& path, Region& region) {
  const Reader& r = w.r;
  r.require_map(n, path);
  r.check_keys(n, path, {"zone", "prices", "carbon", "usd_per_mwh", "carbon_g_per_kwh"});
  if (auto z = r.optional(n, "zone")) region.price_zone = r.string_value(*z, join(path, "zone"));
  if (r.optional(n, "prices") && r.optional(n, "usd_per_mwh"))
    r.fail(join(path, "usd_per_mwh"), n["usd_per_mwh"],
           "give either prices (a file) or usd_per_mwh (a flat price), not both");
  if (r.optional(n, "carbon") && r.optional(n, "carbon_g_per_kwh"))
    r.fail(join(path, "carbon_g_per_kwh"), n["carbon_g_per_kwh"],
           "give either carbon (a file) or carbon_g_per_kwh (a flat intensity), not both");
  if (auto f = r.optional(n, "prices"))
    region.electricity_usd_per_mwh = load_series(w, *f, join(path, "prices"), "electricity prices",
                                                 &read_price_csv, region.prices_file);
  if (auto f = r.optional(n, "carbon"))
    region.carbon_g_per_kwh = load_series(w, *f, join(path, "carbon"), "carbon intensity",
                                          &read_carbon_csv, region.carbon_file);
  if (auto v = r.optional(n, "usd_per_mwh"))
    region.default_electricity_usd_per_mwh =
        bounded_number(r, *v, join(path, "usd_per_mwh"), 0, kMaxUsdPerMwh);
  if (auto v = r.optional(n, "carbon_g_per_kwh"))
    region.default_carbon_g_per_kwh =
        bounded_number(r, *v, join(path, "carbon_g_per_kwh"), 0, kMaxCarbonGPerKwh);
}

// time_of_use: {offpeak: ["22:00-08:00"], weekends: true, holidays: ["2023-07-04"],
// discount: 0.4}; also builds the region's hourly off-peak indicator.
void parse_time_of_use(Walk& w, const YAML::Node& n, const std::string& path, Region& region) {
  const Reader& r = w.r;
  r.require_map(n, path);
  r.check_keys(n, path, {"offpeak", "weekends", "holidays", "discount"});
  TimeOfUse& tou = region.time_of_use;
  if (auto windows = r.optional(n, "offpeak")) {
    const std::string p = join(path, "offpeak");
    r.require_sequence(*windows, p);
    for (size_t i = 0; i < windows->size(); ++i) {
      const YAML::Node s = (*windows)[i];
      auto window = parse_window(r.string_value(s, index(p, i)));
      if (!window.ok()) r.fail(index(p, i), s, window.error().message);
      tou.windows.push_back(window.value());
    }
  }
  if (auto we = r.optional(n, "weekends"))
    tou.weekends = bool_value(r, *we, join(path, "weekends"));
  if (auto hol = r.optional(n, "holidays")) {
    const std::string p = join(path, "holidays");
    r.require_sequence(*hol, p);
    for (size_t i = 0; i < hol->size(); ++i) {
      const YAML::Node s = (*hol)[i];
      const std::string date = r.string_value(s, index(p, i));
      if (!is_date(date)) r.fail(index(p, i), s, "expected a date YYYY-MM-DD, got '" + date + "'");
      tou.holidays.push_back(date);
    }
  }
  const YAML::Node d = r.required(n, path, "discount");
  tou.discount = bounded_number(r, d, join(path, "discount"), 0, kMaxTouDiscount);
  if (tou.windows.empty() && !tou.weekends && tou.holidays.empty())
    r.fail(path, n, "no off-peak time: give offpeak windows, weekends: true or holidays");

  // The indicator covers the price series' span when there is one, else a year from the epoch.
  int64_t start = w.spec.epoch_unix_s - (((w.spec.epoch_unix_s % 3600) + 3600) % 3600);
  size_t hours = kOffpeakHoursDefault;
  if (!region.electricity_usd_per_mwh.empty()) {
    start = region.electricity_usd_per_mwh.start();
    hours = region.electricity_usd_per_mwh.hours();
  }
  auto offpeak = offpeak_series(tou, region.timezone, start, hours);
  if (!offpeak.ok()) r.fail(path, n, offpeak.error().message);
  region.offpeak = std::move(offpeak).value();
}

void parse_region(Walk& w, const YAML::Node& n, const std::string& path) {
  const Reader& r = w.r;
  r.require_map(n, path);
  r.check_keys(
      n, path,
      {"name", "timezone", "electricity", "pue", "egress_usd_per_gb", "time_of_use", "pools"});
  Region region;
  region.name = unique_name(w, n, path, w.region_names, "region");
  if (auto tz = r.optional(n, "timezone")) {
    region.timezone = r.string_value(*tz, join(path, "timezone"));
    if (!valid_timezone(region.timezone))
      r.fail(join(path, "timezone"), *tz,
             "unknown time zone '" + region.timezone +
                 "' (expected an IANA name such as America/Los_Angeles or UTC)");
  } else if (n["timezone"].IsDefined()) {
    r.fail(join(path, "timezone"), n, "must not be empty");
  }
  if (auto e = r.optional(n, "electricity"))
    parse_electricity(w, *e, join(path, "electricity"), region);
  if (auto pue = r.optional(n, "pue"))
    region.pue = bounded_number(r, *pue, join(path, "pue"), kMinPue, kMaxPue);
  if (auto eg = r.optional(n, "egress_usd_per_gb"))
    region.egress_usd_per_gb =
        bounded_number(r, *eg, join(path, "egress_usd_per_gb"), 0.0, kMaxEgressUsdPerGb);
  if (auto tou = r.optional(n, "time_of_use"))
    parse_time_of_use(w, *tou, join(path, "time_of_use"), region);
  const auto id = static_cast<uint32_t>(w.spec.regions.size());
  w.spec.regions.push_back(std::move(region));

  const YAML::Node pools = r.required(n, path, "pools");
  const std::string ppath = join(path, "pools");
  r.require_sequence(pools, ppath);
  if (pools.size() == 0) r.fail(ppath, pools, "region has no pools");
  for (size_t i = 0; i < pools.size(); ++i) parse_pool(w, pools[i], index(ppath, i), id);
}

std::vector<StorageTier> parse_storage_tiers(const Reader& r, const YAML::Node& n,
                                             const std::string& path) {
  r.require_sequence(n, path);
  if (n.size() == 0) r.fail(path, n, "list at least one tier (or leave the key out)");
  std::vector<StorageTier> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string p = index(path, i);
    const YAML::Node t = n[i];
    r.require_map(t, p);
    r.check_keys(t, p, {"name", "usd_per_gb_month"});
    StorageTier tier;
    const YAML::Node name = r.required(t, p, "name");
    tier.name = r.string_value(name, join(p, "name"));
    check_name(r, name, join(p, "name"), tier.name);
    if (!seen.insert(tier.name).second)
      r.fail(join(p, "name"), name, "duplicate storage tier name '" + tier.name + "'");
    tier.usd_per_gb_month = bounded_number(r, r.required(t, p, "usd_per_gb_month"),
                                           join(p, "usd_per_gb_month"), 0, kMaxUsdPerGbMonth);
    out.push_back(std::move(tier));
  }
  return out;
}

ClusterSpec parse_cluster(const Reader& r, std::string_view text, const GpuCatalog& catalog) {
  const YAML::Node doc = yamlio::parse_document(text, r.origin());
  r.require_map(doc, "");
  r.check_keys(doc, "", {"epoch", "storage_tiers", "regions"});

  Walk w{r, catalog, std::filesystem::path(r.origin()).parent_path(), {}, {}, {}, {}};
  if (auto e = r.optional(doc, "epoch")) {
    const std::string s = r.string_value(*e, "epoch");
    auto t = parse_utc_timestamp(s);
    if (!t) r.fail("epoch", *e, "expected a UTC time like 2023-01-01T00:00:00Z, got '" + s + "'");
    w.spec.epoch_unix_s = *t;
  }
  w.spec.storage_tiers = default_storage_tiers();
  if (auto tiers = r.optional(doc, "storage_tiers"))
    w.spec.storage_tiers = parse_storage_tiers(r, *tiers, "storage_tiers");

  const YAML::Node regions = r.required(doc, "", "regions");
  r.require_sequence(regions, "regions");
  if (regions.size() == 0) r.fail("regions", regions, "the cluster has no regions");

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
