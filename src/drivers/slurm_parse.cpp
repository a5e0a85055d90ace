#include "drivers/slurm_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

namespace frugal {
namespace {

using nlohmann::json;

bool is_null_text(std::string_view s) {
  return s.empty() || s == "(null)" || s == "N/A" || s == "None";
}

// Splits on `sep` outside brackets/parentheses.
std::vector<std::string_view> split_top(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t from = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == sep && depth == 0) {
      out.push_back(s.substr(from, i - from));
      from = i + 1;
    }
  }
  out.push_back(s.substr(from));
  return out;
}

bool parse_int(std::string_view s, int64_t& v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

// "0-1,3" → 0 1 3
Result<std::vector<int>> parse_ranges(std::string_view s, std::string_view whole) {
  std::vector<int> out;
  for (std::string_view part : split_top(s, ',')) {
    const size_t dash = part.find('-');
    int64_t a = 0, b = 0;
    const bool ok = dash == std::string_view::npos
                        ? parse_int(part, a) && (b = a, true)
                        : parse_int(part.substr(0, dash), a) && parse_int(part.substr(dash + 1), b);
    if (!ok || b < a || b - a > 100000)
      return Error{fmt::format("bad range '{}' in '{}'", part, whole)};
    for (int64_t i = a; i <= b; ++i) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

int64_t num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_unsigned()) return static_cast<int64_t>(it->get<uint64_t>());
  if (it->is_number_float()) return static_cast<int64_t>(it->get<double>());
  return 0;
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& e : *it)
    if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

std::vector<std::string> split_words(const std::string& s, char sep) {
  std::vector<std::string> out;
  for (std::string_view w : split_top(s, sep))
    if (!w.empty()) out.emplace_back(w);
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Parses the document and checks its "errors" array; returns the array named `key`.
Result<json> document(std::string_view text, const std::string& origin, const char* key) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Error{fmt::format("{}: not a JSON object", origin)};
  auto errs = doc.find("errors");
  if (errs != doc.end() && errs->is_array() && !errs->empty()) {
    const json& e = (*errs)[0];
    return Error{fmt::format("{}: Slurm error {}: {}", origin, num(e, "error_code"),
                             str(e, "error").empty() ? e.dump() : str(e, "error"))};
  }
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_array())
    return Error{fmt::format("{}: no '{}' array", origin, key)};
  return std::move(*it);
}

}  // namespace

bool SlurmNode::usable() const {
  if (state == "down" || state == "unknown" || state == "future" || state == "error") return false;
  for (const auto& f : flags)
    if (f == "DRAIN" || f == "DRAINING" || f == "DRAINED" || f == "NOT_RESPONDING" || f == "FAIL" ||
        f == "MAINTENANCE" || f == "POWERED_DOWN" || f == "POWER_DOWN")
      return false;
  return true;
}

Result<std::vector<std::string>> expand_hostlist(std::string_view list) {
  std::vector<std::string> out;
  if (is_null_text(list)) return out;
  for (std::string_view item : split_top(list, ',')) {
    if (item.empty()) continue;
    const size_t lb = item.find('[');
    if (lb == std::string_view::npos) {
      out.emplace_back(item);
      continue;
    }
    const size_t rb = item.find(']', lb);
    if (rb == std::string_view::npos)
      return Error{fmt::format("host list '{}': unclosed '[' in '{}'", list, item)};
    const std::string_view prefix = item.substr(0, lb), suffix = item.substr(rb + 1);
    for (std::string_view part : split_top(item.substr(lb + 1, rb - lb - 1), ',')) {
      const size_t dash = part.find('-');
      const std::string_view a = part.substr(0, dash);
      const std::string_view b = dash == std::string_view::npos ? a : part.substr(dash + 1);
      int64_t lo = 0, hi = 0;
      if (!parse_int(a, lo) || !parse_int(b, hi) || hi < lo || hi - lo > 100000)
        return Error{fmt::format("host list '{}': bad range '{}'", list, part)};
      for (int64_t i = lo; i <= hi; ++i) {
        std::string n = std::to_string(i);
        if (n.size() < a.size()) n.insert(0, a.size() - n.size(), '0');
        out.push_back(fmt::format("{}{}{}", prefix, n, suffix));
      }
    }
  }
  return out;
}

Result<std::vector<GresItem>> parse_gres(std::string_view text) {
  std::vector<GresItem> out;
  if (is_null_text(text)) return out;
  for (std::string_view item : split_top(text, ',')) {
    if (item.empty()) continue;
    if (item.substr(0, 5) == "gres:") item.remove_prefix(5);  // tres_per_node form
    GresItem g;
    std::string_view extra;
    if (const size_t lp = item.find('('); lp != std::string_view::npos) {
      if (item.back() != ')') return Error{fmt::format("GRES '{}': unclosed '('", text)};
      extra = item.substr(lp + 1, item.size() - lp - 2);
      item = item.substr(0, lp);
    }
    std::vector<std::string_view> parts = split_top(item, ':');
    int64_t count = 1;
    if (parts.size() >= 2 && parse_int(parts.back(), count))
      parts.pop_back();
    else
      count = 1;  // "gpu" or "gpu:a100" mean one
    if (parts.empty() || parts.size() > 2 || parts[0].empty())
      return Error{fmt::format("GRES '{}': cannot read '{}'", text, item)};
    g.name = std::string(parts[0]);
    if (parts.size() == 2) g.type = std::string(parts[1]);
    g.count = count;
    // "(IDX:0-1)" or "(S:0-1)" (sockets); only IDX names devices.
    if (extra.substr(0, 4) == "IDX:" && !is_null_text(extra.substr(4))) {
      auto idx = parse_ranges(extra.substr(4), text);
      if (!idx.ok()) return Error{fmt::format("GRES '{}': {}", text, idx.error().message)};
      g.indices = std::move(idx).value();
    }
    out.push_back(std::move(g));
  }
  return out;
}

