#include "io/run_json.h"

#include <fmt/format.h>
#include <algorithm>
#include <fstream>
#include <numeric>

#include "io/report.h"

namespace frugal {
namespace {

constexpr std::array<const char*, kTimelineMetrics> kMetricKeys = {
    "provisioned_gpus", "allocated_gpus", "busy_gpus",
    "queue_jobs",       "cost_usd_per_h", "price_usd_per_mwh"};

// Seconds job o waited (queued, all stops included); < 0 when it never started.
double wait_of(const JobOutcome& o) {
  if (o.first_start < 0) return -1;
  if (o.finish >= 0) return std::max(0.0, o.finish - o.submit - o.run_time);
  return std::max(0.0, o.first_start - o.submit);
}

double gpus_of(const JobSpec& j) {
  return j.fractional() ? static_cast<double>(j.gpu_milli) / kMilliPerGpu * j.gpus : j.gpus;
}

std::string model_of(const JobOutcome& o, const GpuCatalog& c) {
  return o.last_model == kNoGpuModel ? std::string() : c.at(o.last_model).name;
}

std::string pool_of(const JobOutcome& o, const ClusterSpec& s) {
  return o.pool >= 0 && static_cast<size_t>(o.pool) < s.pools.size() ? s.pools[o.pool].name
                                                                     : std::string();
}

// The rows kept: the costliest max/2, then the longest-waiting until `max`; trace order.
std::vector<size_t> kept_jobs(const SimResult& r, size_t max) {
  const size_t n = r.jobs.size();
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t{0});
  if (n <= max) return idx;
  std::vector<char> keep(n, 0);
  auto take = [&](auto key, size_t upto) {
    std::vector<size_t> order = idx;
    const size_t m = std::min(upto, n);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(m), order.end(),
                      [&](size_t a, size_t b) {
                        const double ka = key(a), kb = key(b);
                        return ka != kb ? ka > kb : a < b;
                      });
    size_t kept = static_cast<size_t>(std::count(keep.begin(), keep.end(), 1));
    for (size_t i = 0; i < n && kept < upto; ++i)
      if (!keep[order[i]]) {
        keep[order[i]] = 1;
        ++kept;
      }
  };
  take([&](size_t i) { return r.jobs[i].cost_usd; }, max / 2);
  take([&](size_t i) { return wait_of(r.jobs[i]); }, max);
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (keep[i]) out.push_back(i);
  return out;
}

nlohmann::json job_json(size_t i, const SimResult& r, const RunInputs& in) {
  const JobSpec& j = in.jobs[i];
  const JobOutcome& o = r.jobs[i];
  const double wait = wait_of(o);
  return {{"id", j.id},
          {"team", j.team},
          {"class", std::string(to_string(j.job_class))},
          {"gpus", gpus_of(j)},
          {"model", model_of(o, in.catalog)},
          {"pool", pool_of(o, in.cluster)},
          {"submit_s", o.submit},
          {"wait_s", wait < 0 ? nlohmann::json(nullptr) : nlohmann::json(wait)},
          {"run_s", o.run_time},
          {"cost_usd", o.cost_usd},
          {"waste_usd", o.waste_usd},
          {"done", o.finish >= 0}};
}

nlohmann::json cost_by_pool(const Summary& s, const SimResult& r, const RunInputs& in) {
  std::map<std::string, double> usd;
  for (const JobOutcome& o : r.jobs)
    if (o.pool >= 0) usd[pool_of(o, in.cluster)] += o.cost_usd;
  for (const auto& [pool, a] : s.ledger.unattributed_by_pool) usd[pool] += a.total_usd();
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [pool, v] : usd) j[pool] = v;
  return j;
}

// A CSV field: quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

nlohmann::json to_json(const Timeline& t) {
  nlohmann::json j = {{"t0", t.origin()}, {"bucket_s", t.bucket_s()}};
  nlohmann::json ts = nlohmann::json::array(), cov = nlohmann::json::array();
  std::array<nlohmann::json, kTimelineMetrics> series;
  for (auto& s : series) s = nlohmann::json::array();
  for (size_t i = 0; i < t.size(); ++i) {
    ts.push_back(t.origin() + t.bucket_s() * static_cast<double>(i));
    cov.push_back(t.covered_s(i));
    for (size_t k = 0; k < kTimelineMetrics; ++k)
      series[k].push_back(t.mean(i, static_cast<TimelineMetric>(k)));
  }
  j["t"] = std::move(ts);
  j["covered_s"] = std::move(cov);
  for (size_t k = 0; k < kTimelineMetrics; ++k) j[kMetricKeys[k]] = std::move(series[k]);
  return j;
}

nlohmann::json report_document(const std::vector<Summary>& summaries,
                               const std::vector<SimResult>& results, const RunInputs& in,
                               size_t max_jobs) {
  nlohmann::json runs = nlohmann::json::array();
  for (size_t k = 0; k < summaries.size() && k < results.size(); ++k) {
    const SimResult& r = results[k];
    nlohmann::json run = to_json(summaries[k]);
    run["timeline"] = to_json(r.timeline);
    run["cost_by_pool"] = cost_by_pool(summaries[k], r, in);
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i : kept_jobs(r, max_jobs)) rows.push_back(job_json(i, r, in));
    run["jobs_total"] = r.jobs.size();
    run["jobs"] = std::move(rows);
    runs.push_back(std::move(run));
  }
  return {{"runs", std::move(runs)}};
}

Status write_jobs_csv(const std::string& path, const std::vector<SimResult>& results,
                      const RunInputs& in) {
  std::ofstream f(path);
  if (!f) return Error{fmt::format("{}: cannot write", path)};
  f << "policy,id,team,class,gpus,model,pool,submit_s,wait_s,run_s,cost_usd,waste_usd,done\n";
  for (const SimResult& r : results)
    for (size_t i = 0; i < r.jobs.size() && i < in.jobs.size(); ++i) {
      const JobSpec& j = in.jobs[i];
      const JobOutcome& o = r.jobs[i];
      const double wait = wait_of(o);
      f << fmt::format("{},{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{}\n", csv_field(r.policy),
                       csv_field(j.id), csv_field(j.team), to_string(j.job_class), gpus_of(j),
                       csv_field(model_of(o, in.catalog)), csv_field(pool_of(o, in.cluster)),
                       o.submit, wait < 0 ? std::string() : fmt::format("{}", wait), o.run_time,
                       o.cost_usd, o.waste_usd, o.finish >= 0 ? 1 : 0);
    }
  f.flush();
  if (!f) return Error{fmt::format("{}: cannot write", path)};
  return Status::Ok();
}

}  // namespace frugal
