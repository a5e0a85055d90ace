#include "cluster/placement.h"

namespace frugal {

std::vector<NodeId> Placement::nodes() const {
  std::vector<NodeId> out;
  for (const auto& s : slots)
    if (out.empty() || out.back() != s.node) out.push_back(s.node);
  return out;
}

}  // namespace frugal