Result<std::vector<SlurmNode>> parse_nodes_json(std::string_view text, const std::string& origin) {
  auto arr = document(text, origin, "nodes");
  if (!arr.ok()) return arr.error();
  std::vector<SlurmNode> out;
  for (const json& j : arr.value()) {
    SlurmNode n;
    n.name = str(j, "name");
    if (n.name.empty()) return Error{fmt::format("{}: a node without a name", origin)};
    n.state = lower(str(j, "state"));
    n.flags = strings(j, "state_flags");
    n.reason = str(j, "reason");
    n.partitions = strings(j, "partitions");
    n.features = split_words(str(j, "features"), ',');
    n.cpus = num(j, "cpus");
    n.memory_mb = num(j, "real_memory");
    auto gres = parse_gres(str(j, "gres"));
    if (!gres.ok())
      return Error{fmt::format("{}: node {}: {}", origin, n.name, gres.error().message)};
    for (const auto& g : gres.value()) {
      if (g.name == "gpu") {
        n.gpu_type = g.type;
        n.gpus += static_cast<int>(g.count);
      } else if (g.name == "shard") {
        n.shards += static_cast<int>(g.count);
      }
    }
    auto used = parse_gres(str(j, "gres_used"));
    if (!used.ok())
      return Error{fmt::format("{}: node {} gres_used: {}", origin, n.name, used.error().message)};
    for (const auto& g : used.value())
      if (g.name == "gpu") n.gpus_used += static_cast<int>(g.count);
    out.push_back(std::move(n));
  }
  return out;
}

Result<std::vector<SlurmPartition>> parse_partitions_json(std::string_view text,
                                                          const std::string& origin) {
  auto arr = document(text, origin, "partitions");
  if (!arr.ok()) return arr.error();
  std::vector<SlurmPartition> out;
  for (const json& j : arr.value()) {
    SlurmPartition p;
    p.name = str(j, "name");
    p.state = str(j, "state");
    auto nodes = expand_hostlist(str(j, "nodes"));
    if (!nodes.ok())
      return Error{fmt::format("{}: partition {}: {}", origin, p.name, nodes.error().message)};
    p.nodes = std::move(nodes).value();
    for (const auto& f : strings(j, "flags"))
      if (f == "default") p.is_default = true;
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<SlurmJob>> parse_jobs_json(std::string_view text, const std::string& origin) {
  auto arr = document(text, origin, "jobs");
  if (!arr.ok()) return arr.error();
  std::vector<SlurmJob> out;
  for (const json& j : arr.value()) {
    SlurmJob s;
    s.id = num(j, "job_id");
    if (s.id <= 0) return Error{fmt::format("{}: a job without a job_id", origin)};
    const std::string where = fmt::format("{}: job {}", origin, s.id);
    s.name = str(j, "name");
    s.user = str(j, "user_name");
    s.partition = str(j, "partition");
    s.state = str(j, "job_state");
    s.reason = str(j, "state_reason");
    auto nodes = expand_hostlist(str(j, "nodes"));
    if (!nodes.ok()) return Error{fmt::format("{} nodes: {}", where, nodes.error().message)};
    s.nodes = std::move(nodes).value();
    auto req = expand_hostlist(str(j, "required_nodes"));
    if (!req.ok()) return Error{fmt::format("{} required_nodes: {}", where, req.error().message)};
    s.required_nodes = std::move(req).value();
    s.features = str(j, "features");
    s.tres_per_node = str(j, "tres_per_node");
    for (const auto& d : strings(j, "gres_detail")) {
      auto g = parse_gres(d);
      if (!g.ok()) return Error{fmt::format("{} gres_detail: {}", where, g.error().message)};
      // One entry per node; a node with both kinds lists them comma-separated
      // ("gpu:h100:2(IDX:0-1),shard:h100:0(IDX:N/A)"): keep the GPU or shard item the job
      // holds some of (frugal never mixes them in one job).
      GresItem item;
      for (auto& x : g.value())
        if ((x.name == "gpu" || x.name == "shard") && (item.name.empty() || x.count > 0)) item = x;
      s.gres_alloc.push_back(std::move(item));
    }
    s.comment = str(j, "comment");
    s.priority = num(j, "priority");
    s.nice = num(j, "nice");
    if (s.nice > (int64_t{1} << 31)) s.nice -= int64_t{1} << 32;  // negative values come unsigned
    s.restarts = static_cast<int>(num(j, "restart_cnt"));
    auto rq = j.find("requeue");
    s.requeue = rq != j.end() && rq->is_boolean() && rq->get<bool>();
    s.submit_time = num(j, "submit_time");
    s.eligible_time = num(j, "eligible_time");
    s.start_time = num(j, "start_time");
    s.end_time = num(j, "end_time");
    s.exit_code = static_cast<int>(num(j, "exit_code"));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace frugal
