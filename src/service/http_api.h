#pragma once
// The HTTP API (cpp-httplib), versioned under /v1 (docs/API.md). Handlers authenticate,
// parse and validate, then hand a command to the Scheduler and wait for its reply: they
// never touch scheduler state. Unauthenticated: GET /healthz and GET /metrics.
// Thread-safety: serve() blocks on the calling thread and runs handlers on its own pool;
// stop() may be called from any thread.

#include <memory>
#include <string>

#include "model/gpu_catalog.h"
#include "model/result.h"
#include "service/auth.h"
#include "service/job_request.h"
#include "service/scheduler.h"

namespace httplib {
class Server;
}

namespace frugal {

struct HttpOptions {
  size_t max_request_bytes = 1 << 20;  // larger bodies answer 413
  int threads = 16;
};

class HttpApi {
 public:
  // All references must outlive the HttpApi.
  HttpApi(Scheduler& scheduler, const Authenticator& auth, const GpuCatalog& catalog,
          RequestLimits limits, HttpOptions options);
  ~HttpApi();

  // Binds host:port (port 0: any free port). Error names the address.
  Status bind(const std::string& host, int port);
  int port() const { return port_; }
  // Serves until stop(); returns false if the server failed.
  bool serve();
  void stop();

 private:
  void routes();

  Scheduler& scheduler_;
  const Authenticator& auth_;
  const GpuCatalog& catalog_;
  RequestLimits limits_;
  HttpOptions options_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
};

// "host:port" → (host, port); error when malformed.
Result<std::pair<std::string, int>> parse_listen(const std::string& listen);

}  // namespace frugal
