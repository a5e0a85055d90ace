#include "agent/telemetry_wire.h"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <optional>
#include <set>
#include <string_view>

namespace frugal {
namespace {

using json = nlohmann::json;

void put_if(json& j, const char* key, double v) {
  if (v >= 0) j[key] = v;
}
void put_if(json& j, const char* key, int64_t v) {
  if (v >= 0) j[key] = v;
}

// Reading one object of the batch: every error names the field by its path.
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  std::optional<FieldError> only(std::initializer_list<std::string_view> known) const {
    if (!j_.is_object()) return FieldError{path_, "expected an object"};
    for (const auto& [k, v] : j_.items()) {
      bool ok = false;
      for (std::string_view n : known) ok = ok || k == n;
      if (!ok) return FieldError{at(k), "unknown field"};
    }
    return std::nullopt;
  }
  std::string at(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  // A number in [lo, hi] (absent: `out` unchanged unless `required`).
  std::optional<FieldError> number(const char* key, double lo, double hi, double& out,
                                   bool required = false) const {
    if (!has(key)) return required ? std::optional(FieldError{at(key), "required"}) : std::nullopt;
    const json& v = j_[key];
    if (!v.is_number()) return FieldError{at(key), "expected a number"};
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi)
      return FieldError{at(key), fmt::format("{} is outside [{}, {}]", x, lo, hi)};
    out = x;
    return std::nullopt;
  }
  std::optional<FieldError> integer(const char* key, int64_t lo, int64_t hi, int64_t& out,
                                    bool required = false) const {
    if (!has(key)) return required ? std::optional(FieldError{at(key), "required"}) : std::nullopt;
    const json& v = j_[key];
    if (!v.is_number_integer()) return FieldError{at(key), "expected an integer"};
    const int64_t x = v.get<int64_t>();
    if (x < lo || x > hi)
      return FieldError{at(key), fmt::format("{} is outside [{}, {}]", x, lo, hi)};
    out = x;
    return std::nullopt;
  }
  // A short printable string (node names, job ids).
  std::optional<FieldError> text(const char* key, size_t max, std::string& out,
                                 bool required = false) const {
    if (!has(key)) return required ? std::optional(FieldError{at(key), "required"}) : std::nullopt;
    const json& v = j_[key];
    if (!v.is_string()) return FieldError{at(key), "expected a string"};
    const auto& s = v.get_ref<const std::string&>();
    if (s.empty() || s.size() > max)
      return FieldError{at(key), fmt::format("expected 1 to {} characters", max)};
    for (char c : s)
      if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f)
        return FieldError{at(key), "expected printable characters without spaces"};
    out = s;
    return std::nullopt;
  }
  const json& operator[](const char* key) const { return j_[key]; }

 private:
  const json& j_;
  std::string path_;
};

std::optional<FieldError> digits(const Fields& f, const char* key, std::string& out) {
  if (auto e = f.text(key, 20, out)) return e;
  for (char c : out)
    if (c < '0' || c > '9') return FieldError{f.at(key), "expected a decimal job id"};
  return std::nullopt;
}

std::optional<FieldError> parse_process(const json& j, const std::string& path, GpuProcess& p) {
  const Fields f(j, path);
  if (auto e = f.only({"pid", "memory_mib", "utilization", "job", "slurm_job"})) return e;
  if (auto e = f.integer("pid", 1, (int64_t{1} << 32) - 1, p.pid, true)) return e;
  if (auto e = f.integer("memory_mib", 0, int64_t{1} << 40, p.memory_mib)) return e;
  if (auto e = f.number("utilization", 0, 1, p.utilization)) return e;
  if (auto e = digits(f, "job", p.job)) return e;
  return digits(f, "slurm_job", p.slurm_job);
}

std::optional<FieldError> parse_gpu(const json& j, const std::string& path,
                                    const TelemetryLimits& limits, GpuTelemetry& g) {
  const Fields f(j, path);
  if (auto e = f.only({"index", "utilization", "memory_used_mib", "memory_total_mib", "power_w",
                       "temperature_c", "processes"}))
    return e;
  int64_t index = 0;
  if (auto e = f.integer("index", 0, static_cast<int64_t>(limits.max_gpus) - 1, index, true))
    return e;
  g.gpu = static_cast<int>(index);
  if (auto e = f.number("utilization", 0, 1, g.utilization)) return e;
  if (auto e = f.integer("memory_total_mib", 1, int64_t{1} << 30, g.memory_total_mib)) return e;
  if (auto e = f.integer("memory_used_mib", 0, int64_t{1} << 30, g.memory_used_mib)) return e;
  if (g.memory_total_mib > 0 && g.memory_used_mib > g.memory_total_mib)
    return FieldError{f.at("memory_used_mib"),
                      fmt::format("{} MiB used is more than the {} MiB total", g.memory_used_mib,
                                  g.memory_total_mib)};
  if (auto e = f.number("power_w", 0, 5000, g.power_w)) return e;
  if (auto e = f.number("temperature_c", 0, 150, g.temperature_c)) return e;
  if (!f.has("processes")) return std::nullopt;
  const json& ps = f["processes"];
  if (!ps.is_array()) return FieldError{f.at("processes"), "expected an array"};
  if (ps.size() > limits.max_processes)
    return FieldError{f.at("processes"),
                      fmt::format("{} processes, at most {}", ps.size(), limits.max_processes)};
  for (size_t i = 0; i < ps.size(); ++i) {
    GpuProcess p;
    if (auto e = parse_process(ps[i], fmt::format("{}.processes[{}]", path, i), p)) return e;
    g.processes.push_back(std::move(p));
  }
  return std::nullopt;
}

