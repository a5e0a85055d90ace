#pragma once
// Bearer-token authentication. Tokens are never stored: the config holds their SHA-256
// digests (hex), and a request's token is hashed and looked up. A token maps to a team, or
// to the admin, who sees and changes every team's jobs.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frugal {

// Lower-case hex SHA-256 of `text` (OpenSSL EVP). Thread-safe.
std::string sha256_hex(std::string_view text);

struct Principal {
  std::string team;  // empty for the admin
  bool admin = false;
  // A node agent's token (config `agents:`): it may only post telemetry, for `nodes` (empty:
  // any node). `agent` is the agent's name; empty for users.
  std::string agent;
  std::vector<std::string> nodes;
  bool is_agent() const { return !agent.empty(); }
  // May this principal see and change a job owned by `owner`?
  bool may_access(const std::string& owner) const {
    return !is_agent() && (admin || owner == team);
  }
};

class Authenticator {
 public:
  // `team_hashes`: hex SHA-256 digest → team name; `admin_hash`: digest of the admin token
  // (empty: no admin); `agent_hashes`: digest → the node agent's principal.
  Authenticator(std::map<std::string, std::string> team_hashes, std::string admin_hash,
                std::map<std::string, Principal> agent_hashes = {});

  // The principal a request's Authorization header value ("Bearer TOKEN") names; nullopt
  // when missing, malformed or unknown. Thread-safe (immutable after construction).
  std::optional<Principal> authenticate(std::string_view authorization_header) const;

 private:
  std::map<std::string, std::string> team_hashes_;
  std::string admin_hash_;
  std::map<std::string, Principal> agent_hashes_;
};

}  // namespace frugal
