#include "service/http_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <variant>

#include "service/http_server.h"
#include "service/log_tail.h"
#include "service/ui_assets.h"

namespace frugal {
namespace {

HttpResponse to_http(const ApiReply& r) {
  HttpResponse res;
  res.status = r.status;
  res.content_type = r.content_type;
  if (!r.text.empty() || r.content_type != "application/json")
    res.body = r.text;
  else
    res.body = r.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (r.status == 401) res.headers.emplace_back("WWW-Authenticate", "Bearer");
  return res;
}

ApiReply wait(std::future<ApiReply> f) {
  if (f.wait_for(std::chrono::seconds(30)) != std::future_status::ready)
    return error_reply(503, "the decision loop did not answer within 30 s");
  return f.get();
}

constexpr size_t kMaxLogBytes = size_t{1} << 20;  // per answer of GET .../logs
constexpr int64_t kMaxLogTailLines = 100000;

std::optional<int64_t> parse_id(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  return std::stoll(s);
}

// The body as JSON, or the 400 answering it.
std::variant<nlohmann::json, ApiReply> body_json(const HttpRequest& req) {
  auto j = nlohmann::json::parse(req.body, nullptr, false);
  if (j.is_discarded()) return error_reply(400, "the body is not valid JSON", "body");
  return j;
}

// GET /v1/jobs/{id}/logs's query: which stream and where from.
struct LogQuery {
  std::string stream;
  std::optional<int> tail;
  std::optional<int64_t> offset;
};

// The query, or the 400 answering it.
std::variant<LogQuery, ApiReply> parse_log_query(const HttpRequest& req) {
  LogQuery q;
  const std::string* stream = req.param("stream");
  q.stream = stream ? *stream : "out";
  if (q.stream != "out" && q.stream != "err")
    return error_reply(400, "stream must be out or err", "stream");
  if (const std::string* tail = req.param("tail")) {
    const auto n = parse_id(*tail);
    if (!n || *n > kMaxLogTailLines)
      return error_reply(400, fmt::format("tail must be in [0, {}]", kMaxLogTailLines), "tail");
    q.tail = static_cast<int>(*n);
  }
  if (const std::string* offset = req.param("offset")) {
    q.offset = parse_id(*offset);
    if (!q.offset) return error_reply(400, "offset must be a byte offset >= 0", "offset");
  }
  if (q.tail && q.offset) return error_reply(400, "tail and offset exclude each other", "tail");
  return q;
}

// The handlers of the authenticated endpoints: each authenticates (or answers 401), parses
// and validates, then asks the scheduler and answers with its reply. `id` is the path's
// {id} segment where the route has one. All references must outlive the handlers.
class Endpoints {
 public:
  Endpoints(Scheduler& scheduler, const Authenticator& auth, const GpuCatalog& catalog,
            const RequestLimits& limits)
      : scheduler_(scheduler), auth_(auth), catalog_(catalog), limits_(limits) {}

  ApiReply submit(const HttpRequest& req, const std::string&) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    auto body = body_json(req);
    if (auto* refused = std::get_if<ApiReply>(&body)) return *refused;
    auto parsed = parse_job_request(std::get<nlohmann::json>(body), catalog_, limits_);
    if (auto* e = std::get_if<FieldError>(&parsed)) return error_reply(400, e->message, e->field);
    std::optional<IdempotencyKey> key;
    if (const std::string k = req.header("Idempotency-Key"); !k.empty()) {
      if (k.size() > 255 ||
          !std::all_of(k.begin(), k.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
        return error_reply(400, "Idempotency-Key: 1 to 255 printable ASCII characters",
                           "Idempotency-Key");
      key = IdempotencyKey{k, sha256_hex(req.body)};
    }
    return wait(scheduler_.submit(*who, std::move(std::get<JobRequest>(parsed)), std::move(key)));
  }

  ApiReply list_jobs(const HttpRequest& req, const std::string&) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    std::optional<JobStatus> state;
    if (const std::string* s = req.param("state")) {
      state = parse_job_status(*s);
      if (!state) return error_reply(400, "unknown state", "state");
    }
    size_t limit = 1000;
    if (const std::string* l = req.param("limit")) {
      const auto n = parse_id(*l);
      if (!n || *n < 1 || *n > 1000)
        return error_reply(400, "limit must be in [1, 1000] (page with cursor)", "limit");
      limit = static_cast<size_t>(*n);
    }
    std::optional<int64_t> cursor;
    if (const std::string* c = req.param("cursor")) {
      cursor = parse_id(*c);
      if (!cursor)
        return error_reply(400, "cursor must be a next_cursor of an earlier page", "cursor");
    }
    return wait(scheduler_.list_jobs(*who, state, limit, cursor));
  }

