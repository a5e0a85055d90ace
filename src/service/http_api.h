#pragma once
// The HTTP API (over service/http_server.h), versioned under /v1 (docs/API.md). Handlers
// authenticate, parse and validate, then hand a command to the Scheduler and wait for its reply:
// they never touch scheduler state. Unauthenticated: GET /healthz, GET /metrics and the dashboard's
// assets under GET /ui (service/ui_assets.h). Thread-safety: serve() blocks on the calling thread
// and runs handlers on its own pool; stop() may be called from any thread.

#include <chrono>
#include <memory>
#include <string>

#include "model/gpu_catalog.h"
#include "model/result.h"
#include "service/auth.h"
#include "service/http_server.h"
#include "service/job_request.h"
#include "service/scheduler.h"

namespace frugal {

struct HttpOptions {
  size_t max_request_bytes = 1 << 20;             // larger bodies answer 413, however framed
  int threads = 16;                               // handler threads (idle connections hold none)
  std::chrono::milliseconds read_timeout{10000};  // per request, also the keep-alive limit
};

class HttpApi {
 public:
  // All references must outlive the HttpApi.
  HttpApi(Scheduler& scheduler, const Authenticator& auth, const GpuCatalog& catalog,
          RequestLimits limits, HttpOptions options);
  ~HttpApi();

  // Binds host:port (port 0: any free port). Error names the address.
  Status bind(const std::string& host, int port);
  int port() const;
  // Serves until stop(); returns false if the server failed.
  bool serve();
  void stop();

 private:
  RequestLimits limits_;  // the endpoints hold a reference
  std::unique_ptr<HttpServer> server_;
};

// "host:port" → (host, port); error when malformed.
Result<std::pair<std::string, int>> parse_listen(const std::string& listen);

}  // namespace frugal
