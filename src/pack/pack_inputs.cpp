#include "pack/pack_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "io/cluster_yaml.h"
#include "io/csv.h"
#include "io/trace_reader.h"

namespace frugal::pack {
namespace {

// Header → column index; error naming the file when a required column is missing.
Result<std::vector<int>> columns(const std::vector<CsvRow>& rows, const std::string& path,
                                 std::initializer_list<std::string_view> names) {
  if (rows.empty()) return Error{fmt::format("{}: empty file (no header)", path)};
  std::vector<int> out;
  for (std::string_view name : names) {
    int found = -1;
    const auto& h = rows.front().fields;
    for (size_t i = 0; i < h.size(); ++i)
      if (h[i] == name) found = static_cast<int>(i);
    if (found < 0) return Error{fmt::format("{}:1: missing column '{}'", path, name)};
    out.push_back(found);
  }
  return out;
}

// Pod name → its gpu_spec text, for the rows that have one (none in the five-column layout).
Result<std::unordered_map<std::string, std::string>> gpu_spec_texts(const std::string& path) {
  auto rows = read_csv_file(path);
  if (!rows.ok()) return rows.error();
  std::unordered_map<std::string, std::string> out;
  const auto& r = rows.value();
  if (r.empty()) return out;
  const auto& h = r.front().fields;
  const auto name_col = std::find(h.begin(), h.end(), "name");
  const auto spec_col = std::find(h.begin(), h.end(), "gpu_spec");
  if (name_col == h.end() || spec_col == h.end()) return out;
  const auto n = static_cast<size_t>(name_col - h.begin());
  const auto s = static_cast<size_t>(spec_col - h.begin());
  for (size_t i = 1; i < r.size(); ++i)
    if (r[i].fields.size() > std::max(n, s) && !r[i].fields[s].empty())
      out.emplace(r[i].fields[n], r[i].fields[s]);
  return out;
}

}  // namespace

Result<std::vector<NodeSpec>> load_pack_nodes(const std::string& path, const GpuCatalog& catalog) {
  auto spec = read_openb_nodes(path, catalog);
  if (!spec.ok()) return spec.error();
  std::vector<NodeSpec> out;
  for (const auto& n : spec.value().nodes) {
    if (n.gpus > kMaxGpus)
      return Error{fmt::format("{}: node '{}' has {} GPUs; the pack experiment supports at most {}",
                               path, n.name, n.gpus, kMaxGpus)};
    NodeSpec s;
    s.name = n.name;
    s.cpu = n.cpu_milli;
    s.mem = n.memory_mib;
    s.num_gpu = n.gpus;
    s.model = n.gpus > 0 ? static_cast<int>(n.model) : -1;
    out.push_back(std::move(s));
  }
  if (out.empty()) return Error{fmt::format("{}: no nodes", path)};
  return out;
}

Result<std::vector<Pod>> load_pack_pods(const std::string& path, const GpuCatalog& catalog) {
  TraceOptions opt;
  opt.format = "openb";
  opt.catalog = &catalog;
  auto trace = read_trace(path, opt);
  if (!trace.ok()) return trace.error();
  // The artifact keys typical pods on the gpu_spec text exactly as written (its GpuType), so
  // "V100M16|V100M32|V100M32" is a key of its own, apart from "V100M16|V100M32": the text is
  // read here, not rebuilt from the parsed (deduplicated, canonically named) model list.
  auto spec_text = gpu_spec_texts(path);
  if (!spec_text.ok()) return spec_text.error();
  std::vector<Pod> out;
  out.reserve(trace.value().jobs.size());
  for (const JobSpec& j : trace.value().jobs) {
    Pod p;
    p.name = j.id;
    p.cpu = j.cpu_milli;
    p.mem = j.memory_mib;
    p.num_gpu = j.gpus;
    p.milli = j.gpus == 0 ? 0 : static_cast<int32_t>(j.gpu_milli);
    for (GpuModelId m : j.allowed_models) {
      if (static_cast<size_t>(m) >= 64)
        return Error{fmt::format("{}: pod '{}': GPU model id out of range", path, j.id)};
      p.model_mask |= uint64_t{1} << static_cast<unsigned>(m);
    }
    if (auto it = spec_text.value().find(p.name); it != spec_text.value().end())
      p.model_key = it->second;
    out.push_back(std::move(p));
  }
  if (out.empty()) return Error{fmt::format("{}: no pods", path)};
  return out;
}

Result<std::vector<Pod>> load_replay_order(const std::string& path) {
  auto rows = read_csv_file(path);
  if (!rows.ok()) return rows.error();
  const auto& r = rows.value();
  auto c = columns(r, path, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli_per_gpu"});
  if (!c.ok()) return c.error();
  const std::vector<int>& col = c.value();
  std::vector<Pod> out;
  out.reserve(r.size());
  for (size_t i = 1; i < r.size(); ++i) {
    const CsvRow& row = r[i];
    const Where w{&path, row.line};
    if (row.fields.size() != r.front().fields.size())
      return Error{fmt::format("{}: expected {} fields, got {}", w.str(), r.front().fields.size(),
                               row.fields.size())};
    auto f = [&](int k) -> const std::string& {
      return row.fields[static_cast<size_t>(col[static_cast<size_t>(k)])];
    };
    Pod p;
    p.name = f(0);
    auto cpu = parse_int(f(1), "cpu_milli", w, 0, int64_t{1} << 40);
    if (!cpu.ok()) return cpu.error();
    auto mem = parse_int(f(2), "memory_mib", w, 0, int64_t{1} << 40);
    if (!mem.ok()) return mem.error();
    auto num = parse_int(f(3), "num_gpu", w, 0, kMaxGpus);
    if (!num.ok()) return num.error();
    auto milli = parse_int(f(4), "gpu_milli_per_gpu", w, 0, kMilli);
    if (!milli.ok()) return milli.error();
    p.cpu = cpu.value();
    p.mem = mem.value();
    p.num_gpu = static_cast<int>(num.value());
    p.milli = p.num_gpu == 0 ? 0 : static_cast<int32_t>(milli.value());
    if (p.num_gpu > 0 && p.milli == 0)
      return field_error(w, "gpu_milli_per_gpu", "a GPU pod needs gpu_milli_per_gpu in [1, 1000]");
    out.push_back(std::move(p));
  }
  if (out.empty()) return Error{fmt::format("{}: no pods", path)};
  return out;
}

Result<std::vector<int>> load_node_ranks(const std::string& path,
                                         const std::vector<NodeSpec>& nodes) {
  auto rows = read_csv_file(path);
  if (!rows.ok()) return rows.error();
  const auto& r = rows.value();
  auto c = columns(r, path, {"node", "tiebreak_rank"});
  if (!c.ok()) return c.error();
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].name, i);
  std::vector<int> rank(nodes.size(), -1);
  std::vector<char> taken(nodes.size(), 0);
  for (size_t i = 1; i < r.size(); ++i) {
    const CsvRow& row = r[i];
    const Where w{&path, row.line};
    if (row.fields.size() != r.front().fields.size())
      return Error{fmt::format("{}: expected {} fields, got {}", w.str(), r.front().fields.size(),
                               row.fields.size())};
    const std::string& name = row.fields[static_cast<size_t>(c.value()[0])];
    auto it = index.find(name);
    if (it == index.end())
      return field_error(w, "node", fmt::format("unknown node '{}' (not in the node list)", name));
    auto v = parse_int(row.fields[static_cast<size_t>(c.value()[1])], "tiebreak_rank", w, 0,
                       static_cast<int64_t>(nodes.size()) - 1);
    if (!v.ok()) return v.error();
    if (taken[static_cast<size_t>(v.value())])
      return field_error(w, "tiebreak_rank", fmt::format("rank {} appears twice", v.value()));
    taken[static_cast<size_t>(v.value())] = 1;
    rank[it->second] = static_cast<int>(v.value());
  }
  for (size_t i = 0; i < nodes.size(); ++i)
    if (rank[i] < 0) return Error{fmt::format("{}: node '{}' has no rank", path, nodes[i].name)};
  return rank;
}

}  // namespace frugal::pack
