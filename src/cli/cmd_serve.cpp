// `frugal serve` and `frugal hash-token`.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "service/auth.h"
#include "service/serve.h"

namespace frugal {

void add_serve_commands(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ServeOptions>();
  auto* cmd = app.add_subcommand("serve", "Run the live scheduler (HTTP API, local driver)");
  cmd->add_option("--config", o->config, "Service configuration (YAML), e.g. examples/local.yaml")
      ->required();
  cmd->add_option("--listen", o->listen, "host:port to listen on (default: the config's)");
  cmd->add_option("--db", o->db, "SQLite database file (default: the config's)");
  cmd->add_option("--backend", o->backend, "local, dry-run or slurm (default: the config's)");
  cmd->callback([o, &exit_code] { exit_code = run_serve(*o); });

  auto token = std::make_shared<std::string>();
  auto* hash = app.add_subcommand(
      "hash-token", "Print the SHA-256 digest of a token, for token_sha256 in the config");
  hash->add_option("token", *token, "The token (keep it secret; only the digest is stored)")
      ->required();
  hash->callback([token] { fmt::print("{}\n", sha256_hex(*token)); });
}

}  // namespace frugal
