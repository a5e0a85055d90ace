#include "drivers/slurm_foreign.h"

#include <fmt/format.h>

#include <algorithm>

namespace frugal {

bool is_foreign(const SlurmJob& job, const std::string& instance) {
  return job.comment.rfind(instance + ":", 0) != 0;
}

std::vector<SlotAssignment> foreign_slots(const SlurmJob& job, const std::set<std::string>& nodes,
                                          int shards_per_gpu, std::vector<std::string>* unknown) {
  std::vector<SlotAssignment> out;
  for (size_t i = 0; i < job.nodes.size() && i < job.gres_alloc.size(); ++i) {
    const std::string& node = job.nodes[i];
    const GresItem& g = job.gres_alloc[i];
    if (!nodes.count(node) || g.count <= 0) continue;
    if (g.indices.empty()) {
      if (unknown != nullptr) unknown->push_back(node);
      continue;
    }
    if (g.name == "gpu") {
      for (int idx : g.indices) out.push_back(SlotAssignment{node, idx, 1000});
    } else if (g.name == "shard" && shards_per_gpu > 0) {
      const int64_t milli =
          std::min<int64_t>(1000, (g.count * 1000 + shards_per_gpu - 1) / shards_per_gpu);
      out.push_back(SlotAssignment{node, g.indices.front(), static_cast<int>(milli)});
    }
  }
  return out;
}

std::string foreign_handle(const SlurmJob& job) {
  return fmt::format("slurm-external:{}:{}", job.id, job.start_time);
}

std::pair<int64_t, int64_t> parse_foreign_handle(const std::string& handle) {
  static const std::string kPrefix = "slurm-external:";
  if (handle.rfind(kPrefix, 0) != 0) return {0, 0};
  const std::string rest = handle.substr(kPrefix.size());
  const size_t colon = rest.find(':');
  if (colon == std::string::npos) return {0, 0};
  try {
    size_t used = 0;
    const int64_t id = std::stoll(rest.substr(0, colon), &used);
    if (used != colon) return {0, 0};
    const std::string t = rest.substr(colon + 1);
    const int64_t start = std::stoll(t, &used);
    if (used != t.size() || id <= 0) return {0, 0};
    return {id, start};
  } catch (const std::exception&) {
    return {0, 0};
  }
}

}  // namespace frugal
