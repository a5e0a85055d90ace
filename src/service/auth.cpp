#include "service/auth.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>

namespace frugal {

std::string sha256_hex(std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                    &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), text.data(), text.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), md.data(), &len) != 1)
    return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 0xf]);
  }
  return out;
}

Authenticator::Authenticator(std::map<std::string, std::string> team_hashes, std::string admin_hash,
                             std::map<std::string, Principal> agent_hashes)
    : team_hashes_(std::move(team_hashes)),
      admin_hash_(std::move(admin_hash)),
      agent_hashes_(std::move(agent_hashes)) {}

std::optional<Principal> Authenticator::authenticate(std::string_view header) const {
  // The scheme is case-insensitive (RFC 9110 §11.1): "bearer" is "Bearer".
  constexpr std::string_view kBearer = "bearer ";
  if (header.size() <= kBearer.size() ||
      !std::equal(kBearer.begin(), kBearer.end(), header.begin(),
                  [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); }))
    return std::nullopt;
  const std::string digest = sha256_hex(header.substr(kBearer.size()));
  if (digest.empty()) return std::nullopt;
  if (!admin_hash_.empty() && digest == admin_hash_) return Principal{"", true};
  if (const auto a = agent_hashes_.find(digest); a != agent_hashes_.end()) return a->second;
  const auto it = team_hashes_.find(digest);
  if (it == team_hashes_.end()) return std::nullopt;
  return Principal{it->second, false};
}

}  // namespace frugal
