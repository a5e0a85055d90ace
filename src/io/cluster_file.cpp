// load_cluster_file: dispatches on the file's first line between the openb node list CSV
// (read_openb_nodes, io/openb_nodes.cpp) and the YAML cluster spec.
#include <string>

#include "io/cluster_yaml.h"
#include "io/yaml_util.h"

namespace frugal {
namespace {

constexpr std::string_view kOpenbHeader = "sn,cpu_milli,memory_mib,gpu,model";

bool is_openb_node_list(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM
  std::string_view first = text.substr(0, text.find('\n'));
  while (!first.empty() && (first.back() == '\r' || first.back() == ' ')) first.remove_suffix(1);
  return first == kOpenbHeader;
}

}  // namespace

Result<ClusterSpec> load_cluster_file(const std::string& path, const GpuCatalog& catalog) {
  auto text = yamlio::read_text_file(path);
  if (!text.ok()) return text.error();
  if (is_openb_node_list(text.value())) return read_openb_nodes(path, catalog);
  return parse_cluster_yaml(text.value(), path, catalog);
}

}  // namespace frugal
