#pragma once
// How frugal reaches a Slurm cluster and how its GPU models map to Slurm's names: the
// `slurm:` block of a frugal config. Plain value; see docs/SLURM.md.

#include <string>
#include <vector>

namespace frugal {

// A frugal GPU model (catalog name) and what Slurm calls it.
struct GresMapping {
  std::string model;      // catalog name, e.g. "H100"
  std::string gres_type;  // GRES type, e.g. "h100" (gres/gpu:h100, gres/shard:h100)
  std::string feature;    // node feature for --constraint; empty = same as gres_type
};

struct SlurmConfig {
  std::string rest_url = "http://127.0.0.1:6820";  // slurmrestd
  std::string api_version = "v0.0.38";             // openapi plugin (Slurm 22.05)
  std::string user = "root";                       // X-SLURM-USER-NAME; jobs run as this user
  // JWT for slurmrestd. Empty: frugal runs `scontrol token username=<user>` (needs to run as
  // root or SlurmUser next to the controller) and renews it before it expires.
  std::string jwt;
  int token_lifespan_s = 3600;
  std::string scontrol = "scontrol";  // for requeue (not in REST v0.0.38) and tokens
  std::string partition = "gpu";      // where frugal's jobs go (a comma list: several)
  // A spot node drained with a reason starting with this is under a reclaim notice (the site's
  // notice handler drains it, then the provider takes it; docs/SLURM.md).
  std::string reclaim_reason = "spot reclaim";
  double timeout_s = 5;    // per REST request / command
  int shards_per_gpu = 8;  // gres/shard per GPU (fractional jobs)
  // Jobs submitted to Slurm directly (not through frugal) are observed and accounted for
  // and left alone. `true` (frugal may hold, release or preempt them) is not supported:
  // the config loader refuses it.
  bool manage_external = false;
  // The Slurm priority frugal gives each job it releases, by tier (core highest). Slurm
  // orders only what is pending at once; frugal releases a job when it decided to run it.
  int64_t priority_core = 30000;
  int64_t priority_important = 20000;
  int64_t priority_general = 10000;
  std::vector<GresMapping> gpu_map = {
      {"H100", "h100", ""}, {"A100-80GB", "a100", ""}, {"A100-40GB", "a100_40g", ""},
      {"H200", "h200", ""}, {"L40S", "l40s", ""},      {"L4", "l4", ""},
      {"A10", "a10", ""},   {"T4", "t4", ""},          {"V100-32GB", "v100", ""}};

  // The mapping for a GRES type / a catalog model; nullptr when unmapped.
  const GresMapping* by_gres_type(const std::string& type) const;
  const GresMapping* by_model(const std::string& model) const;
  // The priority for a tier name ("core", "important", "general"); general's for others.
  int64_t priority_for_tier(const std::string& tier) const;
};

}  // namespace frugal
