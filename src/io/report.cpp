#include "io/report.h"

#include <fmt/format.h>
#include <algorithm>
#include <utility>

namespace frugal {

nlohmann::json dist_json(const Distribution& d) {
  return {{"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"p99", d.p99}};
}

std::string human_seconds(double s) {
  if (s < 120) return fmt::format("{:.0f}s", s);
  if (s < 7200) return fmt::format("{:.1f}m", s / 60);
  if (s < 172800) return fmt::format("{:.1f}h", s / 3600);
  return fmt::format("{:.1f}d", s / 86400);
}

std::string usd(double v) {
  const double a = std::abs(v);
  if (a >= 1e6) return fmt::format("${:.2f}M", v / 1e6);
  if (a >= 1e4) return fmt::format("${:.1f}k", v / 1e3);
  return fmt::format("${:.2f}", v);
}

namespace {

// Waste categories in report order, with their JSON names; spot_reclaim on clusters with a
// spot pool only (the reports of other clusters keep their shape).
std::vector<std::pair<const char*, double>> waste_items(const Waste& w, bool spot) {
  std::vector<std::pair<const char*, double>> items = {
      {"idle_allocated_usd", w.idle_allocated_usd},
      {"idle_unallocated_usd", w.idle_unallocated_usd},
      {"stranded_usd", w.stranded_usd},
      {"rework_usd", w.rework_usd},
      {"peak_premium_usd", w.peak_premium_usd},
      {"oversized_usd", w.oversized_usd},
      {"storage_tier_usd", w.storage_tier_usd},
      {"duplicate_storage_usd", w.duplicate_storage_usd}};
  if (spot) items.emplace_back("spot_reclaim_usd", w.spot_reclaim_usd);
  return items;
}

nlohmann::json waste_json(const Waste& w, bool spot) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : waste_items(w, spot)) j[k] = v;
  return j;
}

nlohmann::json accounts_json(const std::map<std::string, CostAccount>& m, bool spot) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, a] : m) j[k] = to_json(a, spot);
  return j;
}

std::string cost_block(const Summary& s) {
  return ledger_table(s.policy, s.ledger);
}

// The `spot` block of a run on a cluster with a spot pool (docs/REPORT.md).
nlohmann::json spot_json(const Summary& s) {
  return {{"gpu_hours", s.spot_gpu_hours},
          {"nodes_provisioned", s.spot_nodes_provisioned},
          {"reclaim_notices", s.spot_notices},
          {"reclaims", s.spot_reclaims},
          {"jobs_stopped", s.spot_jobs_stopped},
          {"rework_gpu_hours", s.spot_rework_gpu_hours},
          {"spot_reclaim_usd", s.ledger.total.waste.spot_reclaim_usd}};
}

// One line per run on spot capacity, for the text report.
std::string spot_line(const Summary& s) {
  return fmt::format(
      "{}: spot {:.0f} GPU-h on {} spot nodes provisioned, {} reclaims ({} notices), {} jobs "
      "stopped by them, {:.1f} GPU-h of work lost (spot_reclaim waste {})\n",
      s.policy, s.spot_gpu_hours, s.spot_nodes_provisioned, s.spot_reclaims, s.spot_notices,
      s.spot_jobs_stopped, s.spot_rework_gpu_hours, usd(s.ledger.total.waste.spot_reclaim_usd));
}

}  // namespace

std::string ledger_table(const std::string& title, const LedgerReport& l) {
  const double total = l.total.total_usd();
  std::string out = fmt::format(
      "\n{}: cost {} (rental {}, energy {} for {:.0f} kWh, storage {}{}), {:.1f} t CO2, "
      "unattributed {}{}{}\n",
      title, usd(total), usd(l.total.compute.rental_usd), usd(l.total.compute.energy_usd),
      l.total.compute.energy_kwh, usd(l.total.storage_usd),
      l.total.transfer_usd > 0 ? ", transfer " + usd(l.total.transfer_usd) : std::string(),
      l.total.compute.co2_kg / 1000, usd(l.unattributed.total_usd()),
      l.unattributed.waste.booting_usd > 0
          ? fmt::format(" ({} of it booting)", usd(l.unattributed.waste.booting_usd))
          : std::string(),
      l.series_wrapped ? " [price series reused past its end]" : "");
  auto items = waste_items(l.total.waste, l.spot);
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out += "  waste, largest first:\n";
  for (const auto& [name, v] : items) {
    std::string label = name;
    label = label.substr(0, label.size() - 4);  // drop "_usd"
    out += fmt::format("    {:<20} {:>12} {:>6.1f}%\n", label, usd(v),
                       total != 0 ? 100 * v / total : 0.0);
  }
  if (l.by_region.size() > 1) {
    out += "  by region:\n";
    for (const auto& [name, a] : l.by_region)
      out += fmt::format("    {:<20} {:>12} {:>10.0f} kWh {:>8.1f} t CO2  waste {}\n", name,
                         usd(a.total_usd()), a.compute.energy_kwh, a.compute.co2_kg / 1000,
                         usd(a.waste.total()));
  }
  return out;
}

