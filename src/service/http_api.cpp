#include "service/http_api.h"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <variant>

#include "service/log_tail.h"

namespace frugal {
namespace {

void send(httplib::Response& res, const ApiReply& r) {
  res.status = r.status;
  if (!r.text.empty() || r.content_type != "application/json")
    res.set_content(r.text, r.content_type.c_str());
  else
    res.set_content(r.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                    "application/json");
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

// Two fixes to what cpp-httplib 0.11 (Debian 12's) does before any route runs; the request
// it hands this handler is its own non-const object, changed here before the body is read.
//  - A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112
//    §6.3); the library instead reads to the end of the connection and answers 400, so
//    `curl -X POST …/cancel` (no -d) failed before routing, authentication included.
//  - Every body this API takes is JSON whatever its Content-Type; as a form
//    (application/x-www-form-urlencoded, what `curl -d` sends) the library would cap it at
//    8 KiB with a 413 and parse it as a query string.
httplib::Server::HandlerResponse fix_request_framing(const httplib::Request& req,
                                                     httplib::Response&) {
  auto& r = const_cast<httplib::Request&>(req);
  if (!r.has_header("Content-Length") && !r.has_header("Transfer-Encoding"))
    r.headers.emplace("Content-Length", "0");
  if (r.get_header_value("Content-Type").starts_with("application/x-www-form-urlencoded")) {
    r.headers.erase("Content-Type");
    r.headers.emplace("Content-Type", "application/json");
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

// The JSON error for what the library refused itself (no route, too large, ...).
void answer_error(const httplib::Request&, httplib::Response& res) {
  if (!res.body.empty()) return;
  const char* what = res.status == 404   ? "no such endpoint"
                     : res.status == 413 ? "request body too large"
                     : res.status == 405 ? "method not allowed"
                                         : "bad request";
  send(res, error_reply(res.status, what));
}

// The body as JSON, or answers 400.
std::optional<nlohmann::json> body_json(const httplib::Request& req, httplib::Response& res) {
  auto j = nlohmann::json::parse(req.body, nullptr, false);
  if (j.is_discarded()) {
    send(res, error_reply(400, "the body is not valid JSON", "body"));
    return std::nullopt;
  }
  return j;
}

// GET /v1/jobs/{id}/logs's query: which stream and where from.
struct LogQuery {
  std::string stream;
  std::optional<int> tail;
  std::optional<int64_t> offset;
};

// The query, or the 400 answering it.
std::variant<LogQuery, ApiReply> parse_log_query(const httplib::Request& req) {
  LogQuery q;
  q.stream = req.has_param("stream") ? req.get_param_value("stream") : "out";
  if (q.stream != "out" && q.stream != "err")
    return error_reply(400, "stream must be out or err", "stream");
  if (req.has_param("tail")) {
    const auto n = parse_id(req.get_param_value("tail"));
    if (!n || *n > kMaxLogTailLines)
      return error_reply(400, fmt::format("tail must be in [0, {}]", kMaxLogTailLines), "tail");
    q.tail = static_cast<int>(*n);
  }
  if (req.has_param("offset")) {
    q.offset = parse_id(req.get_param_value("offset"));
    if (!q.offset) return error_reply(400, "offset must be a byte offset >= 0", "offset");
  }
  if (q.tail && q.offset) return error_reply(400, "tail and offset exclude each other", "tail");
  return q;
}

// The handlers of the authenticated endpoints: each authenticates (or answers 401), parses
// and validates, then asks the scheduler and answers with its reply. All references must
// outlive the handlers.
class Endpoints {
 public:
  Endpoints(Scheduler& scheduler, const Authenticator& auth, const GpuCatalog& catalog,
            const RequestLimits& limits)
      : scheduler_(scheduler), auth_(auth), catalog_(catalog), limits_(limits) {}

  void submit(const httplib::Request& req, httplib::Response& res) const {
    const auto who = principal(req, res);
    if (!who) return;
    const auto body = body_json(req, res);
    if (!body) return;
    auto parsed = parse_job_request(*body, catalog_, limits_);
    if (auto* e = std::get_if<FieldError>(&parsed)) {
      send(res, error_reply(400, e->message, e->field));
      return;
    }
    send(res, wait(scheduler_.submit(*who, std::move(std::get<JobRequest>(parsed)))));
  }

  void list_jobs(const httplib::Request& req, httplib::Response& res) const {
    const auto who = principal(req, res);
    if (!who) return;
    std::optional<JobStatus> state;
    if (req.has_param("state")) {
      state = parse_job_status(req.get_param_value("state"));
      if (!state) return send(res, error_reply(400, "unknown state", "state"));
    }
    size_t limit = 1000;
    if (req.has_param("limit")) {
      const auto n = parse_id(req.get_param_value("limit"));
      if (!n || *n < 1 || *n > 100000)
        return send(res, error_reply(400, "limit must be in [1, 100000]", "limit"));
      limit = static_cast<size_t>(*n);
    }
    send(res, wait(scheduler_.list_jobs(*who, state, limit)));
  }

  void get_job(const httplib::Request& req, httplib::Response& res) const {
    const auto who = principal(req, res);
    if (!who) return;
    const auto id = job_id(req, res);
    if (!id) return;
    send(res, wait(scheduler_.get_job(*who, *id)));
  }

  void act(Scheduler::Action a, const httplib::Request& req, httplib::Response& res) const {
    const auto who = principal(req, res);
    if (!who) return;
    const auto id = job_id(req, res);
    if (!id) return;
    send(res, wait(scheduler_.act(*who, *id, a)));
  }

  void set_priority(const httplib::Request& req, httplib::Response& res) const {
    const auto who = principal(req, res);
    if (!who) return;
    const auto id = job_id(req, res);
    if (!id) return;
    const auto body = body_json(req, res);
    if (!body) return;
    if (!body->is_object() || !body->contains("tier") || !(*body)["tier"].is_string())
      return send(res, error_reply(400, "expected {\"tier\": \"core|important|general\"}", "tier"));
    for (const auto& [key, value] : body->items())
      if (key != "tier") return send(res, error_reply(400, "unknown field", key));
    const auto tier = parse_tier((*body)["tier"].get<std::string>());
    if (!tier)
      return send(res, error_reply(400, "unknown tier (core, important, general)", "tier"));
    send(res, wait(scheduler_.set_tier(*who, *id, *tier)));
  }

  // A job's output, bounded (service/log_tail.h); the team's own jobs only (get_job decides).
  void logs(const httplib::Request& req, httplib::Response& res) const {
    const auto who = principal(req, res);
    if (!who) return;
    const auto id = job_id(req, res);
    if (!id) return;
    const auto query = parse_log_query(req);
    if (const auto* refused = std::get_if<ApiReply>(&query)) return send(res, *refused);
    const LogQuery& q = std::get<LogQuery>(query);
    const ApiReply job = wait(scheduler_.get_job(*who, *id));
    if (job.status != 200) return send(res, job);
    const std::string path =
        job.body.at("logs").at(q.stream == "out" ? "stdout" : "stderr").get<std::string>();
    const auto chunk = read_log(path, q.offset, q.tail, kMaxLogBytes);
    if (!chunk.ok()) return send(res, error_reply(500, chunk.error().message, "logs"));
    const LogChunk& c = chunk.value();
    ApiReply r;
    r.body = {{"id", *id},  {"stream", q.stream}, {"size", c.size},          {"from", c.from},
              {"to", c.to}, {"text", c.text},     {"truncated", c.truncated}};
    send(res, r);
  }

  // The endpoints that take nothing but the principal: GET /v1/nodes, /v1/ledger, /v1/alerts.
  using Ask = std::future<ApiReply> (Scheduler::*)(const Principal&);
  void ask(Ask what, const httplib::Request& req, httplib::Response& res) const {
    if (const auto who = principal(req, res)) send(res, wait((scheduler_.*what)(*who)));
  }

  void regions(const httplib::Request& req, httplib::Response& res) const {
    if (principal(req, res)) send(res, wait(scheduler_.regions()));
  }

 private:
  // Authenticates or answers 401; returns the principal.
  std::optional<Principal> principal(const httplib::Request& req, httplib::Response& res) const {
    auto p = auth_.authenticate(req.get_header_value("Authorization"));
    if (!p) {
      res.set_header("WWW-Authenticate", "Bearer");
      send(res, error_reply(401, "missing or unknown bearer token", "Authorization"));
    }
    return p;
  }

  // The job id of the path, or answers 404.
  static std::optional<int64_t> job_id(const httplib::Request& req, httplib::Response& res) {
    const auto id = parse_id(req.matches[1]);
    if (!id) send(res, error_reply(404, "no such job", "id"));
    return id;
  }

  Scheduler& scheduler_;
  const Authenticator& auth_;
  const GpuCatalog& catalog_;
  const RequestLimits& limits_;
};

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
    : scheduler_(scheduler),
      auth_(auth),
      catalog_(catalog),
      limits_(limits),
      options_(options),
      server_(std::make_unique<httplib::Server>()) {
  const int threads = options_.threads;
  server_->new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<size_t>(threads));
  };
  server_->set_payload_max_length(options_.max_request_bytes);
  server_->set_keep_alive_max_count(10000);
  server_->set_tcp_nodelay(true);  // small JSON answers: no Nagle / delayed-ACK stalls
  // httplib's default also sets SO_REUSEPORT, which lets a second daemon bind the same port
  // and share its requests; SO_REUSEADDR alone only allows a restart over TIME_WAIT sockets.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server_->set_read_timeout(10);
  server_->set_write_timeout(10);
  routes();
}

HttpApi::~HttpApi() {
  stop();
}

Status HttpApi::bind(const std::string& host, int port) {
  if (port == 0) {
    port_ = server_->bind_to_any_port(host);
    if (port_ <= 0) return Error{fmt::format("cannot listen on {}:any", host)};
  } else {
    if (!server_->bind_to_port(host, port))
      return Error{fmt::format("cannot listen on {}:{}", host, port)};
    port_ = port;
  }
  return Status::Ok();
}

bool HttpApi::serve() {
  return server_->listen_after_bind();
}

void HttpApi::stop() {
  if (server_) server_->stop();
}

void HttpApi::routes() {
  httplib::Server& s = *server_;
  const Endpoints e(scheduler_, auth_, catalog_, limits_);
  // Each route hands the request to one of the endpoints' handlers.
  auto to = [e](void (Endpoints::*handler)(const httplib::Request&, httplib::Response&) const) {
    return [e, handler](const httplib::Request& req, httplib::Response& res) {
      (e.*handler)(req, res);
    };
  };
  auto action = [e](Scheduler::Action a) {
    return [e, a](const httplib::Request& req, httplib::Response& res) { e.act(a, req, res); };
  };
  auto ask = [e](Endpoints::Ask what) {
    return
        [e, what](const httplib::Request& req, httplib::Response& res) { e.ask(what, req, res); };
  };
  s.set_pre_routing_handler(fix_request_framing);
  s.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    send(res, wait(scheduler_.health()));
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    send(res, wait(scheduler_.metrics()));
  });
  s.Post("/v1/jobs", to(&Endpoints::submit));
  s.Get("/v1/jobs", to(&Endpoints::list_jobs));
  s.Get(R"(/v1/jobs/([^/]+))", to(&Endpoints::get_job));
  s.Post(R"(/v1/jobs/([^/]+)/cancel)", action(Scheduler::Action::kCancel));
  s.Delete(R"(/v1/jobs/([^/]+))", action(Scheduler::Action::kCancel));
  s.Post(R"(/v1/jobs/([^/]+)/hold)", action(Scheduler::Action::kHold));
  s.Post(R"(/v1/jobs/([^/]+)/release)", action(Scheduler::Action::kRelease));
  s.Post(R"(/v1/jobs/([^/]+)/priority)", to(&Endpoints::set_priority));
  s.Get(R"(/v1/jobs/([^/]+)/logs)", to(&Endpoints::logs));
  s.Get("/v1/nodes", ask(&Scheduler::nodes));
  s.Get("/v1/ledger", ask(&Scheduler::ledger));
  s.Get("/v1/regions", to(&Endpoints::regions));
  s.Get("/v1/alerts", ask(&Scheduler::alerts));
  s.set_error_handler(answer_error);
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send(res, error_reply(500, "internal error"));
  });
}

}  // namespace frugal
