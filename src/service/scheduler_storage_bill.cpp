// The storage manager's real-bytes bill in GET /v1/ledger (live_storage.h: LiveStorage::bill_json,
// add_storage_bill, team_storage_bill). Read through the loop's reader manager: no writes.
//
// It is a block of its own, not added into by_team[t].storage_usd or the body's totals: those
// are the simulator-shaped accounting of this run's accounting window (checkpoint storage as the
// cost model prices it), while the bill prices the manager's records over their whole life
// (across restarts of the service; dataset objects and staged copies too). Adding one to the
// other would count checkpoints twice and break the body's identity with `frugal simulate`.
#include "service/live_storage.h"
#include "service/prom_text.h"
#include "storage/storage_bill.h"

namespace frugal {

nlohmann::json LiveStorage::bill_json(double now) const {
  auto b = reader_->bill(now);
  if (!b.ok()) return nullptr;
  return nlohmann::json::parse(storage::bill_json(b.value()));
}

void add_storage_bill(nlohmann::json& body, const LiveStorage* storage, double now) {
  if (!storage) return;
  body["storage"] = storage->bill_json(now);
}

nlohmann::json team_storage_bill(const nlohmann::json& admin_body, const std::string& team) {
  const auto s = admin_body.find("storage");
  if (s == admin_body.end() || s->is_null()) return nullptr;
  nlohmann::json out = {{"at", (*s)["at"]},
                        {"last_tick", (*s)["last_tick"]},
                        {"teams", nlohmann::json::object()},
                        {"jobs", nlohmann::json::object()},
                        {"total", nullptr}};
  if (const auto t = (*s)["teams"].find(team); t != (*s)["teams"].end()) {
    out["teams"][team] = *t;
    out["total"] = *t;
  }
  for (const auto& [id, j] : (*s)["jobs"].items())
    if (j.value("team", "") == team) out["jobs"][id] = j;
  return out;
}

void render_storage_bill_metrics(const nlohmann::json& ledger, std::string& out) {
  if (!ledger.is_object()) return;
  const auto s = ledger.find("storage");
  if (s == ledger.end() || !s->is_object()) return;
  const nlohmann::json& teams = (*s)["teams"];
  render_header("frugal_storage_usd", "gauge",
                "Storage bill so far (USD) of the manager's real bytes, by team and tier", out);
  for (const auto& [team, t] : teams.items())
    for (const auto& [tier, x] : t["tiers"].items())
      render_sample("frugal_storage_usd", {{"team", team}, {"tier", tier}}, x["usd"].get<double>(),
                    out);
  render_header("frugal_storage_transfer_usd", "gauge",
                "Transfers out of storage tiers so far (USD), by team", out);
  for (const auto& [team, t] : teams.items())
    render_sample("frugal_storage_transfer_usd", {{"team", team}}, t["transfer_usd"].get<double>(),
                  out);
}

}  // namespace frugal
