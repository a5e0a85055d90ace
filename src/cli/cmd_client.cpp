// Client commands talking to a running `frugal serve`: submit, jobs, cancel, hold, release,
// ledger.
#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "cli/commands.h"
#include "service/api_client.h"

namespace frugal {
namespace {

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
int report(const Result<ApiResponse>& r, bool print_body = true) {
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

// One ledger account (GET /v1/ledger's by_team / total entries) as a table row.
void print_account(const std::string& name, const nlohmann::json& a) {
  fmt::print("{:<16} {:>10.2f} {:>12.2f} {:>10.2f} {:>12.2f} {:>10.2f}\n", name,
             a.value("gpu_hours", 0.0), a.value("compute_usd", 0.0), a.value("storage_usd", 0.0),
             a["waste"].value("total_usd", 0.0), a.value("total_usd", 0.0));
}

}  // namespace

void add_client_commands(CLI::App& app, int& exit_code) {
  {
    auto o = std::make_shared<ClientOptions>();
    auto words = std::make_shared<std::vector<std::string>>();
    auto f = std::make_shared<nlohmann::json>(nlohmann::json::object());
    auto name = std::make_shared<std::string>();
    auto gpu_model = std::make_shared<std::string>();
    auto cls = std::make_shared<std::string>();
    auto tier = std::make_shared<std::string>();
    auto workdir = std::make_shared<std::string>();
    auto env = std::make_shared<std::vector<std::string>>();
    auto gpus = std::make_shared<int>(-1);
    auto milli = std::make_shared<int>(-1);
    auto deferrable = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("submit", "Submit a job: frugal submit [options] -- COMMAND...");
    o->add_to(cmd);
    cmd->add_option("--name", *name, "Job name");
    cmd->add_option("--gpus", *gpus, "Whole GPUs (0: CPU-only; default 1)");
    cmd->add_option("--gpu-milli", *milli, "Share of one GPU in milli-GPU (with --gpus 1)");
    cmd->add_option("--gpu-model", *gpu_model, "GPU model constraint, e.g. H100");
    cmd->add_option("--class", *cls, "pretrain, finetune, eval or preprocess");
    cmd->add_option("--tier", *tier, "core, important or general");
    cmd->add_option("--workdir", *workdir, "Absolute working directory");
    cmd->add_option("--env", *env, "NAME=VALUE (repeatable)");
    cmd->add_flag("--deferrable", *deferrable, "May wait for cheaper hours");
    cmd->add_option("command", *words, "The command (after --)")->required();
    cmd->callback([=, &exit_code] {
      nlohmann::json j;
      std::string command;
      for (const std::string& w : *words) command += (command.empty() ? "" : " ") + w;
      j["command"] = command;
      if (!name->empty()) j["name"] = *name;
      if (*gpus >= 0) j["gpus"] = *gpus;
      if (*milli >= 0) j["gpu_milli"] = *milli;
      if (!gpu_model->empty()) j["gpu_model"] = *gpu_model;
      if (!cls->empty()) j["class"] = *cls;
      if (!tier->empty()) j["tier"] = *tier;
      if (!workdir->empty()) j["workdir"] = *workdir;
      if (*deferrable) j["deferrable"] = true;
      for (const std::string& e : *env) {
        const size_t eq = e.find('=');
        if (eq == std::string::npos) {
          fmt::print(stderr, "error: --env {}: expected NAME=VALUE\n", e);
          exit_code = 1;
          return;
        }
        j["env"][e.substr(0, eq)] = e.substr(eq + 1);
      }
      exit_code = report(o->client().post("/v1/jobs", j));
    });
  }
  {
    auto o = std::make_shared<ClientOptions>();
    auto state = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("jobs", "List jobs (yours, or all with the admin token)");
    o->add_to(cmd);
    cmd->add_option("--state", *state, "Only jobs in this state");
    cmd->callback([=, &exit_code] {
      const auto r = o->client().get("/v1/jobs" + (state->empty() ? "" : "?state=" + *state));
      if (const int rc = report(r, false); rc != 0) {
        exit_code = rc;
        return;
      }
      fmt::print("{:>6}  {:<10} {:<8} {:<9} {:>5}  {:<20} {}\n", "id", "state", "team", "tier",
                 "gpus", "name", "command");
      for (const auto& j : r.value().body["jobs"]) {
        const int g = j["gpus"].get<int>(), m = j["gpu_milli"].get<int>();
        fmt::print("{:>6}  {:<10} {:<8} {:<9} {:>5}  {:<20} {}\n", j["id"].get<int64_t>(),
                   j["state"].get<std::string>() + (j["held"].get<bool>() ? "*" : ""),
                   j["team"].get<std::string>(), j["tier"].get<std::string>(),
                   m < 1000 ? fmt::format("{:.2f}", m / 1000.0) : std::to_string(g),
                   j["name"].get<std::string>(), j["command"].get<std::string>());
      }
    });
  }
  {
    auto o = std::make_shared<ClientOptions>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand(
        "ledger", "Cost and waste of the jobs' GPU time so far, by team (the live service's)");
    o->add_to(cmd);
    cmd->add_flag("--json", *json, "Print the service's answer (GET /v1/ledger) as JSON");
    cmd->callback([=, &exit_code] {
      const auto r = o->client().get("/v1/ledger");
      if (const int rc = report(r, *json); rc != 0 || *json) {
        exit_code = rc;
        return;
      }
      const nlohmann::json& b = r.value().body;
      fmt::print("{:<16} {:>10} {:>12} {:>10} {:>12} {:>10}\n", "team", "gpu_hours", "compute_usd",
                 "storage", "waste_usd", "total_usd");
      for (const auto& [team, a] : b["by_team"].items()) print_account(team, a);
      if (b.contains("total")) print_account("TOTAL", b["total"]);
      if (b.contains("waste")) {
        const nlohmann::json& w = b["waste"];
        fmt::print(
            "waste: idle allocated {:.2f}, rework {:.2f}, peak premium {:.2f}, oversized {:.2f}, "
            "storage tier {:.2f}, duplicate storage {:.2f} USD\n",
            w.value("idle_allocated_usd", 0.0), w.value("rework_usd", 0.0),
            w.value("peak_premium_usd", 0.0), w.value("oversized_usd", 0.0),
            w.value("storage_tier_usd", 0.0), w.value("duplicate_storage_usd", 0.0));
      }
      fmt::print("{} job(s) with GPU time", b["jobs"].size());
      if (b.contains("note")) fmt::print("; {}", b["note"].get<std::string>());
      fmt::print("\n");
    });
  }
  for (const char* verb : {"cancel", "hold", "release"}) {
    auto o = std::make_shared<ClientOptions>();
    auto id = std::make_shared<int64_t>(0);
    auto* cmd = app.add_subcommand(verb, fmt::format("{} a job by id", verb));
    o->add_to(cmd);
    cmd->add_option("id", *id, "Job id")->required();
    const std::string v = verb;
    cmd->callback([=, &exit_code] {
      exit_code = report(o->client().post(fmt::format("/v1/jobs/{}/{}", *id, v), {}));
    });
  }
}

}  // namespace frugal
