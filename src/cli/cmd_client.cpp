// Client commands talking to a running `frugal serve`: submit, jobs, cancel, hold, release,
// priority, logs, ledger.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "cli/client_options.h"
#include "cli/commands.h"
#include "service/api_client.h"
#include "service/job_record.h"
#include "service/job_request.h"

namespace frugal {
namespace {

// One row of the ledger table: GPU-hours, compute (rental + energy), storage, waste, total.
void print_row(const std::string& name, double gpu_hours, double compute, double storage,
               double waste, double total) {
  fmt::print("{:<16} {:>10.2f} {:>12.2f} {:>10.2f} {:>12.2f} {:>10.2f}\n", name, gpu_hours, compute,
             storage, waste, total);
}

// One ledger account (an entry of GET /v1/ledger's by_team) as a table row.
void print_account(const std::string& name, const nlohmann::json& a) {
  print_row(name, a.value("gpu_hours", 0.0),
            a.value("rental_usd", 0.0) + a.value("energy_usd", 0.0), a.value("storage_usd", 0.0),
            a["waste"].value("total_usd", 0.0), a.value("total_usd", 0.0));
}

const char* kind_name(RequestField::Kind k) {
  switch (k) {
    case RequestField::Kind::kString:
      return "string";
    case RequestField::Kind::kInt:
      return "int";
    case RequestField::Kind::kBool:
      return "bool";
    case RequestField::Kind::kEnv:
      return "env";
    case RequestField::Kind::kSignal:
      return "signal";
    case RequestField::Kind::kDuration:
      return "duration";
    case RequestField::Kind::kTime:
      return "time";
    case RequestField::Kind::kList:
      return "list";
  }
  return "?";
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// "90", "90s", "15m", "2h", "1.5d" → seconds.
Result<double> parse_duration(const std::string& s) {
  static const std::pair<char, double> kUnits[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  std::string num = s;
  double unit = 1;
  for (const auto& [c, mult] : kUnits)
    if (!s.empty() && s.back() == c) {
      num = s.substr(0, s.size() - 1);
      unit = mult;
    }
  double v = 0;
  const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !(v >= 0))
    return Error{"expected seconds, or a number with s, m, h or d (e.g. 90m)"};
  return v * unit;
}

// The JSON value a `frugal submit` flag's text stands for.
Result<nlohmann::json> flag_value(RequestField::Kind kind, const std::string& s, double now) {
  using K = RequestField::Kind;
  switch (kind) {
    case K::kString:
      return nlohmann::json(s);
    case K::kInt: {
      int v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size()) return Error{"expected an integer"};
      return nlohmann::json(v);
    }
    case K::kSignal: {
      const bool digits = !s.empty() && std::all_of(s.begin(), s.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; });
      if (digits && s.size() <= 2) return nlohmann::json(std::stoi(s));
      return nlohmann::json(s);  // a name: the service checks it
    }
    case K::kDuration: {
      auto d = parse_duration(s);
      if (!d.ok()) return d.error();
      return nlohmann::json(d.value());
    }
    case K::kTime: {
      if (!s.empty() && s[0] == '+') {
        auto d = parse_duration(s.substr(1));
        if (!d.ok()) return Error{"expected Unix seconds or +DURATION (e.g. +6h)"};
        return nlohmann::json(std::floor(now + d.value()));
      }
      double v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return Error{"expected Unix seconds or +DURATION (e.g. +6h)"};
      return nlohmann::json(v);
    }
    case K::kBool:
    case K::kEnv:
    case K::kList:
      break;
  }
  return Error{"not a valued flag"};
}

// `frugal logs`: the whole stream (or its last `tail` lines), read in the service's bounded
// answers; with `follow`, asks again from where the last answer ended until the job has
// ended and one last read found nothing more.
int follow_logs(ApiClient client, int64_t id, const std::string& stream, std::optional<int> tail,
                bool follow, double poll_s) {
  const std::string base = fmt::format("/v1/jobs/{}/logs?stream={}", id, stream);
  std::string path = tail ? fmt::format("{}&tail={}", base, *tail) : base + "&offset=0";
  bool ending = false;
  for (;;) {
    const auto r = client.get(path);
    if (const int rc = report(r, false); rc != 0) return rc;
    const nlohmann::json& b = r.value().body;
    const std::string text = b.value("text", "");
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (tail && b.value("truncated", false))
      fmt::print(stderr, "(earlier lines left out: one answer holds at most {} bytes)\n",
                 text.size());
    tail.reset();
    const auto to = b.value("to", int64_t{0}), size = b.value("size", int64_t{0});
    path = fmt::format("{}&offset={}", base, to);
    if (to < size) continue;  // more is there already
    if (!follow || ending) return 0;
    const auto job = client.get(fmt::format("/v1/jobs/{}", id));
    if (const int rc = report(job, false); rc != 0) return rc;
    const auto state = parse_job_status(job.value().body.value("state", ""));
    if (state && is_final(*state)) {
      ending = true;  // one last read: what it wrote before it ended
      continue;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_s));
  }
}

