#include "drivers/slurm_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "drivers/command.h"
#include "drivers/slurm_parse.h"

namespace frugal {
namespace {

using nlohmann::json;

int64_t steady_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Slurm's answer to a mutation: {"errors": [...]}; error 2042 on a held submit is a notice.
Status check_errors(const std::string& body, const std::string& what) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Error{fmt::format("{}: answer is not JSON", what)};
  auto errs = doc.find("errors");
  if (errs == doc.end() || !errs->is_array()) return Status::Ok();
  for (const auto& e : *errs) {
    const int64_t code = e.value("error_code", int64_t{0});
    if (code == 2042) continue;  // "Job is in held state, pending scheduler release"
    return Error{fmt::format("{}: Slurm error {}: {}", what, code, e.value("error", e.dump()))};
  }
  return Status::Ok();
}

}  // namespace

struct SlurmClient::Http {
  explicit Http(const std::string& url, double timeout_s) : client(url) {
    const auto ms = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    client.set_connection_timeout(ms);
    client.set_read_timeout(ms);
    client.set_write_timeout(ms);
  }
  httplib::Client client;
};

SlurmClient::SlurmClient(SlurmConfig config)
    : config_(std::move(config)),
      http_(std::make_unique<Http>(config_.rest_url, config_.timeout_s)),
      jwt_(config_.jwt) {}
SlurmClient::~SlurmClient() = default;
SlurmClient::SlurmClient(SlurmClient&&) noexcept = default;
SlurmClient& SlurmClient::operator=(SlurmClient&&) noexcept = default;

std::string SlurmClient::api(const std::string& tail) const {
  return fmt::format("/slurm/{}/{}", config_.api_version, tail);
}

Status SlurmClient::token() {
  if (!config_.jwt.empty()) return Status::Ok();
  if (!jwt_.empty() && steady_s() < jwt_expires_ - 60) return Status::Ok();
  auto out = run_checked({config_.scontrol, "token", "username=" + config_.user,
                          fmt::format("lifespan={}", config_.token_lifespan_s)},
                         config_.timeout_s);
  if (!out.ok()) return Error{"getting a slurmrestd token: " + out.error().message};
  const std::string& s = out.value();
  const size_t at = s.find("SLURM_JWT=");
  if (at == std::string::npos) return Error{"getting a slurmrestd token: no SLURM_JWT in: " + s};
  size_t end = s.find_first_of("\r\n ", at);
  jwt_ = s.substr(at + 10, end == std::string::npos ? std::string::npos : end - at - 10);
  jwt_expires_ = steady_s() + config_.token_lifespan_s;
  return Status::Ok();
}

Result<std::string> SlurmClient::request(const char* method, const std::string& path,
                                         const std::string& body) {
  const std::string what = fmt::format("slurmrestd {} {}", method, path);
  if (Status t = token(); !t.ok()) return Error{what + ": " + t.error().message};
  httplib::Headers headers = {{"X-SLURM-USER-NAME", config_.user}, {"X-SLURM-USER-TOKEN", jwt_}};
  httplib::Result r = std::string(method) == "GET" ? http_->client.Get(path, headers)
                      : std::string(method) == "DELETE"
                          ? http_->client.Delete(path, headers)
                          : http_->client.Post(path, headers, body, "application/json");
  if (!r)
    return Error{fmt::format("{}: {} ({})", what, httplib::to_string(r.error()), config_.rest_url)};
  if (r->status == 401 || r->status == 403) {
    jwt_expires_ = 0;  // renew next time
    return Error{fmt::format("{}: HTTP {} (token rejected)", what, r->status)};
  }
  // slurmrestd answers errors with a JSON body too; let the caller read "errors".
  if (r->status >= 500 && r->body.empty())
    return Error{fmt::format("{}: HTTP {}", what, r->status)};
  return std::move(r->body);
}

Result<std::vector<SlurmNode>> SlurmClient::nodes() {
  const std::string path = api("nodes");
  auto body = request("GET", path, "");
  if (!body.ok()) return body.error();
  return parse_nodes_json(body.value(), "slurmrestd GET " + path);
}

Result<std::vector<SlurmPartition>> SlurmClient::partitions() {
  const std::string path = api("partitions");
  auto body = request("GET", path, "");
  if (!body.ok()) return body.error();
  return parse_partitions_json(body.value(), "slurmrestd GET " + path);
}

Result<std::vector<SlurmJob>> SlurmClient::jobs() {
  const std::string path = api("jobs");
  auto body = request("GET", path, "");
  if (!body.ok()) return body.error();
  return parse_jobs_json(body.value(), "slurmrestd GET " + path);
}

Result<SlurmJob> SlurmClient::job(int64_t id) {
  const std::string path = api(fmt::format("job/{}", id));
  auto body = request("GET", path, "");
  if (!body.ok()) return body.error();
  auto jobs = parse_jobs_json(body.value(), "slurmrestd GET " + path);
  if (!jobs.ok()) return jobs.error();
  if (jobs.value().size() != 1)
    return Error{
        fmt::format("slurmrestd GET {}: {} jobs in the answer", path, jobs.value().size())};
  return std::move(jobs.value()[0]);
}

