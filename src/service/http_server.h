#pragma once
// An HTTP/1.1 server (Boost.Beast over Boost.Asio) that hands whole, bounded requests to one
// handler function. Connections are served asynchronously by one I/O thread, so an idle or
// slow client holds no handler thread: only complete requests reach the handler pool.
//
// Contract:
//  - Every body is bounded by max_body_bytes however it is framed (Content-Length or
//    chunked): larger bodies answer 413 and close the connection. Headers are bounded by
//    max_header_bytes (431).
//  - RFC 9112 framing errors answer 400 and close: differing Content-Lengths, Content-Length
//    with Transfer-Encoding, a Transfer-Encoding whose last coding is not chunked, malformed
//    chunks, bad request lines.
//  - A request must arrive whole within read_timeout of the connection becoming ready for it
//    (also the keep-alive idle limit); otherwise the connection is closed. A response must be
//    written within write_timeout.
//  - `Expect: 100-continue` is answered before the body is read.
//  - The listen backlog is `backlog`; the port is bound with SO_REUSEADDR only, so a port in
//    use by another process is an error (no SO_REUSEPORT sharing).
//  - After a refusal, the server half-closes and discards what the client still sends for a
//    bounded time, so the client reads the answer instead of a connection reset.
// Thread-safety: serve() blocks on the calling thread; stop() may be called from any thread.
// The handler runs on a pool of handler_threads threads, concurrently with itself; GET
// requests for a path in background_paths run instead on background_threads threads at the
// lowest CPU priority (nice 19, Linux per-thread): monitoring reads (a /metrics scrape loop)
// then yield the CPU to everything else rather than compete with it.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.h"

namespace frugal {

struct HttpRequest {
  std::string method;                                        // as sent, e.g. "GET"
  std::string path;                                          // percent-decoded, without the query
  std::vector<std::pair<std::string, std::string>> query;    // decoded, in order
  std::vector<std::pair<std::string, std::string>> headers;  // as sent, in order
  std::string body;

  // The first header of that name (case-insensitive), or "" when absent.
  std::string header(std::string_view name) const;
  // The first query parameter of that name, or nullptr when absent.
  const std::string* param(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;
// The answer for what the server refuses itself (status, what was wrong).
using HttpRefusal = std::function<HttpResponse(int status, const std::string& message)>;

struct HttpServerOptions {
  size_t max_body_bytes = size_t{1} << 20;
  size_t max_header_bytes = size_t{64} << 10;
  int handler_threads = 16;
  std::chrono::milliseconds read_timeout{10000};
  std::chrono::milliseconds write_timeout{10000};
  int backlog = 1024;
  size_t max_connections = 10000;  // further connections are closed at once
  std::vector<std::string> background_paths;
  int background_threads = 2;
};

class HttpServer {
 public:
  HttpServer(HttpHandler handler, HttpRefusal refusal, HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens on host:port (port 0: any free port). The error names the address.
  Status bind(const std::string& host, int port);
  int port() const;
  // Serves until stop(); false when serving failed (not bound, or an I/O error).
  bool serve();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Percent-decodes s ('+' as a space when form is true); nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view s, bool form);

}  // namespace frugal