// `frugal submit`'s options: one flag per field of the job request (service/job_request.h),
// `command` excepted.
struct Submit {
  ClientOptions o;
  std::vector<std::string> words;
  std::map<std::string, std::string> text;                // field → the flag's text
  std::map<std::string, std::vector<std::string>> lists;  // kEnv and kList fields
  std::map<std::string, bool> flags;                      // kBool fields
  bool fields = false;
};

// `frugal submit --fields`: the job request's fields with their flags, as JSON.
void print_request_fields() {
  nlohmann::json out = nlohmann::json::array();
  for (const RequestField& f : job_request_fields())
    out.push_back({{"field", f.name},
                   {"flag", std::string(f.flag).empty() ? "" : std::string("--") + f.flag},
                   {"kind", kind_name(f.kind)}});
  fmt::print("{}\n", out.dump(2));
}

// A kEnv field's NAME=VALUE texts into j[f.name]; false after printing the first bad one.
bool add_env(const RequestField& f, const std::vector<std::string>& texts, nlohmann::json& j) {
  for (const std::string& e : texts) {
    const size_t eq = e.find('=');
    if (eq == std::string::npos || eq == 0) {
      fmt::print(stderr, "error: --{} {}: expected NAME=VALUE\n", f.flag, e);
      return false;
    }
    j[f.name][e.substr(0, eq)] = e.substr(eq + 1);
  }
  return true;
}

// A kList field's texts (one per use of its flag) into the array j[f.name]; false after
// printing the first that is not a valid item, naming the flag.
bool add_list(const RequestField& f, const std::vector<std::string>& texts, nlohmann::json& j) {
  if (texts.empty()) return true;
  std::vector<std::string> items;
  for (const std::string& t : texts) {
    if (const std::string why = list_item_error(f.name, t, items); !why.empty()) {
      fmt::print(stderr, "error: --{} {}: {}\n", f.flag, t, why);
      return false;
    }
    items.push_back(t);
  }
  j[f.name] = items;
  return true;
}

// The value of field `f`'s flag (when given) into j[f.name]; false after printing why its
// text is not valid.
bool add_field(const RequestField& f, Submit& sub, nlohmann::json& j) {
  using K = RequestField::Kind;
  if (f.kind == K::kBool) {
    if (sub.flags[f.name]) j[f.name] = true;
    return true;
  }
  if (f.kind == K::kEnv) return add_env(f, sub.lists[f.name], j);
  if (f.kind == K::kList) return add_list(f, sub.lists[f.name], j);
  const auto it = sub.text.find(f.name);
  if (it == sub.text.end() || it->second.empty()) return true;
  auto v = flag_value(f.kind, it->second, unix_now());
  if (!v.ok()) {
    fmt::print(stderr, "error: --{} {}: {}\n", f.flag, it->second, v.error().message);
    return false;
  }
  j[f.name] = v.value();
  return true;
}

// `frugal submit -- COMMAND...`: posts the job; returns the exit code.
int run_submit(Submit& sub) {
  if (sub.words.empty()) {
    fmt::print(stderr, "error: a command is required: frugal submit [options] -- COMMAND...\n");
    return 1;
  }
  nlohmann::json j;
  std::string command;
  for (const std::string& w : sub.words) command += (command.empty() ? "" : " ") + w;
  j["command"] = command;
  for (const RequestField& f : job_request_fields())
    if (!std::string(f.flag).empty() && !add_field(f, sub, j)) return 1;
  return report(sub.o.client().post("/v1/jobs", j));
}

void add_submit_command(CLI::App& app, int& exit_code) {
  auto sub = std::make_shared<Submit>();
  auto* cmd = app.add_subcommand("submit", "Submit a job: frugal submit [options] -- COMMAND...");
  sub->o.add_to(cmd);
  using K = RequestField::Kind;
  for (const RequestField& f : job_request_fields()) {
    if (std::string(f.flag).empty()) continue;
    const std::string flag = std::string("--") + f.flag;
    if (f.kind == K::kBool) {
      cmd->add_flag(flag, sub->flags[f.name], f.help);
    } else if (f.kind == K::kEnv || f.kind == K::kList) {
      cmd->add_option(flag, sub->lists[f.name], f.help);
    } else {
      cmd->add_option(flag, sub->text[f.name], f.help);
    }
  }
  cmd->add_flag("--fields", sub->fields,
                "Print the job request's fields with their flags as JSON, and exit");
  cmd->add_option("command", sub->words, "The command (after --)");
  cmd->callback([sub, &exit_code] {
    if (sub->fields) return print_request_fields();
    exit_code = run_submit(*sub);
  });
}

