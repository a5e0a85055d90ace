#include "service/api_client.h"

#include <fmt/format.h>
#include <httplib.h>

namespace frugal {
namespace {

Result<ApiResponse> answer(const httplib::Result& r, const std::string& server) {
  if (!r) {
    // The library names the failure in one word ("Connection"); say what it means here.
    const httplib::Error e = r.error();
    const std::string why =
        e == httplib::Error::Connection ? "cannot connect (is `frugal serve` running there?)"
        : e == httplib::Error::Read || e == httplib::Error::Write
            ? "the connection broke (" + httplib::to_string(e) + ")"
        : e == httplib::Error::ConnectionTimeout ? "no answer to the connection within 5 s"
                                                 : httplib::to_string(e);
    return Error{fmt::format("{}: {}", server, why)};
  }
  ApiResponse a;
  a.status = r->status;
  a.body = nlohmann::json::parse(r->body, nullptr, false);
  if (a.body.is_discarded()) a.body = nullptr;
  return a;
}

}  // namespace

ApiClient::ApiClient(const std::string& server, std::string token)
    : client_(std::make_unique<httplib::Client>(server)),
      token_(std::move(token)),
      server_(server) {
  client_->set_connection_timeout(5);
  client_->set_tcp_nodelay(true);
  client_->set_read_timeout(60);
  if (!token_.empty()) client_->set_bearer_token_auth(token_);
}

ApiClient::~ApiClient() = default;

Result<ApiResponse> ApiClient::get(const std::string& path) {
  return answer(client_->Get(path), server_);
}

Result<ApiResponse> ApiClient::post(const std::string& path, const nlohmann::json& body) {
  return answer(client_->Post(path, body.dump(), "application/json"), server_);
}

}  // namespace frugal
