#pragma once
// A small client of the HTTP API for the CLI's client commands (frugal submit/jobs/...).
// One request per call; errors as values (connection failures, non-2xx answers with the
// server's JSON error). Not thread-safe (one client per thread).

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "model/result.h"

namespace httplib {
class Client;
}

namespace frugal {

struct ApiResponse {
  int status = 0;
  nlohmann::json body;  // null when the body is not JSON
};

class ApiClient {
 public:
  // `server`: "http://host:port"; `token`: bearer token ("" sends none).
  ApiClient(const std::string& server, std::string token);
  ~ApiClient();

  // Error only when no HTTP answer came (connection refused, timeout).
  Result<ApiResponse> get(const std::string& path);
  Result<ApiResponse> post(const std::string& path, const nlohmann::json& body);

 private:
  std::unique_ptr<httplib::Client> client_;
  std::string token_;
  std::string server_;
};

}  // namespace frugal
