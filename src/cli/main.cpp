// frugal: a cost-aware scheduler and simulator for GPU training clusters.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"frugal: cut the hidden cost of GPU training clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "frugal 0.1.0");
  int exit_code = 0;
  frugal::add_simulate_commands(app, exit_code);
  frugal::add_gen_trace_command(app, exit_code);
  frugal::add_catalog_command(app, exit_code);
  frugal::add_policies_command(app, exit_code);
  frugal::add_pack_command(app, exit_code);
  frugal::add_predict_command(app, exit_code);
  frugal::add_serve_commands(app, exit_code);
  frugal::add_client_commands(app, exit_code);
  frugal::add_agent_command(app, exit_code);
  frugal::add_attribute_command(app, exit_code);
  frugal::add_history_command(app, exit_code);
  frugal::add_whatif_command(app, exit_code);
  frugal::add_import_command(app, exit_code);
  frugal::add_policy_commands(app, exit_code);
  frugal::add_report_command(app, exit_code);
  frugal::add_storage_cost_command(app, exit_code);
  frugal::add_storage_command(app, exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
