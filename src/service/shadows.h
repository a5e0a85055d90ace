#pragma once
// The service's shadow policies (config `shadow_policies`; docs/WHATIF.md "Shadow policies"):
// one ShadowRun (sim/shadow.h) per policy — the active policy's own first, so comparisons
// are shadow to shadow — all fed the same live events (arrivals, real ends with their work,
// withdrawals, node changes) and advanced once per decision-loop turn. Reported per window
// (1 h, 24 h, 7 d) beside the real figures the scheduler gives (GET /v1/shadow, /metrics).
//
// Loop thread only. A shadow starts empty when the service starts: the jobs waiting or
// running then are submitted to it at that instant (docs/WHATIF.md says what follows).

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"
#include "service/config.h"
#include "sim/shadow.h"

namespace frugal {

struct ShadowWindow {
  const char* name;
  double seconds;
};
inline constexpr std::array<ShadowWindow, 3> kShadowWindows = {
    {{"1h", 3600}, {"24h", 86400}, {"7d", 7 * 86400}}};
// Figures per window (kShadowWindows order).
using WindowFigures = std::array<ShadowFigures, kShadowWindows.size()>;

nlohmann::json to_json(const ShadowFigures& f);

class ShadowSet {
 public:
  // `policies`: the active policy first, then config.shadow_policies (duplicates of the
  // active one dropped). `cluster` and `catalog` must outlive the set. Error names the
  // policy that does not parse.
  static Result<std::unique_ptr<ShadowSet>> create(const std::vector<std::string>& policies,
                                                   const ServiceConfig& config,
                                                   const ClusterSpec& cluster,
                                                   const GpuCatalog& catalog,
                                                   const EngineOptions& options);

  void submit(int64_t id, const JobSpec& spec, Seconds t);
  // The job ended for real: after running `work_ref_s` reference seconds of work, or
  // (`ran` false) without ever running.
  void ended(int64_t id, bool ran, double work_ref_s, Seconds t);
  void node(NodeId n, bool up, Seconds t);
  // Each shadow to `t` (its own ends and cycles); timed per shadow.
  void advance(Seconds t);

  // The shadow of `policy`, if the set has one.
  std::optional<size_t> index_of(const std::string& policy) const;
  // After a policy change: `policy`'s shadow becomes the active one (first). Returns true when
  // the set had none and one was made, empty: the caller submits the jobs of now to it.
  bool set_active(const std::string& policy);
  ShadowRun& run_mut(size_t i) { return *runs_[i]; }

  size_t size() const { return runs_.size(); }
  const ShadowRun& run(size_t i) const { return *runs_[i]; }
  uint64_t events() const { return fed_; }  // events given to the set (each shadow took all)
  // Compute time of shadow i: all its calls (events and advances), and the longest one.
  double advance_s(size_t i) const { return advance_s_[i]; }
  double advance_max_s(size_t i) const { return advance_max_s_[i]; }

  // GET /v1/shadow's body: per shadow its counters and WindowFigures, and `real` beside.
  nlohmann::json to_json(const WindowFigures& real, const std::string& active_policy,
                         Seconds now) const;
  // frugal_shadow_* families (docs/METRICS.md).
  void render_metrics(const WindowFigures& real, const std::string& active_policy, Seconds now,
                      std::string& out) const;

 private:
  ShadowSet(const ServiceConfig& config, const ClusterSpec& cluster, const GpuCatalog& catalog,
            const EngineOptions& options)
      : config_(config), cluster_(cluster), catalog_(catalog), options_(options) {}
  // Adds a shadow of `policy` (checked: an error names it).
  Status add(const std::string& policy);
  // f(shadow) for each shadow, timed into its compute time.
  template <class F>
  void each(F&& f);

  ServiceConfig config_;
  const ClusterSpec& cluster_;
  const GpuCatalog& catalog_;
  EngineOptions options_;
  std::vector<std::unique_ptr<ShadowRun>> runs_;
  std::vector<double> advance_s_, advance_max_s_;
  uint64_t fed_ = 0;
};

}  // namespace frugal
