#pragma once
// `frugal serve`: wires config, driver, store, scheduler and HTTP API together and runs
// until SIGINT or SIGTERM. Signals are taken synchronously: they are blocked in every
// thread and a dedicated thread reads them from a signalfd (no handler, no global state).

#include <string>

#include "drivers/driver.h"
#include "model/cluster_spec.h"
#include "model/gpu_catalog.h"
#include "model/result.h"
#include "service/config.h"

namespace frugal {

struct ServeOptions {
  std::string config;
  std::string listen;   // overrides the config's when not empty
  std::string db;       // idem
  std::string backend;  // idem
};

// Runs the service; returns the process exit code (0 after a clean signal-driven stop).
int run_serve(const ServeOptions& options);

// The engine's cluster for this host's inventory: one region and owned pool "local", one
// node per inventory node with the catalog model its GPUs name (NVML product names such as
// "NVIDIA H100 80GB HBM3" are matched against catalog names and aliases), else the config's
// gpu_model. Error when a GPU model cannot be resolved.
Result<ClusterSpec> cluster_from_inventory(const Inventory& inv, const ServiceConfig& config,
                                           const GpuCatalog& catalog);

// Resolves a product name to a catalog model, or nullopt.
std::optional<GpuModelId> match_gpu_model(const std::string& product, const GpuCatalog& catalog);

}  // namespace frugal
