// The bill of real bytes: waste integrated per tick, GB-hours, transfers and dedup priced at
// read time (StorageManager::bill_tick, StorageManager::bill, bill_json; see storage_bill.h).
#include "storage/storage_bill.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "storage/files.h"
#include "storage/storage_db.h"
#include "storage/storage_manager.h"

namespace frugal::storage {
namespace {

constexpr double kGb = 1e9;
constexpr double kMonthHours = 30.0 * 24.0;  // prices are per 30-day month, as the ledger's
constexpr const char* kTickKey = "bill_tick_at";

double tier_price(const StorageConfig& c, const std::string& tier) {
  const TierConfig* t = find_tier(c, tier);
  return t ? t->usd_per_gb_month : 0;
}

double usd_of(double byte_seconds, double usd_per_gb_month) {
  return byte_seconds / kGb / 3600.0 * usd_per_gb_month / kMonthHours;
}

// The premium a byte-second of waste costs: hot_unused the hot price above the warm one, the
// others their tier's price.
double waste_price(const StorageConfig& c, const std::string& category, const std::string& tier) {
  if (std::string(category) == "hot_unused")
    return std::max(0.0, tier_price(c, "hot") - tier_price(c, "warm"));
  return tier_price(c, tier);
}

// Whether a hot file set is unused at `now` (storage_bill.h, hot_unused).
bool hot_unused(const StorageDb& db, const FileSet& f, double now, double after_s) {
  if (f.tier != "hot") return false;
  double last = f.last_use;
  if (f.kind == "checkpoint") {
    if (f.completed_at < 0) return false;
    last = std::max(last, f.completed_at);
  } else if (f.kind == "staged") {
    if (!db.users(f.id).empty()) return false;
  } else {
    return false;
  }
  return now - last > after_s;
}

}  // namespace

Status StorageManager::bill_tick(double now) {
  if (Status s = writable("bill_tick"); !s.ok()) return s;
  const std::optional<std::string> prev_text = db_->meta(kTickKey);
  const double prev = prev_text ? std::stod(*prev_text) : now;
  if (prev_text && now <= prev) return {};
  // Checksums for duplicate_stored, once per complete checkpoint that has the size of another
  // (only those can be copies), outside the transaction.
  std::map<uint64_t, int> sizes;
  for (const FileSet& f : db_->filesets("checkpoint"))
    if (f.completed_at >= 0) ++sizes[f.bytes];
  for (FileSet f : db_->filesets("checkpoint")) {
    if (!f.checksum.empty() || f.completed_at < 0 || sizes[f.bytes] < 2 || !path_exists(f.path))
      continue;
    auto sum = tree_checksum(f.path);
    if (!sum.ok()) continue;
    f.checksum = sum.value();
    if (Status s = db_->update_fileset(f); !s.ok()) return s;
  }
  const double dt = now - prev;
  if (Status s = db_->begin(); !s.ok()) return s;
  Status s;
  const auto add = [&](const FileSet& f, const char* category) {
    if (s.ok() && dt > 0)
      s = db_->add_waste(f.team, category, f.tier, static_cast<double>(f.bytes) * dt);
  };
  const std::vector<FileSet> all = db_->filesets("");
  for (const FileSet& f : all)
    if (hot_unused(*db_, f, now, config_.hot_unused_after_s)) add(f, "hot_unused");
  // past_retention: what the plan would delete now (every job restartable).
  std::vector<FileSet> cps;
  std::vector<CheckpointInfo> infos;
  for (const FileSet& f : all) {
    if (f.kind != "checkpoint") continue;
    Tier t = Tier::hot;
    (void)parse_tier(f.tier, t);
    cps.push_back(f);
    infos.push_back(CheckpointInfo{f.job, f.team, f.name, f.step, f.completed_at, t, f.bytes});
  }
  const auto policy = [this](const std::string& team) -> const LifecyclePolicy& {
    return policy_for(config_, team);
  };
  for (const LifecycleAction& a :
       plan_lifecycle(infos, policy, now, [](const std::string&) { return true; }))
    if (a.kind == ActionKind::remove) add(cps.at(a.index), "past_retention");
  // duplicate_stored: every copy after the first (lowest id) of one checksum.
  std::set<std::string> seen;
  for (const FileSet& f : cps)  // by id
    if (!f.checksum.empty() && !seen.insert(f.checksum).second) add(f, "duplicate_stored");
  if (s.ok()) s = db_->set_meta(kTickKey, fmt::format("{:.17g}", now));
  if (s.ok()) s = db_->commit();
  if (!s.ok()) db_->rollback();
  return s;
}

Result<StorageBill> StorageManager::bill(double now) const {
  StorageBill b;
  b.at = now;
  if (const auto t = db_->meta(kTickKey)) b.last_tick = std::stod(*t);
  const auto storage = [&](const UsageRow& u) {
    const double price = tier_price(config_, u.tier);
    const double usd = usd_of(u.byte_seconds, price);
    TeamBill& team = b.teams[u.team];
    TierBill& tier = team.tiers[u.tier];
    tier.gb_hours += u.byte_seconds / kGb / 3600.0;
    tier.usd += usd;
    if (!u.job.empty()) {
      JobBill& j = b.jobs[u.job];
      j.team = u.team;
      j.storage_usd += usd;
    }
  };
  for (const UsageRow& u : db_->usage()) storage(u);
  const std::vector<FileSet> all = db_->filesets("");
  // One query for every object's teams (not one per object: datasets hold many files).
  const std::map<std::string, std::vector<std::string>> object_teams = db_->all_object_teams();
  for (const FileSet& f : all)
    for (const UsageRow& u : db_->open_usage(f, now, object_teams)) storage(u);
  for (const TransferRow& t : db_->transfers()) {
    const TierConfig* from = find_tier(config_, t.from_tier);
    const double gb = static_cast<double>(t.bytes) / kGb;
    const double usd = gb * (from ? from->transfer_usd_per_gb : 0);
    TeamBill& team = b.teams[t.team];
    team.transfer_gb += gb;
    team.transfer_usd += usd;
    if (!t.job.empty()) {
      JobBill& j = b.jobs[t.job];
      j.team = t.team;
      j.transfer_usd += usd;
    }
  }
  for (const WasteRow& w : db_->waste())
    b.teams[w.team].waste_usd[w.category] +=
        usd_of(w.byte_seconds, waste_price(config_, w.category, w.tier));
  // Dedup: logical bytes declared vs the share of distinct objects stored.
  for (const DatasetRow& d : db_->datasets()) {
    uint64_t bytes = 0;
    for (const auto& entry : db_->manifest(d.spec)) bytes += std::get<2>(entry);
    for (const std::string& team : db_->teams(d.spec)) b.teams[team].dataset_logical_bytes += bytes;
  }
  for (const FileSet& f : all) {
    if (f.kind != "dataset-object") continue;
    const auto found = object_teams.find(f.checksum);
    std::vector<std::string> teams =
        found == object_teams.end() ? std::vector<std::string>{} : found->second;
    if (teams.empty()) teams.push_back(f.team);
    for (const std::string& team : teams)
      b.teams[team].dataset_stored_bytes +=
          static_cast<double>(f.bytes) / static_cast<double>(teams.size());
  }
  const double warm = tier_price(config_, "warm");
  for (auto& [name, t] : b.teams) {
    for (const auto& [tier, tb] : t.tiers) t.storage_usd += tb.usd;
    t.cas_avoided_usd_per_month =
        std::max(0.0, static_cast<double>(t.dataset_logical_bytes) - t.dataset_stored_bytes) / kGb *
        warm;
    t.total_usd = t.storage_usd + t.transfer_usd;
    // The total is the sum of the teams: every dollar lands once.
    TeamBill& all_teams = b.total;
    for (const auto& [tier, tb] : t.tiers) {
      all_teams.tiers[tier].gb_hours += tb.gb_hours;
      all_teams.tiers[tier].usd += tb.usd;
    }
    all_teams.storage_usd += t.storage_usd;
    all_teams.transfer_gb += t.transfer_gb;
    all_teams.transfer_usd += t.transfer_usd;
    for (const auto& [c, usd] : t.waste_usd) all_teams.waste_usd[c] += usd;
    all_teams.dataset_logical_bytes += t.dataset_logical_bytes;
    all_teams.dataset_stored_bytes += t.dataset_stored_bytes;
    all_teams.cas_avoided_usd_per_month += t.cas_avoided_usd_per_month;
    all_teams.total_usd += t.total_usd;
  }
  for (auto& [job, j] : b.jobs) j.total_usd = j.storage_usd + j.transfer_usd;
  return b;
}

namespace {

nlohmann::json team_json(const TeamBill& t) {
  nlohmann::json tiers = nlohmann::json::object();
  for (const auto& [name, tb] : t.tiers) tiers[name] = {{"gb_hours", tb.gb_hours}, {"usd", tb.usd}};
  nlohmann::json waste = nlohmann::json::object();
  for (const char* c : kWasteCategories) {
    const auto it = t.waste_usd.find(c);
    waste[c] = it == t.waste_usd.end() ? 0.0 : it->second;
  }
  return {{"tiers", tiers},
          {"storage_usd", t.storage_usd},
          {"transfer_gb", t.transfer_gb},
          {"transfer_usd", t.transfer_usd},
          {"waste_usd", waste},
          {"dedup",
           {{"logical_bytes", t.dataset_logical_bytes},
            {"stored_bytes", t.dataset_stored_bytes},
            {"avoided_usd_per_month", t.cas_avoided_usd_per_month}}},
          {"total_usd", t.total_usd}};
}

}  // namespace

std::string bill_json(const StorageBill& b, const std::string& team) {
  nlohmann::json teams = nlohmann::json::object();
  nlohmann::json jobs = nlohmann::json::object();
  for (const auto& [name, t] : b.teams)
    if (team.empty() || name == team) teams[name] = team_json(t);
  for (const auto& [id, j] : b.jobs)
    if (team.empty() || j.team == team)
      jobs[id] = {{"team", j.team},
                  {"storage_usd", j.storage_usd},
                  {"transfer_usd", j.transfer_usd},
                  {"total_usd", j.total_usd}};
  nlohmann::json total;
  if (team.empty()) {
    total = team_json(b.total);
  } else {
    const auto it = b.teams.find(team);
    total = team_json(it == b.teams.end() ? TeamBill{} : it->second);
  }
  nlohmann::json j = {
      {"at", b.at}, {"last_tick", b.last_tick}, {"teams", teams}, {"total", total}, {"jobs", jobs}};
  return j.dump(2);
}

}  // namespace frugal::storage