nlohmann::json to_json(const PredictionReport& p) {
  nlohmann::json by_level = nlohmann::json::object();
  for (int l = 0; l < kPredictionLevels; ++l)
    if (p.by_level[l] > 0) by_level[to_string(static_cast<PredictionLevel>(l))] = p.by_level[l];
  return {{"jobs", p.jobs},
          {"mae_s", p.mae_s},
          {"median_abs_pct_error", p.median_abs_pct_error},
          {"within_2x_share", p.within_2x_share},
          {"underestimate_share", p.underestimate_share},
          {"by_level", by_level}};
}

nlohmann::json to_json(const CostAccount& a, bool spot) {
  return {{"total_usd", a.total_usd()},         {"rental_usd", a.compute.rental_usd},
          {"energy_usd", a.compute.energy_usd}, {"storage_usd", a.storage_usd},
          {"transfer_usd", a.transfer_usd},     {"gpu_hours", a.gpu_hours},
          {"energy_kwh", a.compute.energy_kwh}, {"co2_kg", a.compute.co2_kg},
          {"waste", waste_json(a.waste, spot)}};
}

nlohmann::json to_json(const LedgerReport& l) {
  nlohmann::json j;
  j["cost"] = {{"total_usd", l.total.total_usd()},
               {"unattributed_usd", l.unattributed.total_usd()},
               {"rental_usd", l.total.compute.rental_usd},
               {"energy_usd", l.total.compute.energy_usd},
               {"energy_kwh", l.total.compute.energy_kwh},
               {"co2_kg", l.total.compute.co2_kg},
               {"storage_usd", l.total.storage_usd},
               {"transfer_usd", l.total.transfer_usd},
               {"booting_usd", l.unattributed.waste.booting_usd},
               {"booting_gpu_hours", l.unattributed.booting_gpu_hours},
               {"series_wrapped", l.series_wrapped}};
  j["waste"] = waste_json(l.total.waste, l.spot);
  // Allocated GPU-hours over provisioned GPU-hours (allocated + provisioned-but-idle).
  const double provisioned_h = l.total.gpu_hours;
  const double allocated_h = provisioned_h - l.unattributed.gpu_hours;
  j["provisioned_allocated_share"] = provisioned_h > 0 ? allocated_h / provisioned_h : 0.0;
  // The same share of the capacity that was up: booting GPU-hours (paid, not yet usable)
  // left out of the denominator. It separates the provisioning delay's share of the idle
  // capacity from the scheduler's; provisioned_allocated_share is the one that is paid for.
  const double ready_h = provisioned_h - l.unattributed.booting_gpu_hours;
  j["ready_allocated_share"] = ready_h > 0 ? allocated_h / ready_h : 0.0;
  j["by_team"] = accounts_json(l.by_team, l.spot);
  j["by_class"] = accounts_json(l.by_class, l.spot);
  j["by_region"] = accounts_json(l.by_region, l.spot);
  j["unattributed_by_pool"] = accounts_json(l.unattributed_by_pool, l.spot);
  nlohmann::json cap = nlohmann::json::object();
  for (const auto& [pool, c] : l.capacity_by_pool)
    cap[pool] = {{"gpu_hours", c.gpu_hours},
                 {"node_hours", c.node_hours},
                 {"booting_gpu_hours", c.booting_gpu_hours}};
  j["capacity_by_pool"] = std::move(cap);
  j["deferrable"] = {{"jobs", l.deferrable.jobs},
                     {"energy_usd", l.deferrable.energy_usd},
                     {"energy_kwh", l.deferrable.energy_kwh},
                     {"cost_usd", l.deferrable.cost_usd}};
  return j;
}

namespace {

nlohmann::json tier_json(const Summary& s) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t t = 0; t < s.by_tier.size(); ++t) {
    const TierSummary& ts = s.by_tier[t];
    j[std::string(kTierNames[t])] = {{"completed", ts.completed},
                                     {"jct_s", dist_json(ts.jct_s)},
                                     {"wait_s", dist_json(ts.wait_s)}};
  }
  return j;
}

nlohmann::json work_json(const Summary& s) {
  nlohmann::json j = {{"ref_gpu_hours", s.work_ref_gpu_hours},
                      {"jct_floor_s", s.jct_floor_s},
                      {"jct_bound_s", s.jct_bound_s}};
  if (s.horizon.horizon_s > 0)
    j["horizon"] = {{"horizon_s", s.horizon.horizon_s},
                    {"completed", s.horizon.completed},
                    {"ref_gpu_hours", s.horizon.work_ref_gpu_hours},
                    {"allocated_share", s.horizon.allocated_share},
                    {"busy_share", s.horizon.busy_share}};
  return j;
}

}  // namespace

