#pragma once
// The `frugal` subcommands. Each registers itself on the app; its callback returns the
// process exit code through `exit_code` (0 ok, 1 bad input or failure).

#include <CLI/CLI.hpp>

namespace frugal {

void add_simulate_commands(CLI::App& app, int& exit_code);  // simulate, compare
void add_gen_trace_command(CLI::App& app, int& exit_code);
void add_catalog_command(CLI::App& app, int& exit_code);
void add_policies_command(CLI::App& app, int& exit_code);   // the policy registry
void add_predict_command(CLI::App& app, int& exit_code);    // runtime-prediction error
void add_pack_command(CLI::App& app, int& exit_code);       // pack (FGD static-fill experiment)
void add_serve_commands(CLI::App& app, int& exit_code);     // serve, hash-token
void add_client_commands(CLI::App& app, int& exit_code);    // submit, jobs, cancel, hold, release
void add_attribute_command(CLI::App& app, int& exit_code);  // cost of Slurm jobcomp records
void add_agent_command(CLI::App& app, int& exit_code);      // a node's telemetry to serve
void add_history_command(CLI::App& app, int& exit_code);    // history export (service → trace)
void add_whatif_command(CLI::App& app, int& exit_code);     // history under policies vs actual
void add_import_command(CLI::App& app, int& exit_code);     // import slurm (accounting → trace)
void add_policy_commands(CLI::App& app, int& exit_code);    // policy, shadow (live service)
void add_report_command(CLI::App& app, int& exit_code);     // HTML report of --report-json files
void add_storage_cost_command(CLI::App& app, int& exit_code);  // checkpoint lifecycle cost
void add_storage_command(CLI::App& app, int& exit_code);       // storage ls|du|policy|gc|dataset

}  // namespace frugal
