#include "service/http_server.h"

#include <fmt/format.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <exception>
#include <optional>
#include <thread>

namespace frugal {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The query string's parameters, or nullopt when an escape is malformed.
std::optional<std::vector<std::pair<std::string, std::string>>> parse_query(std::string_view q) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!q.empty()) {
    const size_t amp = q.find('&');
    const std::string_view part = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    auto key = percent_decode(part.substr(0, eq), true);
    auto value = percent_decode(
        eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1), true);
    if (!key || !value) return std::nullopt;
    out.emplace_back(std::move(*key), std::move(*value));
  }
  return out;
}

std::string_view view(beast::string_view s) {
  return {s.data(), s.size()};
}

constexpr size_t kLingerBytes = size_t{64} << 20;  // discarded at most after a refusal
constexpr auto kLingerTime = std::chrono::seconds(2);

}  // namespace

std::optional<std::string> percent_decode(std::string_view s, bool form) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      const int hi = hex_digit(s[i + 1]), lo = hex_digit(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(form && c == '+' ? ' ' : c);
    }
  }
  return out;
}

std::string HttpRequest::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (iequal(k, name)) return v;
  return {};
}

const std::string* HttpRequest::param(std::string_view name) const {
  for (const auto& [k, v] : query)
    if (k == name) return &v;
  return nullptr;
}

// What every connection shares: the options, the handlers and the pool they run on.
struct Shared {
  HttpHandler handler;
  HttpRefusal refusal;
  HttpServerOptions options;
  net::thread_pool* pool = nullptr;
  net::io_context* background = nullptr;  // options.background_paths' GET requests
  std::atomic<size_t> connections{0};
};

namespace {

// One client connection: reads a request's header, then its body, hands the request to the
// handler pool, writes the answer, and starts over (keep-alive) or closes. Lives as long as
// one of its asynchronous operations holds it; all of them run on its strand.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Shared& shared) : stream_(std::move(socket)), shared_(shared) {
    ++shared_.connections;
  }
  ~Connection() { --shared_.connections; }

  void start() { read_header(); }

 private:
  void read_header() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(shared_.options.max_header_bytes));
    parser_->body_limit(shared_.options.max_body_bytes);
    stream_.expires_after(shared_.options.read_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return fail(ec);
    const auto& req = parser_->get();
    // RFC 9112 §6.1: a request whose last transfer coding is not chunked has no reliable
    // length (Beast accepts it and reads no body).
    if (req.find(http::field::transfer_encoding) != req.end() && !parser_->chunked())
      return refuse(400, "Transfer-Encoding must end with chunked");
    if (const auto len = parser_->content_length(); len && *len > shared_.options.max_body_bytes)
      return refuse(413, "request body too large");
    if (iequal(view(req[http::field::expect]), "100-continue") && !parser_->is_done()) {
      auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_,
                                                                     req.version());
      http::async_write(stream_, *cont,
                        [self = shared_from_this(), cont](beast::error_code e, size_t) {
                          if (e) return self->close();
                          self->read_body();
                        });
      return;
    }
    read_body();
  }

  void read_body() {
    if (parser_->is_done()) return dispatch();
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->fail(ec);
                       self->dispatch();
                     });
  }

  // Hands the whole request to the handler pool; the answer comes back on this strand.
  void dispatch() {
    stream_.expires_never();  // the handler's own time is bounded by the handler
    auto req = parser_->release();
    keep_alive_ = req.keep_alive();
    std::optional<HttpRequest> request = convert(req);
    if (!request) return refuse(400, "malformed percent-escape in the request target");
    auto handle = [self = shared_from_this(), r = std::move(*request)] {
      HttpResponse resp;
      try {
        resp = self->shared_.handler(r);
      } catch (const std::exception&) {
        resp = self->shared_.refusal(500, "internal error");
      }
      net::post(self->stream_.get_executor(), [self, resp = std::move(resp)]() mutable {
        self->write(std::move(resp), !self->keep_alive_);
      });
    };
    if (background(req))
      net::post(*shared_.background, std::move(handle));
    else
      net::post(*shared_.pool, std::move(handle));
  }

  bool background(const http::request<http::string_body>& req) const {
    if (req.method() != http::verb::get) return false;
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    const auto& paths = shared_.options.background_paths;
    return std::find(paths.begin(), paths.end(), path) != paths.end();
  }

  static std::optional<HttpRequest> convert(const http::request<http::string_body>& req) {
    HttpRequest r;
    r.method = std::string(view(req.method_string()));
    const std::string_view target(req.target().data(), req.target().size());
    const size_t q = target.find('?');
    auto path = percent_decode(target.substr(0, q), false);
    if (!path) return std::nullopt;
    r.path = std::move(*path);
    if (q != std::string_view::npos) {
      auto query = parse_query(target.substr(q + 1));
      if (!query) return std::nullopt;
      r.query = std::move(*query);
    }
    for (const auto& f : req)
      r.headers.emplace_back(std::string(view(f.name_string())), std::string(view(f.value())));
    r.body = req.body();
    return r;
  }

  void write(HttpResponse resp, bool close_after) {
    auto res = std::make_shared<http::response<http::string_body>>();
    res->result(static_cast<unsigned>(resp.status));
    res->version(11);
    res->set(http::field::content_type, beast::string_view(resp.content_type));
    for (const auto& [k, v] : resp.headers) res->set(beast::string_view(k), beast::string_view(v));
    res->body() = std::move(resp.body);
    res->keep_alive(!close_after);
    res->prepare_payload();
    stream_.expires_after(shared_.options.write_timeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res, close_after](beast::error_code ec, size_t) {
                        if (ec) return self->close();
                        if (close_after) return self->linger();
                        self->read_header();
                      });
  }

  // Answers what the parser or the framing checks refused, then closes.
  void fail(beast::error_code ec) {
    if (ec == http::error::body_limit) return refuse(413, "request body too large");
    if (ec == http::error::header_limit) return refuse(431, "request header too large");
    // Not a parse error (timeout, reset, the client gone mid-request): nobody to answer.
    const bool parse_error =
        &ec.category() == &http::make_error_code(http::error::bad_method).category();
    if (!parse_error || ec == http::error::end_of_stream || ec == http::error::partial_message)
      return close();
    refuse(400, fmt::format("malformed request: {}", ec.message()));
  }

  void refuse(int status, const std::string& message) {
    keep_alive_ = false;
    write(shared_.refusal(status, message), true);
  }

  // Half-closes, then discards what the client still sends (bounded in bytes and time) so it
  // reads the answer rather than a reset caused by unread data.
  void linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTime);
    drain();
  }

  void drain() {
    if (!drain_buffer_) drain_buffer_ = std::make_unique<std::array<char, 65536>>();
    stream_.async_read_some(net::buffer(*drain_buffer_),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kLingerBytes) return self->close();
                              self->drain();
                            });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  Shared& shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  std::unique_ptr<std::array<char, 65536>> drain_buffer_;
  size_t drained_ = 0;
};

}  // namespace