  ApiReply get_job(const HttpRequest& req, const std::string& id_text) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    const auto id = parse_id(id_text);
    if (!id) return no_such_job();
    return wait(scheduler_.get_job(*who, *id));
  }

  ApiReply act(Scheduler::Action a, const HttpRequest& req, const std::string& id_text) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    const auto id = parse_id(id_text);
    if (!id) return no_such_job();
    return wait(scheduler_.act(*who, *id, a));
  }

  ApiReply set_priority(const HttpRequest& req, const std::string& id_text) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    const auto id = parse_id(id_text);
    if (!id) return no_such_job();
    auto parsed = body_json(req);
    if (auto* refused = std::get_if<ApiReply>(&parsed)) return *refused;
    const auto& body = std::get<nlohmann::json>(parsed);
    if (!body.is_object() || !body.contains("tier") || !body["tier"].is_string())
      return error_reply(400, "expected {\"tier\": \"core|important|general\"}", "tier");
    for (const auto& [key, value] : body.items())
      if (key != "tier") return error_reply(400, "unknown field", key);
    const auto tier = parse_tier(body["tier"].get<std::string>());
    if (!tier) return error_reply(400, "unknown tier (core, important, general)", "tier");
    return wait(scheduler_.set_tier(*who, *id, *tier));
  }

  // POST /v1/policy {"policy": "...", "reason": "..."} (admin; Scheduler::set_policy).
  ApiReply set_policy(const HttpRequest& req, const std::string&) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    auto parsed = body_json(req);
    if (auto* refused = std::get_if<ApiReply>(&parsed)) return *refused;
    const auto& body = std::get<nlohmann::json>(parsed);
    if (!body.is_object() || !body.contains("policy") || !body["policy"].is_string() ||
        body["policy"].get<std::string>().empty() ||
        body["policy"].get<std::string>().size() > 1000)
      return error_reply(400, "expected {\"policy\": \"a policy string\", \"reason\": \"...\"}",
                         "policy");
    for (const auto& [key, value] : body.items())
      if (key != "policy" && key != "reason") return error_reply(400, "unknown field", key);
    std::string reason = "changed through the API";
    if (body.contains("reason")) {
      if (!body["reason"].is_string() || body["reason"].get<std::string>().size() > 1000)
        return error_reply(400, "expected a string of at most 1,000 bytes", "reason");
      reason = body["reason"].get<std::string>();
    }
    return wait(scheduler_.set_policy(*who, body["policy"].get<std::string>(), reason));
  }

  // POST /v1/datasets {"name": "x@v1", "path": "/abs/dir"}: registers the dataset for the
  // caller's team (the admin may name one with "team"); hashing runs on the storage worker
  // and this handler waits for it (Scheduler::add_dataset).
  ApiReply add_dataset(const HttpRequest& req, const std::string&) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    auto parsed = body_json(req);
    if (auto* refused = std::get_if<ApiReply>(&parsed)) return *refused;
    const auto& body = std::get<nlohmann::json>(parsed);
    if (!body.is_object()) return error_reply(400, "expected {\"name\", \"path\"}", "body");
    for (const auto& [key, value] : body.items())
      if (key != "name" && key != "path" && key != "team")
        return error_reply(400, "unknown field", key);
    for (const char* f : {"name", "path"})
      if (!body.contains(f) || !body[f].is_string() || body[f].get<std::string>().empty() ||
          body[f].get<std::string>().size() > 4096)
        return error_reply(400, "required: a string", f);
    std::string team = who->admin ? std::string("admin") : who->team;
    if (body.contains("team")) {
      if (!who->admin) return error_reply(400, "only the admin may name a team", "team");
      if (!body["team"].is_string() || body["team"].get<std::string>().empty())
        return error_reply(400, "expected a team name", "team");
      team = body["team"].get<std::string>();
    }
    return scheduler_.add_dataset(*who, body["name"].get<std::string>(),
                                  body["path"].get<std::string>(), team);
  }

  // A job's output, bounded (service/log_tail.h); the team's own jobs only (get_job decides).
  ApiReply logs(const HttpRequest& req, const std::string& id_text) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    const auto id = parse_id(id_text);
    if (!id) return no_such_job();
    const auto query = parse_log_query(req);
    if (const auto* refused = std::get_if<ApiReply>(&query)) return *refused;
    const LogQuery& q = std::get<LogQuery>(query);
    const ApiReply job = wait(scheduler_.get_job(*who, *id));
    if (job.status != 200) return job;
    const std::string path =
        job.body.at("logs").at(q.stream == "out" ? "stdout" : "stderr").get<std::string>();
    const auto chunk = read_log(path, q.offset, q.tail, kMaxLogBytes);
    if (!chunk.ok()) return error_reply(500, chunk.error().message, "logs");
    const LogChunk& c = chunk.value();
    ApiReply r;
    r.body = {{"id", *id},  {"stream", q.stream}, {"size", c.size},          {"from", c.from},
              {"to", c.to}, {"text", c.text},     {"truncated", c.truncated}};
    return r;
  }

  // The endpoints that take nothing but the principal: GET /v1/nodes, /v1/alerts, ...
  using Ask = std::future<ApiReply> (Scheduler::*)(const Principal&);
  ApiReply ask(Ask what, const HttpRequest& req) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    return wait((scheduler_.*what)(*who));
  }

  // GET /v1/ledger[?jobs=ID,ID,...]: the per-job list only for those jobs (at most 1,000;
  // empty: none).
  ApiReply ledger(const HttpRequest& req, const std::string&) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    std::optional<std::set<int64_t>> only;
    if (const std::string* list = req.param("jobs")) {
      only.emplace();
      for (size_t at = 0; at < list->size();) {
        const size_t comma = std::min(list->find(',', at), list->size());
        const auto id = parse_id(list->substr(at, comma - at));
        if (!id) return error_reply(400, "jobs: comma-separated job ids", "jobs");
        only->insert(*id);
        if (only->size() > 1000) return error_reply(400, "jobs: at most 1,000 ids", "jobs");
        at = comma + 1;
      }
    }
    return wait(scheduler_.ledger(*who, std::move(only)));
  }

  // GET /v1/nodes[?summary=1]: every node and GPU, or the groups (Scheduler::node_summary).
  ApiReply nodes(const HttpRequest& req, const std::string&) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    const std::string* summary = req.param("summary");
    if (!summary || *summary == "0" || *summary == "false") return wait(scheduler_.nodes(*who));
    if (*summary != "1" && *summary != "true")
      return error_reply(400, "summary: 1 or true (groups), 0 or false (every node)", "summary");
    return wait(scheduler_.node_summary());
  }

  // GET /v1/usage[?window=1h|6h|24h|7d]: the usage series (Scheduler::usage); default 24h.
  ApiReply usage(const HttpRequest& req, const std::string&) const {
    const auto who = principal(req);
    if (!who) return refused(req);
    double window_s = 86400;
    if (const std::string* w = req.param("window")) {
      static const std::map<std::string, double> kWindows = {
          {"1h", 3600}, {"6h", 6 * 3600}, {"24h", 86400}, {"7d", 7 * 86400}};
      const auto it = kWindows.find(*w);
      if (it == kWindows.end()) return error_reply(400, "window: 1h, 6h, 24h or 7d", "window");
      window_s = it->second;
    }
    return wait(scheduler_.usage(*who, window_s));
  }

  ApiReply regions(const HttpRequest& req, const std::string&) const {
    if (!principal(req)) return refused(req);
    return wait(scheduler_.regions());
  }

  ApiReply health(const HttpRequest&, const std::string&) const {
    return wait(scheduler_.health());
  }

  ApiReply metrics(const HttpRequest&, const std::string&) const {
    return wait(scheduler_.metrics());
  }

  // POST /v1/telemetry: a node agent's reports (docs/TELEMETRY.md); node tokens and the
  // admin only.
  ApiReply telemetry(const HttpRequest& req, const std::string&) const {
    const auto who = auth_.authenticate(req.header("Authorization"));
    if (!who) return error_reply(401, "missing or unknown bearer token", "Authorization");
    if (!who->is_agent() && !who->admin)
      return error_reply(403,
                         "only a node token (config `agents:`) or the admin may post telemetry",
                         "Authorization");
    auto body = body_json(req);
    if (auto* bad = std::get_if<ApiReply>(&body)) return *bad;
    auto parsed = parse_telemetry_batch(std::get<nlohmann::json>(body), TelemetryLimits{});
    if (auto* e = std::get_if<FieldError>(&parsed)) return error_reply(400, e->message, e->field);
    return scheduler_.ingest_telemetry(*who, std::move(std::get<TelemetryBatch>(parsed)));
  }

 private:
  // The user the request's token names; nullopt when none (or a node token, which may only
  // post telemetry: refused() tells which).
  std::optional<Principal> principal(const HttpRequest& req) const {
    auto who = auth_.authenticate(req.header("Authorization"));
    if (who && who->is_agent()) return std::nullopt;
    return who;
  }
  // 403 for a node token, else 401.
  ApiReply refused(const HttpRequest& req) const {
    const auto who = auth_.authenticate(req.header("Authorization"));
    if (who && who->is_agent())
      return error_reply(403, "a node token may only post telemetry (POST /v1/telemetry)",
                         "Authorization");
    return error_reply(401, "missing or unknown bearer token", "Authorization");
  }
  static ApiReply no_such_job() { return error_reply(404, "no such job", "id"); }

  Scheduler& scheduler_;
  const Authenticator& auth_;
  const GpuCatalog& catalog_;
  const RequestLimits& limits_;
};

