#pragma once
// What every client command shares: --server and --token (default $FRUGAL_TOKEN), and how an
// answer is reported (the body on stdout, or the error and its field on stderr).

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <string>

#include "service/api_client.h"

namespace frugal {

struct ClientOptions {
  std::string server = "http://127.0.0.1:8080";
  std::string token;
  void add_to(CLI::App* cmd) {
    cmd->add_option("--server", server, "frugal serve URL")
        ->capture_default_str()
        ->check([](const std::string& url) -> std::string {
          const bool scheme = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
          return scheme && url.find("://") + 3 < url.size()
                     ? std::string()
                     : "expected http://HOST:PORT, got '" + url + "'";
        });
    cmd->add_option("--token", token, "Bearer token (default: $FRUGAL_TOKEN)");
  }
  ApiClient client() const {
    std::string t = token;
    if (t.empty())
      if (const char* e = std::getenv("FRUGAL_TOKEN")) t = e;
    return ApiClient(server, t);
  }
};

// Prints the answer; returns the exit code (0 for 2xx).
inline int report(const Result<ApiResponse>& r, bool print_body = true) {
  if (!r.ok()) {
    fmt::print(stderr, "error: {}\n", r.error().message);
    return 1;
  }
  const ApiResponse& a = r.value();
  if (a.status < 200 || a.status >= 300) {
    std::string msg = a.body.is_object() ? a.body.value("error", "") : "";
    if (a.body.is_object() && a.body.contains("field"))
      msg += fmt::format(" (field {})", a.body["field"].get<std::string>());
    fmt::print(stderr, "error: HTTP {}: {}\n", a.status, msg);
    return 1;
  }
  if (print_body) fmt::print("{}\n", a.body.dump(2));
  return 0;
}

}  // namespace frugal
