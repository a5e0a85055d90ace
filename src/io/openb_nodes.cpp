// read_openb_nodes (io/cluster_yaml.h): openb's node list, sn,cpu_milli,memory_mib,gpu,model.
// One NodeSpec per row, in one region "default" (UTC) and one pool "default". gpu == 0 is a
// CPU-only node (model must then be empty or is ignored; kNoGpuModel); gpu > 0 needs a model
// the catalog knows. gpu is limited to kMaxGpusPerNode.

#include <fmt/format.h>

#include "io/cluster_yaml.h"
#include "io/trace_table.h"

namespace frugal {

Result<ClusterSpec> read_openb_nodes(const std::string& path, const GpuCatalog& catalog) {
  auto rows = read_csv_file(path);
  if (!rows.ok()) return rows.error();
  if (rows.value().empty()) return Error{fmt::format("{}: empty file (no header, no nodes)", path)};
  Table table;
  table.path = &path;
  table.rows = std::move(rows).value();
  table.columns = std::move(table.rows.front().fields);
  table.header_line = table.rows.front().line;
  table.rows.erase(table.rows.begin());
  auto cols = require_columns(table, {"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  if (!cols.ok()) return cols.error();
  const std::vector<int> c = std::move(cols).value();

  ClusterSpec spec = make_single_pool_cluster("default", "default");
  spec.nodes.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) {
    const Where w = table.where(row);
    if (row.fields.size() != table.columns.size())
      return Error{fmt::format("{}: expected {} fields, got {}", w.str(), table.columns.size(),
                               row.fields.size())};
    NodeSpec node;
    node.name = field(row, c[0]);
    if (node.name.empty()) return field_error(w, "sn", "node name is empty");
    auto cpu = parse_int(field(row, c[1]), "cpu_milli", w, 0, int64_t{1} << 40);
    if (!cpu.ok()) return cpu.error();
    auto mem = parse_int(field(row, c[2]), "memory_mib", w, 0, int64_t{1} << 40);
    if (!mem.ok()) return mem.error();
    auto gpus = parse_int(field(row, c[3]), "gpu", w, 0, kMaxGpusPerNode);
    if (!gpus.ok()) return gpus.error();
    node.cpu_milli = cpu.value();
    node.memory_mib = mem.value();
    node.gpus = static_cast<int>(gpus.value());
    if (node.gpus > 0) {
      const std::string& model = field(row, c[4]);
      if (model.empty()) return field_error(w, "model", "a node with GPUs needs a model");
      auto id = catalog.find(model);
      if (!id)
        return field_error(w, "model",
                           fmt::format("unknown GPU model '{}' (not in the GPU catalog)", model));
      node.model = *id;
    }
    spec.nodes.push_back(std::move(node));
  }
  return spec;
}

}  // namespace frugal
