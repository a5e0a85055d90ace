// Store: the cluster's usage series (table usage_samples, schema version 11).
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "service/store.h"

namespace frugal {

Status Store::put_usage_sample(const UsageSampleRow& r) {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "INSERT OR REPLACE INTO usage_samples (at, span_s, provisioned_gpus, allocated_gpus,"
      " busy_gpus, queued_jobs, burn_usd_h, idle_usd_h, teams) VALUES (?,?,?,?,?,?,?,?,?);";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  int i = 1;
  for (const double v : {r.at, r.span_s, r.provisioned_gpus, r.allocated_gpus})
    sqlite3_bind_double(s, i++, v);
  if (r.busy_gpus >= 0)
    sqlite3_bind_double(s, i++, r.busy_gpus);
  else
    sqlite3_bind_null(s, i++);
  for (const double v : {r.queued_jobs, r.burn_usd_h, r.idle_usd_h}) sqlite3_bind_double(s, i++, v);
  const std::string teams = nlohmann::json(r.teams_usd_h).dump();
  sqlite3_bind_text(s, i, teams.data(), static_cast<int>(teams.size()), SQLITE_STATIC);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

Result<std::vector<UsageSampleRow>> Store::load_usage_samples(double since) const {
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "SELECT at, span_s, provisioned_gpus, allocated_gpus, busy_gpus, queued_jobs, burn_usd_h,"
      " idle_usd_h, teams FROM usage_samples WHERE at >= ? ORDER BY at;";
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_double(s, 1, since);
  std::vector<UsageSampleRow> out;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    UsageSampleRow r;
    r.at = sqlite3_column_double(s, 0);
    r.span_s = sqlite3_column_double(s, 1);
    r.provisioned_gpus = sqlite3_column_double(s, 2);
    r.allocated_gpus = sqlite3_column_double(s, 3);
    r.busy_gpus = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_double(s, 4);
    r.queued_jobs = sqlite3_column_double(s, 5);
    r.burn_usd_h = sqlite3_column_double(s, 6);
    r.idle_usd_h = sqlite3_column_double(s, 7);
    const unsigned char* t = sqlite3_column_text(s, 8);
    const auto teams =
        nlohmann::json::parse(t ? reinterpret_cast<const char*>(t) : "{}", nullptr, false);
    if (teams.is_object())
      for (const auto& [team, rate] : teams.items())
        if (rate.is_number()) r.teams_usd_h[team] = rate.get<double>();
    out.push_back(std::move(r));
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return out;
}

Status Store::purge_usage_samples(double before) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "DELETE FROM usage_samples WHERE at < ?;", -1, &s, nullptr) !=
      SQLITE_OK)
    return Error{sqlite3_errmsg(db_)};
  sqlite3_bind_double(s, 1, before);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error{sqlite3_errmsg(db_)};
  return Status::Ok();
}

}  // namespace frugal