std::optional<FieldError> parse_host(const json& j, const std::string& path, HostLoad& h) {
  const Fields f(j, path);
  if (auto e = f.only({"cpu_busy", "cpu_count", "memory_used_mib", "memory_total_mib"})) return e;
  if (auto e = f.number("cpu_busy", 0, 1, h.cpu_busy)) return e;
  int64_t cpus = -1;
  if (auto e = f.integer("cpu_count", 1, 1 << 16, cpus)) return e;
  h.cpu_count = static_cast<int>(cpus);
  if (auto e = f.integer("memory_total_mib", 1, int64_t{1} << 40, h.memory_total_mib)) return e;
  if (auto e = f.integer("memory_used_mib", 0, int64_t{1} << 40, h.memory_used_mib)) return e;
  if (h.memory_total_mib > 0 && h.memory_used_mib > h.memory_total_mib)
    return FieldError{f.at("memory_used_mib"), "more than memory_total_mib"};
  return std::nullopt;
}

std::optional<FieldError> parse_report(const json& j, const std::string& path,
                                       const TelemetryLimits& limits, NodeReport& r) {
  const Fields f(j, path);
  if (auto e = f.only({"node", "time", "window_s", "samples", "host", "gpus"})) return e;
  if (auto e = f.text("node", 255, r.node, true)) return e;
  if (auto e = f.number("time", 1, 1e11, r.time, true)) return e;
  if (auto e = f.number("window_s", 1e-3, 86400, r.window_s, true)) return e;
  int64_t samples = 1;
  if (auto e = f.integer("samples", 1, 1 << 20, samples)) return e;
  r.samples = static_cast<int>(samples);
  if (f.has("host"))
    if (auto e = parse_host(f["host"], f.at("host"), r.host)) return e;
  if (!f.has("gpus")) return std::nullopt;
  const json& gs = f["gpus"];
  if (!gs.is_array()) return FieldError{f.at("gpus"), "expected an array"};
  if (gs.size() > limits.max_gpus)
    return FieldError{f.at("gpus"), fmt::format("{} GPUs, at most {}", gs.size(), limits.max_gpus)};
  std::set<int> seen;
  for (size_t i = 0; i < gs.size(); ++i) {
    GpuTelemetry g;
    g.node = r.node;
    const std::string at = fmt::format("{}.gpus[{}]", path, i);
    if (auto e = parse_gpu(gs[i], at, limits, g)) return e;
    if (!seen.insert(g.gpu).second)
      return FieldError{at + ".index", fmt::format("GPU {} is reported twice", g.gpu)};
    r.gpus.push_back(std::move(g));
  }
  return std::nullopt;
}

}  // namespace

nlohmann::json to_json(const NodeReport& r) {
  json j = {{"node", r.node}, {"time", r.time}, {"window_s", r.window_s}, {"samples", r.samples}};
  json host = json::object();
  put_if(host, "cpu_busy", r.host.cpu_busy);
  if (r.host.cpu_count > 0) host["cpu_count"] = r.host.cpu_count;
  put_if(host, "memory_used_mib", r.host.memory_used_mib);
  put_if(host, "memory_total_mib", r.host.memory_total_mib);
  if (!host.empty()) j["host"] = std::move(host);
  json gpus = json::array();
  for (const GpuTelemetry& g : r.gpus) {
    json x = {{"index", g.gpu}};
    put_if(x, "utilization", g.utilization);
    put_if(x, "memory_used_mib", g.memory_used_mib);
    put_if(x, "memory_total_mib", g.memory_total_mib);
    put_if(x, "power_w", g.power_w);
    put_if(x, "temperature_c", g.temperature_c);
    if (!g.processes.empty()) {
      json ps = json::array();
      for (const GpuProcess& p : g.processes) {
        json y = {{"pid", p.pid}};
        put_if(y, "memory_mib", p.memory_mib);
        put_if(y, "utilization", p.utilization);
        if (!p.job.empty()) y["job"] = p.job;
        if (!p.slurm_job.empty()) y["slurm_job"] = p.slurm_job;
        ps.push_back(std::move(y));
      }
      x["processes"] = std::move(ps);
    }
    gpus.push_back(std::move(x));
  }
  j["gpus"] = std::move(gpus);
  return j;
}

nlohmann::json batch_json(const std::vector<NodeReport>& reports, double sent_at) {
  json rs = json::array();
  for (const NodeReport& r : reports) rs.push_back(to_json(r));
  json j = {{"reports", std::move(rs)}};
  if (sent_at > 0) j["sent_at"] = sent_at;
  return j;
}

std::variant<TelemetryBatch, FieldError> parse_telemetry_batch(const nlohmann::json& body,
                                                               const TelemetryLimits& limits) {
  const Fields f(body, "");
  if (auto e = f.only({"sent_at", "reports"})) return *e;
  TelemetryBatch batch;
  if (auto e = f.number("sent_at", 1, 1e11, batch.sent_at)) return *e;
  if (!f.has("reports") || !f["reports"].is_array())
    return FieldError{"reports", "expected an array of node reports"};
  const json& rs = f["reports"];
  if (rs.empty()) return FieldError{"reports", "empty"};
  if (rs.size() > limits.max_reports)
    return FieldError{
        "reports", fmt::format("{} reports, at most {} per batch", rs.size(), limits.max_reports)};
  batch.reports.reserve(rs.size());
  for (size_t i = 0; i < rs.size(); ++i) {
    NodeReport r;
    if (auto e = parse_report(rs[i], fmt::format("reports[{}]", i), limits, r)) return *e;
    batch.reports.push_back(std::move(r));
  }
  return batch;
}

}  // namespace frugal
