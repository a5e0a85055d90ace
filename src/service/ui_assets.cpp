#include "service/ui_assets.h"

#include <string>

namespace frugal {
namespace {

// Same-origin everything; no inline script or style, no framing, no <base> tricks.
constexpr std::string_view kCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

std::string content_type_of(std::string_view name) {
  auto ends_with = [name](std::string_view ext) { return name.ends_with(ext); };
  if (ends_with(".html")) return "text/html; charset=utf-8";
  if (ends_with(".js")) return "text/javascript; charset=utf-8";
  if (ends_with(".css")) return "text/css; charset=utf-8";
  if (ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace

bool is_ui_path(std::string_view path) {
  return path == "/ui" || path.starts_with("/ui/");
}

std::optional<HttpResponse> ui_asset_response(std::string_view path) {
  if (!is_ui_path(path)) return std::nullopt;
  std::string_view name = path.size() <= 4 ? std::string_view("index.html") : path.substr(4);
  for (const EmbeddedFile& f : embedded_ui_files()) {
    if (f.name != name) continue;
    HttpResponse res;
    res.content_type = content_type_of(name);
    res.body = std::string(f.bytes);
    res.headers.emplace_back("Cache-Control", "no-cache");
    res.headers.emplace_back("Content-Security-Policy", std::string(kCsp));
    res.headers.emplace_back("X-Content-Type-Options", "nosniff");
    res.headers.emplace_back("Referrer-Policy", "no-referrer");
    return res;
  }
  return std::nullopt;
}

}  // namespace frugal
