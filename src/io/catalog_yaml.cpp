#include "io/catalog_yaml.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "io/yaml_util.h"

namespace frugal {
namespace {

using yamlio::index;
using yamlio::join;
using yamlio::Reader;

constexpr double kMaxCardMemoryGib = 1 << 20;  // 1 PiB per card: anything above is a typo
constexpr double kMaxSpeed = 1000;             // relative to A100-80GB
constexpr double kMaxPowerW = 100000;          // per card: anything above is a typo
constexpr double kMaxCardUsdPerHour = 100000;  // per card-hour

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Names travel through CSV cells and '|'-separated lists, so those characters are banned.
void check_model_name(const Reader& r, const YAML::Node& n, const std::string& path,
                      const std::string& name) {
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '|')
      r.fail(path, n, "'" + name + "' must not contain spaces, ',' or '|'");
  }
}

std::array<double, kJobClassCount> parse_speed(const Reader& r, const YAML::Node& n,
                                               const std::string& path) {
  r.require_map(n, path);
  r.check_keys(n, path,
               {kJobClassNames[0], kJobClassNames[1], kJobClassNames[2], kJobClassNames[3]});
  std::array<double, kJobClassCount> speed{};
  for (int c = 0; c < kJobClassCount; ++c) {
    const YAML::Node v = r.required(n, path, kJobClassNames[static_cast<size_t>(c)]);
    const std::string p = join(path, kJobClassNames[static_cast<size_t>(c)]);
    const double s = r.number_value(v, p);
    if (s <= 0 || s > kMaxSpeed)
      r.fail(p, v, "must be > 0 and <= 1000 (relative to A100-80GB), got " + v.Scalar());
    speed[static_cast<size_t>(c)] = s;
  }
  return speed;
}

// The required child `key` of `parent`: a finite number in [0, hi].
double non_negative(const Reader& r, const YAML::Node& parent, const std::string& path,
                    const char* key, double hi) {
  const YAML::Node v = r.required(parent, path, key);
  const std::string p = join(path, key);
  const double x = r.number_value(v, p);
  if (x < 0 || x > hi)
    r.fail(p, v,
           "must be between 0 and " + std::to_string(static_cast<int64_t>(hi)) + ", got " +
               v.Scalar());
  return x;
}

void parse_power(const Reader& r, const YAML::Node& n, const std::string& path, GpuModel& m) {
  r.require_map(n, path);
  r.check_keys(n, path, {"idle_w", "peak_w"});
  m.idle_w = non_negative(r, n, path, "idle_w", kMaxPowerW);
  m.peak_w = non_negative(r, n, path, "peak_w", kMaxPowerW);
  if (m.peak_w < m.idle_w)
    r.fail(join(path, "peak_w"), n["peak_w"],
           "must be >= idle_w (" + n["idle_w"].Scalar() + "), got " + n["peak_w"].Scalar());
}

void parse_rental(const Reader& r, const YAML::Node& n, const std::string& path, GpuModel& m) {
  r.require_map(n, path);
  r.check_keys(n, path, {"on_demand_usd_h", "reserved_usd_h"});
  m.on_demand_usd_h = non_negative(r, n, path, "on_demand_usd_h", kMaxCardUsdPerHour);
  m.reserved_usd_h = non_negative(r, n, path, "reserved_usd_h", kMaxCardUsdPerHour);
}

GpuModel parse_model(const Reader& r, const YAML::Node& n, const std::string& path) {
  r.require_map(n, path);
  r.check_keys(
      n, path,
      {"name", "aliases", "memory_gib", "speed", "source", "power", "rental", "price_source"});
  GpuModel m;
  m.name = r.string_value(r.required(n, path, "name"), join(path, "name"));
  check_model_name(r, n["name"], join(path, "name"), m.name);
  // From here on, the path names the model too: "models[3] (H100)".
  const std::string where = path + " (" + m.name + ")";

  if (auto aliases = r.optional(n, "aliases")) {
    const std::string p = join(where, "aliases");
    r.require_sequence(*aliases, p);
    for (size_t i = 0; i < aliases->size(); ++i) {
      const YAML::Node a = (*aliases)[i];
      m.aliases.push_back(r.string_value(a, index(p, i)));
      check_model_name(r, a, index(p, i), m.aliases.back());
    }
  }

  const YAML::Node mem = r.required(n, where, "memory_gib");
  const double gib = r.number_value(mem, join(where, "memory_gib"));
  if (gib <= 0 || gib > kMaxCardMemoryGib)
    r.fail(join(where, "memory_gib"), mem, "must be > 0 and <= 1048576, got " + mem.Scalar());
  m.memory_mib = std::llround(gib * 1024);

  m.speed = parse_speed(r, r.required(n, where, "speed"), join(where, "speed"));

  if (auto source = r.optional(n, "source"))
    m.source = r.string_value(*source, join(where, "source"));

  parse_power(r, r.required(n, where, "power"), join(where, "power"), m);
  parse_rental(r, r.required(n, where, "rental"), join(where, "rental"), m);
  if (auto ps = r.optional(n, "price_source"))
    m.price_source = r.string_value(*ps, join(where, "price_source"));
  return m;
}

GpuCatalog parse_catalog(const Reader& r, std::string_view text) {
  const YAML::Node doc = yamlio::parse_document(text, r.origin());
  r.require_map(doc, "");
  r.check_keys(doc, "", {"models"});
  const YAML::Node models = r.required(doc, "", "models");
  r.require_sequence(models, "models");
  if (models.size() == 0) r.fail("models", models, "the catalog lists no models");
  if (models.size() > static_cast<size_t>(std::numeric_limits<GpuModelId>::max()))
    r.fail("models", models, "too many models");

  std::vector<GpuModel> out;
  std::map<std::string, std::string> seen;  // lower-cased name or alias -> owning model
  for (size_t i = 0; i < models.size(); ++i) {
    const std::string path = index("models", i);
    GpuModel m = parse_model(r, models[i], path);
    std::vector<std::string> names = {m.name};
    names.insert(names.end(), m.aliases.begin(), m.aliases.end());
    for (const auto& name : names) {
      auto [it, inserted] = seen.emplace(lower(name), m.name);
      if (!inserted)
        r.fail(path + " (" + m.name + ")", models[i],
               "name or alias '" + name + "' is already used by model '" + it->second +
                   "' (names are case-insensitive)");
    }
    out.push_back(std::move(m));
  }
  return GpuCatalog(std::move(out));
}

}  // namespace

Result<GpuCatalog> parse_catalog_yaml(std::string_view text, const std::string& origin) {
  try {
    return parse_catalog(Reader(origin), text);
  } catch (const yamlio::YamlInputError& e) {
    return Error{e.what()};
  } catch (const YAML::Exception& e) {
    return Error{origin + ": " + e.what()};
  } catch (const std::exception& e) {
    return Error{origin + ": " + e.what()};
  }
}

Result<GpuCatalog> load_builtin_catalog() {
  return parse_catalog_yaml(builtin_catalog_yaml(), "built-in catalog");
}

Result<GpuCatalog> load_catalog_file(const std::string& path) {
  auto text = yamlio::read_text_file(path);
  if (!text.ok()) return text.error();
  return parse_catalog_yaml(text.value(), path);
}

}  // namespace frugal
