// The default explanations of a Filter's and a Placer's "no" (framework/plugins.h, placer.h).
#include <fmt/format.h>

#include <algorithm>

#include "framework/placer.h"
#include "framework/plugins.h"

namespace frugal {
namespace {

std::string model_name(const GpuCatalog& catalog, GpuModelId m) {
  return m >= 0 && static_cast<size_t>(m) < catalog.size() ? catalog.at(m).name
                                                           : fmt::format("model {}", m);
}

// "A100: at most 3 free on one node, 5 in total" for a whole-GPU job's candidate model.
std::string whole_room(const ClusterState& st, GpuModelId m, const GpuCatalog& catalog) {
  int most = 0;
  for (int k = st.max_gpus_per_node(m); k > 0 && most == 0; --k)
    if (!st.nodes_with_free(m, k).empty()) most = k;
  return fmt::format("{}: at most {} free on one node, {} in total", model_name(catalog, m), most,
                     st.free_whole_of(m));
}

}  // namespace

PluginStatus Filter::explain(const CycleView& v, const JobSpec& job) const {
  if (job.gpus == 0 || !filter(v, job).models.empty()) return {};
  const std::vector<GpuModelId>& present = v.cluster().models();
  const bool any =
      job.allowed_models.empty()
          ? !present.empty()
          : std::any_of(job.allowed_models.begin(), job.allowed_models.end(), [&](GpuModelId m) {
              return std::find(present.begin(), present.end(), m) != present.end();
            });
  if (!any)
    return PluginStatus::no(PluginStatus::Code::kUnresolvable, "filter",
                            name() + ": no GPU model the job allows is up in the cluster");
  return PluginStatus::no(PluginStatus::Code::kUnschedulable, "filter",
                          name() + ": no GPU model is a candidate for the job now");
}

PluginStatus Placer::explain(const ClusterState& state, const JobSpec& job, const Candidates& c,
                             const GpuCatalog& catalog) const {
  if (place(state, job, c)) return {};
  const auto no = [&](std::string why) {
    return PluginStatus::no(PluginStatus::Code::kUnschedulable, "place",
                            fmt::format("{}: {}", name(), why));
  };
  if (job.gpus == 0)
    return no(fmt::format("no up node has {} milli-CPU and {} MiB of host memory free",
                          job.cpu_milli, job.memory_mib));
  std::vector<std::string> rooms;
  for (GpuModelId m : c.models) rooms.push_back(whole_room(state, m, catalog));
  const std::string where =
      rooms.empty() ? std::string("no candidate model") : fmt::format("{}", fmt::join(rooms, "; "));
  if (job.fractional())
    return no(fmt::format("no GPU has {} milli-GPU and {} MiB free ({})", job.gpu_milli,
                          job.gpu_memory_mib, where));
  return no(fmt::format("needs {} whole GPU(s) on {} ({})", job.gpus,
                        c.models.size() == 1 && job.gpus > state.max_gpus_per_node(c.models[0])
                            ? "wholly free nodes"
                            : "one node",
                        where));
}

}  // namespace frugal