// A route: a method and a path pattern whose "{}" segment matches any one segment.
struct Route {
  std::string method;
  std::string pattern;
  std::function<ApiReply(const HttpRequest&, const std::string& segment)> run;
};

// Whether path matches pattern; the "{}" segment's text goes to *segment.
bool matches(std::string_view pattern, std::string_view path, std::string* segment) {
  while (!pattern.empty() && !path.empty()) {
    const size_t pe = pattern.find('/', 1), se = path.find('/', 1);
    const std::string_view p = pattern.substr(0, pe), s = path.substr(0, se);
    if (p == "/{}") {
      if (s.size() < 2) return false;
      *segment = std::string(s.substr(1));
    } else if (p != s) {
      return false;
    }
    pattern = pe == std::string_view::npos ? std::string_view{} : pattern.substr(pe);
    path = se == std::string_view::npos ? std::string_view{} : path.substr(se);
  }
  return pattern.empty() && path.empty();
}

std::vector<Route> make_routes(const Endpoints& e) {
  using A = Scheduler::Action;
  auto to = [e](ApiReply (Endpoints::*handler)(const HttpRequest&, const std::string&) const) {
    return [e, handler](const HttpRequest& req, const std::string& id) {
      return (e.*handler)(req, id);
    };
  };
  auto action = [e](A a) {
    return [e, a](const HttpRequest& req, const std::string& id) { return e.act(a, req, id); };
  };
  auto ask = [e](Endpoints::Ask what) {
    return [e, what](const HttpRequest& req, const std::string&) { return e.ask(what, req); };
  };
  return {
      {"GET", "/healthz", to(&Endpoints::health)},
      {"GET", "/metrics", to(&Endpoints::metrics)},
      {"POST", "/v1/jobs", to(&Endpoints::submit)},
      {"GET", "/v1/jobs", to(&Endpoints::list_jobs)},
      {"GET", "/v1/jobs/{}", to(&Endpoints::get_job)},
      {"DELETE", "/v1/jobs/{}", action(A::kCancel)},
      {"POST", "/v1/jobs/{}/cancel", action(A::kCancel)},
      {"POST", "/v1/jobs/{}/hold", action(A::kHold)},
      {"POST", "/v1/jobs/{}/release", action(A::kRelease)},
      {"POST", "/v1/jobs/{}/priority", to(&Endpoints::set_priority)},
      {"GET", "/v1/jobs/{}/logs", to(&Endpoints::logs)},
      {"GET", "/v1/nodes", to(&Endpoints::nodes)},
      {"GET", "/v1/usage", to(&Endpoints::usage)},
      {"GET", "/v1/ledger", to(&Endpoints::ledger)},
      {"GET", "/v1/regions", to(&Endpoints::regions)},
      {"GET", "/v1/alerts", ask(&Scheduler::alerts)},
      {"GET", "/v1/insights", ask(&Scheduler::insights)},
      {"GET", "/v1/shadow", ask(&Scheduler::shadow)},
      {"GET", "/v1/policy", ask(&Scheduler::get_policy)},
      {"POST", "/v1/policy", to(&Endpoints::set_policy)},
      {"POST", "/v1/telemetry", to(&Endpoints::telemetry)},
      {"POST", "/v1/datasets", to(&Endpoints::add_dataset)},
      {"GET", "/v1/datasets", ask(&Scheduler::datasets)},
      {"GET", "/v1/storage", ask(&Scheduler::storage_view)},
  };
}

