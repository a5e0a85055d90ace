#include "policy/admit_filter.h"

#include <fmt/format.h>
#include <algorithm>

namespace frugal {
namespace {

Candidates allowed_models(const ClusterState& st, const JobSpec& job) {
  Candidates c;
  if (job.preferred_model != kNoGpuModel &&
      std::find(st.models().begin(), st.models().end(), job.preferred_model) != st.models().end() &&
      (job.allowed_models.empty() || std::find(job.allowed_models.begin(), job.allowed_models.end(),
                                               job.preferred_model) != job.allowed_models.end()))
    c.models.push_back(job.preferred_model);
  for (GpuModelId m : st.models()) {
    if (m == job.preferred_model) continue;
    if (!job.allowed_models.empty() &&
        std::find(job.allowed_models.begin(), job.allowed_models.end(), m) ==
            job.allowed_models.end())
      continue;
    c.models.push_back(m);
  }
  return c;
}

class ModelFilter final : public Filter {
 public:
  std::string name() const override { return "model-constraint"; }
  Candidates filter(const CycleView& v, const JobSpec& job) const override {
    return allowed_models(v.cluster(), job);
  }
};

class CapacityAdmit final : public Admit {
 public:
  std::string name() const override { return "capacity"; }
  AdmitVerdict admit(const CycleView& v, const JobRuntime& jr) const override {
    const JobSpec& job = *jr.spec;
    const ClusterState& st = v.cluster();
    std::vector<Shape>& shapes = v.plugin_state().of<State>(this).shapes;
    if (shapes.empty()) build_shapes(st, shapes);
    const auto reject = [](std::string why) {
      return AdmitVerdict{AdmitVerdict::Kind::kReject, kNever, std::move(why)};
    };
    const auto host_ok = [&](const Shape& s) {
      return (job.cpu_milli == 0 || s.cpu == 0 || s.cpu >= job.cpu_milli) &&
             (job.memory_mib == 0 || s.mem == 0 || s.mem >= job.memory_mib);
    };
    if (job.gpus == 0) {
      for (const Shape& s : shapes)
        if (host_ok(s)) return {};
      return reject("no node has the CPU and memory this job asks for");
    }
    const Candidates c = allowed_models(st, job);
    if (c.models.empty()) return reject("no GPU of an allowed model in the cluster");
    int64_t usable = 0;
    for (const Shape& s : shapes) {
      if (std::find(c.models.begin(), c.models.end(), s.model) == c.models.end()) continue;
      if (!host_ok(s) || job.gpu_memory_mib > s.card_mem) continue;
      usable += static_cast<int64_t>(s.gpus) * s.count;
    }
    if (usable == 0)
      return reject("no node of an allowed model has the GPU memory, CPU and memory asked for");
    if (usable < job.gpus)
      return reject(fmt::format("asks for {} GPUs; the cluster has {} usable", job.gpus, usable));
    return {};
  }

 private:
  // Distinct node shapes with their counts: admission checks scan shapes, not nodes.
  struct Shape {
    GpuModelId model;
    int gpus;
    int64_t cpu, mem, card_mem;
    int64_t count;
  };
  // Kept in the view (framework/plugin_state.h), built on first use.
  struct State final : PluginState {
    std::vector<Shape> shapes;
  };
  static void build_shapes(const ClusterState& st, std::vector<Shape>& shapes) {
    for (NodeId n = 0; n < st.node_count(); ++n) {
      const NodeSpec& ns = st.spec().nodes[n];
      Shape s{ns.model, ns.gpus, ns.cpu_milli, ns.memory_mib, st.gpu_memory(n), 1};
      auto it = std::find_if(shapes.begin(), shapes.end(), [&](const Shape& o) {
        return o.model == s.model && o.gpus == s.gpus && o.cpu == s.cpu && o.mem == s.mem;
      });
      if (it == shapes.end())
        shapes.push_back(s);
      else
        ++it->count;
    }
  }
};

}  // namespace

std::unique_ptr<Admit> make_capacity_admit() {
  return std::make_unique<CapacityAdmit>();
}
std::unique_ptr<Filter> make_model_filter() {
  return std::make_unique<ModelFilter>();
}

}  // namespace frugal