struct HttpServer::Impl {
  Impl(HttpHandler handler, HttpRefusal refusal, HttpServerOptions options)
      : shared{std::move(handler), std::move(refusal), options},
        pool(static_cast<size_t>(std::max(1, options.handler_threads))),
        background_work(net::make_work_guard(background)),
        acceptor(ioc),
        retry(ioc) {
    shared.pool = &pool;
    shared.background = &background;
    for (int i = 0; i < std::max(1, options.background_threads); ++i)
      background_threads.emplace_back([this] {
        // Linux: a thread's own nice value (PRIO_PROCESS with its tid). Failing that (a
        // sandbox refusing it), the lane still runs, at normal priority.
        (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19);
        background.run();
      });
  }

  void stop_background() {
    background_work.reset();
    background.stop();  // requests not yet handled are dropped with their connections
    for (std::thread& t : background_threads)
      if (t.joinable()) t.join();
  }

  void accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket s) {
      if (ec == net::error::operation_aborted) return;
      if (ec) {  // e.g. out of file descriptors: try again shortly, keep serving the others
        retry.expires_after(std::chrono::milliseconds(50));
        retry.async_wait([this](beast::error_code e) {
          if (!e) accept();
        });
        return;
      }
      if (shared.connections.load() >= shared.options.max_connections) {
        beast::error_code ignored;
        s.close(ignored);
      } else {
        std::make_shared<Connection>(std::move(s), shared)->start();
      }
      accept();
    });
  }

  // Destroyed in reverse: the pool (joined) before ioc, as handlers post back to it; ioc (and
  // the connections its pending operations hold) before shared, which connections use.
  Shared shared;
  net::io_context ioc{1};
  net::thread_pool pool;
  net::io_context background;
  net::executor_work_guard<net::io_context::executor_type> background_work;
  std::vector<std::thread> background_threads;
  tcp::acceptor acceptor;
  net::steady_timer retry;
  int port = 0;
  bool bound = false;
};

HttpServer::HttpServer(HttpHandler handler, HttpRefusal refusal, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(handler), std::move(refusal), options)) {}

HttpServer::~HttpServer() {
  stop();
  impl_->pool.stop();  // requests not yet handled are dropped with their connections
  impl_->pool.join();
  impl_->stop_background();
}

Status HttpServer::bind(const std::string& host, int port) {
  const std::string where = fmt::format("{}:{}", host, port == 0 ? "any" : std::to_string(port));
  beast::error_code ec;
  const auto address = net::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) return Error{fmt::format("cannot listen on {}: not an IP address", where)};
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  auto& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(impl_->shared.options.backlog, ec);
  if (ec) {
    beast::error_code ignored;
    a.close(ignored);
    return Error{fmt::format("cannot listen on {}: {}", where, ec.message())};
  }
  impl_->port = a.local_endpoint().port();
  impl_->bound = true;
  return Status::Ok();
}

int HttpServer::port() const {
  return impl_->port;
}

bool HttpServer::serve() {
  if (!impl_->bound) return false;
  impl_->accept();
  try {
    impl_->ioc.run();
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

void HttpServer::stop() {
  net::post(impl_->ioc, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
  impl_->ioc.stop();
}

}  // namespace frugal
