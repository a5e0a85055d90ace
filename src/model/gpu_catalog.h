#pragma once
// The GPU catalog: every GPU model frugal knows, with memory and relative speed per job
// class. The built-in catalog ships as data/catalog/gpus.yaml (loaded by io/catalog_yaml.h);
// cluster specs and traces refer to models by name or alias, resolved here.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/job_class.h"
#include "model/units.h"

namespace frugal {

struct GpuModel {
  std::string name;                  // canonical name, e.g. "A100-80GB"
  std::vector<std::string> aliases;  // other spellings accepted in inputs, e.g. "A100"
  int64_t memory_mib = 0;            // memory of one card
  // Throughput relative to A100-80GB (= 1.0) for each JobClass, indexed by JobClass.
  std::array<double, kJobClassCount> speed = {1, 1, 1, 1};
  std::string source;  // where the figures come from (free text, for docs and reports)

  // Power and price defaults (overridable per pool in the cluster spec).
  double idle_w = 0;           // board power when idle, watts
  double peak_w = 0;           // board power at full load, watts
  double on_demand_usd_h = 0;  // list on-demand rental, USD per GPU-hour
  double reserved_usd_h = 0;   // committed/reserved rental, USD per GPU-hour
  std::string price_source;    // where the power and price figures come from

  // Board power at utilisation u in [0, 1]: linear between idle and peak.
  double power_w(double u) const { return idle_w + (peak_w - idle_w) * u; }
};

// An immutable list of GPU models. Lookups are case-insensitive on name and aliases.
// Thread-safe for concurrent reads once built.
class GpuCatalog {
 public:
  GpuCatalog() = default;
  explicit GpuCatalog(std::vector<GpuModel> models);

  // Index of the model named `name` (or one of its aliases); nullopt when unknown.
  std::optional<GpuModelId> find(std::string_view name) const;
  const GpuModel& at(GpuModelId id) const { return models_[static_cast<size_t>(id)]; }
  size_t size() const { return models_.size(); }
  const std::vector<GpuModel>& models() const { return models_; }

  // Speed of `model` for `cls` relative to `reference` (1.0 when equal). kNoGpuModel → 1.0.
  double relative_speed(GpuModelId model, GpuModelId reference, JobClass cls) const;

 private:
  std::vector<GpuModel> models_;
};

}  // namespace frugal
