#include "service/history.h"

#include <date/date.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "service/db_read.h"
#include "service/job_record.h"
#include "service/store.h"

namespace frugal {
namespace {

// Run time per job, seconds: each segment's length on the reference model, summed.
Result<std::map<int64_t, double>> run_times(sqlite3* db, const std::string& path,
                                            const GpuCatalog& catalog, GpuModelId reference,
                                            const std::map<int64_t, JobClass>& classes) {
  auto st =
      prepare_read(db, "SELECT job_id, t0, t1, placement FROM segments ORDER BY job_id, t0;", path);
  if (!st.ok()) return st.error();
  std::map<int64_t, double> out;
  while (sqlite3_step(st.value().get()) == SQLITE_ROW) {
    sqlite3_stmt* s = st.value().get();
    const int64_t id = sqlite3_column_int64(s, 0);
    const auto cls = classes.find(id);
    if (cls == classes.end()) continue;  // a job not exported
    const double length = std::max(0.0, sqlite3_column_double(s, 2) - sqlite3_column_double(s, 1));
    double speed = 1;
    const auto placement = nlohmann::json::parse(column_text(s, 3), nullptr, false);
    if (placement.is_discarded() || !placement.is_object())
      return Error{fmt::format("{}: job {}: a run segment's placement is not JSON", path, id)};
    if (const auto m = placement.find("model");
        m != placement.end() && m->is_string() && !m->get<std::string>().empty()) {
      const auto model = catalog.find(m->get<std::string>());
      if (!model)
        return Error{fmt::format("{}: job {}: ran on '{}', a GPU model the catalog lacks", path, id,
                                 m->get<std::string>())};
      speed = catalog.relative_speed(*model, reference, cls->second);
    }
    out[id] += length * speed;
  }
  return out;
}

// What happened to a job, in trace seconds from `epoch`, beside what it asked for.
void add_outcome(JobSpec& s, const JobRecord& r, double epoch) {
  s.estimate = r.request.estimate_s > 0 ? r.request.estimate_s : -1;
  if (s.deadline != kNever) s.deadline = std::max(s.deadline, s.submit);
  if (r.utilization >= 0) s.utilization = std::min(1.0, r.utilization);
  s.recorded_start = std::max(s.submit, r.started_at - epoch);
  s.recorded_end = std::max(s.recorded_start, r.finished_at - epoch);
  s.recorded_restarts = r.restart_count;
  s.pinned = false;  // a replay schedules every job
}

}  // namespace

Result<History> read_history(const std::string& db_path, const GpuCatalog& catalog,
                             const HistoryOptions& options) {
  auto opened = open_read_only(db_path);
  if (!opened.ok()) return opened.error();
  const DbHandle& db = opened.value().db;
  const int v = opened.value().schema;
  if (v < 3)  // utilization arrived in version 3; older ones are not worth a path of their own
    return Error{
        fmt::format("{}: not a frugal serve database, or one older than schema 3 "
                    "(user_version {}); open it once with this build's frugal serve",
                    db_path, v)};
  auto st = prepare_read(db.get(),
                         "SELECT id, team, request, state, submitted_at, started_at, finished_at, "
                         "restart_count, utilization FROM jobs WHERE submitted_at >= ? "
                         "ORDER BY submitted_at, id;",
                         db_path);
  if (!st.ok()) return st.error();
  sqlite3_stmt* s = st.value().get();
  sqlite3_bind_double(s, 1, options.since_unix_s);
  History h;
  std::vector<JobRecord> rows;
  int step = SQLITE_ROW;
  while ((step = sqlite3_step(s)) == SQLITE_ROW) {
    JobRecord r;
    r.id = sqlite3_column_int64(s, 0);
    r.team = column_text(s, 1);
    const auto state = parse_job_status(column_text(s, 3));
    r.submitted_at = sqlite3_column_double(s, 4);
    r.started_at = sqlite3_column_double(s, 5);
    r.finished_at = sqlite3_column_double(s, 6);
    r.restart_count = sqlite3_column_int(s, 7);
    r.utilization = sqlite3_column_double(s, 8);
    if (!state || !is_final(*state)) {
      ++h.unfinished;
      continue;
    }
    if (r.started_at < 0) {
      ++h.never_started;
      continue;
    }
    const auto body = nlohmann::json::parse(column_text(s, 2), nullptr, false);
    auto q =
        body.is_discarded() ? Result<JobRequest>(Error{"not JSON"}) : job_request_from_stored(body);
    if (!q.ok())
      return Error{fmt::format("{}: job {}: stored request: {}", db_path, r.id, q.error().message)};
    r.request = std::move(q).value();
    rows.push_back(std::move(r));
  }
  if (step != SQLITE_DONE)
    return Error{fmt::format("{}: reading jobs: {}", db_path, sqlite3_errmsg(db.get()))};
  if (rows.empty()) return h;
  h.epoch_unix_s = std::floor(rows.front().submitted_at / 3600) * 3600;
  std::map<int64_t, JobClass> classes;
  for (const JobRecord& r : rows) classes[r.id] = r.request.job_class;
  auto times = run_times(db.get(), db_path, catalog, options.reference, classes);
  if (!times.ok()) return times.error();
  h.jobs.reserve(rows.size());
  for (const JobRecord& r : rows) {
    JobSpec spec = *make_spec(r, catalog, h.epoch_unix_s);
    add_outcome(spec, r, h.epoch_unix_s);
    const auto t = times.value().find(r.id);
    // A run the store has no segment for (none is written before a run ends): start to end.
    spec.duration =
        t != times.value().end() ? t->second : std::max(0.0, r.finished_at - r.started_at);
    h.jobs.push_back(std::move(spec));
  }
  return h;
}

Result<double> parse_since(const std::string& s) {
  double v = 0;
  if (const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      !s.empty() && ec == std::errc() && end == s.data() + s.size() && v >= 0)
    return v;
  // YYYY-MM-DD, optionally THH:MM:SS and Z (UTC either way).
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, n = 0;
  const bool date_only = std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) == 3 &&
                         static_cast<size_t>(n) == s.size();
  const bool with_time =
      !date_only &&
      std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6 &&
      (static_cast<size_t>(n) == s.size() ||
       (static_cast<size_t>(n) + 1 == s.size() && s.back() == 'Z'));
  const date::year_month_day ymd{date::year(y), date::month(static_cast<unsigned>(mo)),
                                 date::day(static_cast<unsigned>(d))};
  if ((date_only || with_time) && ymd.ok() && h < 24 && mi < 60 && sec < 60)
    return static_cast<double>((date::sys_days(ymd) + std::chrono::hours(h) +
                                std::chrono::minutes(mi) + std::chrono::seconds(sec))
                                   .time_since_epoch()
                                   .count());
  return Error{fmt::format(
      "--since: '{}' is neither Unix seconds nor a UTC date (2026-11-01 or 2026-11-01T08:00:00Z)",
      s)};
}

}  // namespace frugal