// GET /v1/jobs's answer as a table.
void print_jobs(const nlohmann::json& body) {
  fmt::print("{:>6}  {:<10} {:<8} {:<9} {:>5}  {:<20} {}\n", "id", "state", "team", "tier", "gpus",
             "name", "command");
  for (const auto& j : body["jobs"]) {
    const int g = j["gpus"].get<int>(), m = j["gpu_milli"].get<int>();
    fmt::print("{:>6}  {:<10} {:<8} {:<9} {:>5}  {:<20} {}\n", j["id"].get<int64_t>(),
               j["state"].get<std::string>() + (j["held"].get<bool>() ? "*" : ""),
               j["team"].get<std::string>(), j["tier"].get<std::string>(),
               m < 1000 ? fmt::format("{:.2f}", m / 1000.0) : std::to_string(g),
               j["name"].get<std::string>(), j["command"].get<std::string>());
  }
}

void add_jobs_command(CLI::App& app, int& exit_code) {
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
    print_jobs(r.value().body);
  });
}

// The admin's answer: capacity held per pool (provisioned node- and GPU-hours, booting) and
// its idle cost.
void print_pools(const nlohmann::json& b) {
  if (!b.contains("capacity_by_pool") || b["capacity_by_pool"].empty()) return;
  fmt::print("{:<16} {:>11} {:>10} {:>12} {:>10}\n", "pool", "node_hours", "gpu_hours",
             "booting_gpu_h", "idle_usd");
  for (const auto& [pool, c] : b["capacity_by_pool"].items()) {
    double idle = 0;
    if (b.contains("unattributed_by_pool") && b["unattributed_by_pool"].contains(pool))
      idle = b["unattributed_by_pool"][pool].value("total_usd", 0.0);
    fmt::print("{:<16} {:>11.3f} {:>10.3f} {:>12.3f} {:>10.2f}\n", pool, c.value("node_hours", 0.0),
               c.value("gpu_hours", 0.0), c.value("booting_gpu_hours", 0.0), idle);
  }
}

// GET /v1/ledger's answer as a table by team, then the waste and the jobs counted.
void print_ledger(const nlohmann::json& b) {
  fmt::print("{:<16} {:>10} {:>12} {:>10} {:>12} {:>10}\n", "team", "gpu_hours", "compute_usd",
             "storage", "waste_usd", "total_usd");
  double team_hours = 0;
  for (const auto& [team, a] : b["by_team"].items()) {
    print_account(team, a);
    team_hours += a.value("gpu_hours", 0.0);
  }
  if (b.contains("cost")) {  // the admin's answer: the whole cluster, idle capacity included
    const nlohmann::json& c = b["cost"];
    print_row("TOTAL", team_hours, c.value("rental_usd", 0.0) + c.value("energy_usd", 0.0),
              c.value("storage_usd", 0.0), b["waste"].value("total_usd", 0.0),
              c.value("total_usd", 0.0));
    fmt::print("of which capacity nobody held (unattributed): {:.2f} USD\n",
               c.value("unattributed_usd", 0.0));
    print_pools(b);
  }
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
}

void add_ledger_command(CLI::App& app, int& exit_code) {
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
    print_ledger(r.value().body);
  });
}

void add_priority_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ClientOptions>();
  auto id = std::make_shared<int64_t>(0);
  auto tier = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "priority", "Change a job's priority tier: frugal priority ID core|important|general");
  o->add_to(cmd);
  cmd->add_option("id", *id, "Job id")->required();
  cmd->add_option("tier", *tier, "core, important or general")->required();
  cmd->callback([=, &exit_code] {
    exit_code =
        report(o->client().post(fmt::format("/v1/jobs/{}/priority", *id), {{"tier", *tier}}));
  });
}

void add_logs_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ClientOptions>();
  auto id = std::make_shared<int64_t>(0);
  auto err = std::make_shared<bool>(false);
  auto follow = std::make_shared<bool>(false);
  auto tail = std::make_shared<int>(-1);
  auto poll = std::make_shared<double>(1.0);
  auto* cmd = app.add_subcommand(
      "logs", "Print a job's output (GET /v1/jobs/{id}/logs): frugal logs ID [--err]");
  o->add_to(cmd);
  cmd->add_option("id", *id, "Job id")->required();
  cmd->add_flag("--err", *err, "Its standard error instead of its standard output");
  cmd->add_option("--tail", *tail, "Only the last N lines")->check(CLI::Range(0, 100000));
  cmd->add_flag("-f,--follow", *follow,
                "Keep printing what it writes until it ends (polls the service)");
  cmd->add_option("--poll", *poll, "Seconds between polls with --follow")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 60.0));
  cmd->callback([=, &exit_code] {
    exit_code = follow_logs(o->client(), *id, *err ? "err" : "out",
                            *tail >= 0 ? std::optional<int>(*tail) : std::nullopt, *follow, *poll);
  });
}

// cancel, hold and release: POST /v1/jobs/{id}/VERB.
void add_action_commands(CLI::App& app, int& exit_code) {
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

}  // namespace

void add_client_commands(CLI::App& app, int& exit_code) {
  add_submit_command(app, exit_code);
  add_jobs_command(app, exit_code);
  add_ledger_command(app, exit_code);
  add_priority_command(app, exit_code);
  add_logs_command(app, exit_code);
  add_action_commands(app, exit_code);
}

}  // namespace frugal
