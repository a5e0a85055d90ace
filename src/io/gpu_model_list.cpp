// parse_model_list (declared in io/trace_parsers.h): "A|B|C" → catalog ids, in order, without
// duplicates. Empty text → empty list (any model). Unknown names are errors.

#include <fmt/format.h>

#include <algorithm>

#include "io/trace_parsers.h"

namespace frugal {

Status parse_model_list(std::string_view text, std::string_view field, const Where& where,
                        const GpuCatalog& catalog, std::vector<GpuModelId>& out) {
  out.clear();
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t bar = text.find('|', pos);
    if (bar == std::string_view::npos) bar = text.size();
    std::string_view name = text.substr(pos, bar - pos);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    pos = bar + 1;
    if (name.empty()) continue;
    const auto id = catalog.find(name);
    if (!id)
      return field_error(where, field,
                         fmt::format("unknown GPU model '{}' (not in the GPU catalog)", name));
    if (std::find(out.begin(), out.end(), *id) == out.end()) out.push_back(*id);
  }
  return Status::Ok();
}

}  // namespace frugal
