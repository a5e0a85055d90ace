#include "model/gpu_catalog.h"

#include <algorithm>
#include <cctype>

namespace frugal {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

GpuCatalog::GpuCatalog(std::vector<GpuModel> models) : models_(std::move(models)) {}

std::optional<GpuModelId> GpuCatalog::find(std::string_view name) const {
  for (size_t i = 0; i < models_.size(); ++i) {
    if (iequals(models_[i].name, name)) return static_cast<GpuModelId>(i);
    for (const auto& a : models_[i].aliases)
      if (iequals(a, name)) return static_cast<GpuModelId>(i);
  }
  return std::nullopt;
}

double GpuCatalog::relative_speed(GpuModelId model, GpuModelId reference, JobClass cls) const {
  if (model == kNoGpuModel || reference == kNoGpuModel || model == reference) return 1.0;
  const int c = static_cast<int>(cls);
  return at(model).speed[c] / at(reference).speed[c];
}

}  // namespace frugal