// The dashboard's assets (service/ui_assets.h): GET only, no token.
HttpResponse ui_route(const HttpRequest& req) {
  if (req.method != "GET") {
    HttpResponse res = to_http(error_reply(405, "method not allowed"));
    res.headers.emplace_back("Allow", "GET");
    return res;
  }
  if (auto asset = ui_asset_response(req.path)) return *std::move(asset);
  return to_http(error_reply(404, "no such endpoint"));
}

// Answers a request by its route: 404 when no route has its path, 405 (with Allow) when
// routes have its path but not its method.
HttpResponse route(const std::vector<Route>& routes, const HttpRequest& req) {
  if (is_ui_path(req.path)) return ui_route(req);
  std::string segment, allow;
  for (const Route& r : routes) {
    if (!matches(r.pattern, req.path, &segment)) continue;
    if (r.method == req.method) return to_http(r.run(req, segment));
    allow += allow.empty() ? r.method : ", " + r.method;
  }
  if (allow.empty()) return to_http(error_reply(404, "no such endpoint"));
  HttpResponse res = to_http(error_reply(405, "method not allowed"));
  res.headers.emplace_back("Allow", allow);
  return res;
}

}  // namespace

Result<std::pair<std::string, int>> parse_listen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return Error{fmt::format("listen: '{}' is not host:port", listen)};
  const std::string host = listen.substr(0, colon), port = listen.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535)
    return Error{fmt::format("listen: bad port in '{}'", listen)};
  return std::make_pair(host, std::stoi(port));
}

HttpApi::HttpApi(Scheduler& scheduler, const Authenticator& auth, const GpuCatalog& catalog,
                 RequestLimits limits, HttpOptions options)
    : limits_(limits) {
  HttpServerOptions o;
  o.max_body_bytes = options.max_request_bytes;
  o.handler_threads = options.threads;
  o.read_timeout = options.read_timeout;
  // Snapshot reads for monitoring: at the lowest CPU priority (docs/API.md, "Freshness").
  o.background_paths = {"/metrics", "/v1/ledger"};
  auto routes = std::make_shared<const std::vector<Route>>(
      make_routes(Endpoints(scheduler, auth, catalog, limits_)));
  server_ = std::make_unique<HttpServer>(
      [routes](const HttpRequest& req) { return route(*routes, req); },
      [](int status, const std::string& message) { return to_http(error_reply(status, message)); },
      o);
}

HttpApi::~HttpApi() = default;

Status HttpApi::bind(const std::string& host, int port) {
  return server_->bind(host, port);
}

int HttpApi::port() const {
  return server_->port();
}

bool HttpApi::serve() {
  return server_->serve();
}

void HttpApi::stop() {
  server_->stop();
}

}  // namespace frugal
