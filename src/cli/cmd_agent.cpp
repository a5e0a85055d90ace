// `frugal agent`: a node's GPU and host telemetry pushed to `frugal serve` (agent/agent.h).
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <memory>

#include "agent/agent.h"
#include "cli/commands.h"

namespace frugal {

void add_agent_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<AgentOptions>();
  auto token_file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "agent",
      "Push this node's GPU (NVML) and host telemetry to `frugal serve` (docs/TELEMETRY.md)");
  cmd->add_option("--server", o->server, "The service, http://host:port");
  cmd->add_option("--token", o->token,
                  "Node token (config `agents:`); prefer --token-file or FRUGAL_AGENT_TOKEN, "
                  "which other users cannot read in the process list");
  cmd->add_option("--token-file", *token_file, "File whose first line is the node token");
  cmd->add_option("--node", o->node,
                  "This node's name as the service knows it (default: hostname)");
  cmd->add_option("--sample-interval", o->sample_interval_s, "Seconds between samples")
      ->capture_default_str();
  cmd->add_option("--interval", o->report_interval_s, "Seconds between reports (posts)")
      ->capture_default_str();
  cmd->add_option("--max-backoff", o->max_backoff_s,
                  "Longest wait between posts while the server does not answer, seconds")
      ->capture_default_str();
  cmd->add_option("--outbox", o->outbox_reports,
                  "Reports kept while the server is away (the oldest are dropped beyond)")
      ->capture_default_str();
  cmd->add_option("--nvml-library", o->nvml_library, "NVML library to load")->capture_default_str();
  cmd->add_option("--proc", o->proc, "The /proc folder to read")->capture_default_str();
  cmd->add_flag("--allow-no-gpu", o->allow_no_gpu,
                "Without NVML, report the host's load only (default: an error)");
  cmd->add_flag("--print", o->print, "Print reports as JSON lines instead of posting them");
  cmd->add_flag("--once", o->once, "Stop after the first report");
  cmd->callback([o, token_file, &exit_code] {
    AgentOptions opts = *o;
    if (!token_file->empty()) {
      std::ifstream in(*token_file);
      if (!in || !std::getline(in, opts.token) || opts.token.empty()) {
        fmt::print(stderr, "frugal agent: {}: cannot read a token from its first line\n",
                   *token_file);
        exit_code = 2;
        return;
      }
    } else if (opts.token.empty()) {
      if (const char* t = std::getenv("FRUGAL_AGENT_TOKEN")) opts.token = t;
    }
    exit_code = run_agent(opts);
  });
}

}  // namespace frugal