Status SlurmClient::ping() {
  const std::string path = api("ping");
  auto body = request("GET", path, "");
  if (!body.ok()) return body.error();
  json doc = json::parse(body.value(), nullptr, false);
  if (doc.is_discarded() || !doc.contains("pings") || !doc["pings"].is_array() ||
      doc["pings"].empty())
    return Error{"slurmrestd GET " + path + ": no pings in the answer"};
  for (const auto& p : doc["pings"])
    if (p.value("ping", "") == "UP") return Status::Ok();
  return Error{"slurmrestd GET " + path + ": slurmctld not UP: " + doc["pings"].dump()};
}

Result<int64_t> SlurmClient::submit(const SlurmSubmit& s) {
  json env = json::object();
  env["PATH"] = "/usr/bin:/bin";
  for (const auto& [k, v] : s.env) env[k] = v;
  json job = {{"name", s.name},
              {"partition", s.partition.empty() ? config_.partition : s.partition},
              {"current_working_directory", s.workdir},
              {"environment", env},
              {"hold", s.hold},
              {"requeue", s.requeue},
              {"nodes", s.nodes}};
  if (!s.output.empty()) job["standard_output"] = s.output;
  if (!s.comment.empty()) job["comment"] = s.comment;
  if (!s.gres.empty()) job["gres"] = s.gres;
  if (s.begin_unix > 0) job["begin_time"] = fmt::format("uts{}", s.begin_unix);  // --begin syntax
  const std::string path = api("job/submit");
  auto body = request("POST", path, json{{"script", s.script}, {"job", job}}.dump());
  if (!body.ok()) return body.error();
  const std::string what = "slurmrestd POST " + path + " (job '" + s.name + "')";
  if (Status st = check_errors(body.value(), what); !st.ok()) return st.error();
  json doc = json::parse(body.value(), nullptr, false);
  if (!doc.contains("job_id") || !doc["job_id"].is_number_integer())
    return Error{what + ": no job_id in the answer"};
  return doc["job_id"].get<int64_t>();
}

Status SlurmClient::update(int64_t id, const SlurmUpdate& u) {
  json p = json::object();
  if (!u.nodelist.empty()) p["nodelist"] = u.nodelist;
  if (!u.features.empty()) p["constraints"] = u.features;
  if (!u.gres.empty()) p["gres"] = u.gres;
  // begin_time must be a string in sbatch --begin syntax; "uts<epoch>" is Unix seconds.
  if (u.begin_unix > 0) p["begin_time"] = fmt::format("uts{}", u.begin_unix);
  if (u.begin_now) p["begin_time"] = "now";
  if (u.priority > 0) p["priority"] = std::to_string(u.priority);
  if (u.nice != 0) p["nice"] = u.nice;
  if (!u.comment.empty()) p["comment"] = u.comment;
  if (p.empty()) return Status::Ok();
  const std::string path = api(fmt::format("job/{}", id));
  auto body = request("POST", path, p.dump());
  if (!body.ok()) return body.error();
  return check_errors(body.value(), "slurmrestd POST " + path + " " + p.dump());
}

Status SlurmClient::hold(int64_t id) {
  const std::string path = api(fmt::format("job/{}", id));
  auto body = request("POST", path, R"({"hold":true})");
  if (!body.ok()) return body.error();
  return check_errors(body.value(), "slurmrestd POST " + path + " (hold)");
}

Status SlurmClient::release(int64_t id) {
  const std::string path = api(fmt::format("job/{}", id));
  auto body = request("POST", path, R"({"hold":false})");
  if (!body.ok()) return body.error();
  return check_errors(body.value(), "slurmrestd POST " + path + " (release)");
}

Status SlurmClient::signal(int64_t id, const std::string& sig) {
  const std::string path = api(fmt::format("job/{}?signal={}", id, sig));
  auto body = request("DELETE", path, "");
  if (!body.ok()) return body.error();
  return check_errors(body.value(), "slurmrestd DELETE " + path);
}

Status SlurmClient::requeue(int64_t id, bool hold_after) {
  auto out =
      run_checked({config_.scontrol, hold_after ? "requeuehold" : "requeue", std::to_string(id)},
                  config_.timeout_s);
  if (!out.ok()) return out.error();
  return Status::Ok();
}

Status SlurmClient::cancel(int64_t id) {
  const std::string path = api(fmt::format("job/{}", id));
  auto body = request("DELETE", path, "");
  if (!body.ok()) return body.error();
  return check_errors(body.value(), "slurmrestd DELETE " + path);
}

Status SlurmClient::power(const std::string& node, bool up) {
  auto out = run_checked(
      {config_.scontrol, "update", "NodeName=" + node, up ? "State=POWER_UP" : "State=POWER_DOWN"},
      config_.timeout_s);
  if (!out.ok())
    return Error{fmt::format("power {} {}: {}", up ? "up" : "down", node, out.error().message)};
  return Status::Ok();
}

}  // namespace frugal