nlohmann::json to_json(const Summary& s) {
  nlohmann::json j = {
      {"policy", s.policy},
      {"profile", s.profile},
      {"jobs",
       {{"submitted", s.submitted},
        {"completed", s.completed},
        {"unschedulable", s.unschedulable}}},
      {"jct_s", dist_json(s.jct_s)},
      {"wait_s", dist_json(s.wait_s)},
      {"wait_multi_gpu_s", dist_json(s.wait_multi_gpu_s)},
      {"jct_deferrable_s", dist_json(s.jct_deferrable_s)},
      {"jct_other_s", dist_json(s.jct_other_s)},
      {"by_tier", tier_json(s)},
      {"work", work_json(s)},
      {"makespan_s", s.makespan_s},
      {"gpu_utilization", s.gpu_utilization},
      {"preemptions", s.preemptions},
      {"migrations", s.migrations},
      {"resizes", s.resizes},
      {"region_moves", s.region_moves},
      {"deadline_misses", s.deadline_misses},
      {"rework_gpu_hours", s.rework_gpu_hours},
      {"node_failures", s.node_failures},
      {"autoscaler",
       {{"nodes_provisioned", s.nodes_provisioned}, {"nodes_released", s.nodes_released}}},
      {"sim", {{"wall_s", s.wall_s}, {"events", s.events}}},
  };
  if (!s.first_unschedulable_reason.empty())
    j["jobs"]["first_unschedulable_reason"] = s.first_unschedulable_reason;
  if (!s.invariant_violation.empty()) j["invariant_violation"] = s.invariant_violation;
  if (!s.stopped.empty()) j["stopped"] = s.stopped;
  if (s.has_ledger) {
    j.update(to_json(s.ledger));
  }
  if (s.has_offline_bound) {
    const OfflineBound& b = s.offline_bound;
    const OfflineBound& e = s.offline_energy_bound;
    if (b.ok) {
      j["offline_bound"] = {{"jobs", b.jobs},
                            {"columns", b.columns},
                            {"deferrable_energy_usd", b.energy_usd},
                            {"deferrable_cost_usd", b.cost_usd}};
      // The energy-optimal schedule's energy cost: the least the same jobs' energy could be.
      if (e.ok)
        j["offline_bound"]["energy_optimal_usd"] = e.energy_usd;
      else
        j["offline_bound"]["energy_optimal_error"] = e.error;
    } else {
      j["offline_bound"] = {{"jobs", b.jobs}, {"error", b.error}};
    }
  }
  if (s.has_prediction) j["prediction"] = to_json(s.prediction);
  if (s.has_spot) j["spot"] = spot_json(s);
  return j;
}

std::string to_table(const std::vector<Summary>& runs) {
  std::string out = fmt::format(
      "{:<18} {:>7} {:>7} {:>8} {:>8} {:>8} {:>9} {:>8} {:>6} {:>7} {:>10} {:>10} {:>8} {:>7}\n",
      "policy", "done", "unsched", "jct mean", "jct p50", "jct p99", "wait mean", "makespan",
      "util", "preempt", "cost", "waste", "t CO2", "wall");
  for (const Summary& s : runs) {
    out += fmt::format(
        "{:<18} {:>7} {:>7} {:>8} {:>8} {:>8} {:>9} {:>8} {:>5.1f}% {:>7} {:>10} {:>10} {:>8.1f} "
        "{:>6.2f}s\n",
        s.policy, s.completed, s.unschedulable, human_seconds(s.jct_s.mean),
        human_seconds(s.jct_s.p50), human_seconds(s.jct_s.p99), human_seconds(s.wait_s.mean),
        human_seconds(s.makespan_s), 100 * s.gpu_utilization, s.preemptions,
        usd(s.ledger.total.total_usd()), usd(s.ledger.total.waste.total()),
        s.ledger.total.compute.co2_kg / 1000, s.wall_s);
  }
  for (const Summary& s : runs)
    if (s.has_spot) out += spot_line(s);
  for (const Summary& s : runs)
    if (s.has_ledger) out += cost_block(s);
  for (const Summary& s : runs)
    if (!s.invariant_violation.empty())
      out += fmt::format("INVARIANT VIOLATED in {}: {}\n", s.policy, s.invariant_violation);
  for (const Summary& s : runs)
    if (!s.stopped.empty()) out += fmt::format("RUN STOPPED in {}: {}\n", s.policy, s.stopped);
  return out;
}

}  // namespace frugal
