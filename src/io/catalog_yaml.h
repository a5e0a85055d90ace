#pragma once
// Loading the GPU catalog from YAML. The built-in catalog (data/catalog/gpus.yaml) is
// embedded in the binary at build time; a user file may replace it (--catalog FILE).

#include <string>
#include <string_view>

#include "model/gpu_catalog.h"
#include "model/result.h"

namespace frugal {

// Text of data/catalog/gpus.yaml as built into this binary (generated at build time).
std::string_view builtin_catalog_yaml();

// Parses catalog YAML text; `origin` names the source in error messages (a path, or
// "built-in catalog"). Errors name the model entry and field at fault.
Result<GpuCatalog> parse_catalog_yaml(std::string_view text, const std::string& origin);

// The built-in catalog. Never fails in a correctly built binary (tested).
Result<GpuCatalog> load_builtin_catalog();

// Reads and parses a catalog file.
Result<GpuCatalog> load_catalog_file(const std::string& path);

}  // namespace frugal
