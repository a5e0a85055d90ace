#include "service/api_client.h"

#include <fmt/format.h>
#include <httplib.h>

namespace frugal {
namespace {

Result<ApiResponse> answer(const httplib::Result& r, const std::string& server) {
  if (!r) return Error{fmt::format("{}: {}", server, httplib::to_string(r.error()))};
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
