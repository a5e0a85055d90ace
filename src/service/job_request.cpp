#include "service/job_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <nlohmann/json.hpp>

namespace frugal {
namespace {

using nlohmann::json;

struct Bad {
  FieldError e;
};

[[noreturn]] void bad(const std::string& field, const std::string& why) {
  throw Bad{FieldError{field, why}};
}

int get_int(const json& body, const char* field, int lo, int hi, int def) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return def;
  if (!it->is_number_integer() &&
      !(it->is_number_float() && it->get<double>() == std::floor(it->get<double>())))
    bad(field, "must be an integer");
  const double v = it->get<double>();
  if (v < lo || v > hi) bad(field, fmt::format("must be in [{}, {}]", lo, hi));
  return static_cast<int>(v);
}

double get_number(const json& body, const char* field, double lo, double hi, double def) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return def;
  if (!it->is_number()) bad(field, "must be a number");
  const double v = it->get<double>();
  if (!(v >= lo && v <= hi)) bad(field, fmt::format("must be in [{}, {}]", lo, hi));
  return v;
}

std::string get_string(const json& body, const char* field, size_t max_bytes) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return {};
  if (!it->is_string()) bad(field, "must be a string");
  std::string s = it->get<std::string>();
  if (s.size() > max_bytes) bad(field, fmt::format("longer than {} bytes", max_bytes));
  if (s.find('\0') != std::string::npos) bad(field, "contains a NUL byte");
  return s;
}

bool get_bool(const json& body, const char* field) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return false;
  if (!it->is_boolean()) bad(field, "must be true or false");
  return it->get<bool>();
}

// Whether `field` is present with a value (not absent, not null).
bool has_value(const json& body, const char* field) {
  const auto it = body.find(field);
  return it != body.end() && !it->is_null();
}

// MAX_ARG_STRLEN on Linux: one argument or environment string, its NUL included.
constexpr size_t kMaxArgStrlen = 131072;

bool env_name_ok(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool known_field(const std::string& k) {
  const auto& f = job_request_fields();
  return std::any_of(f.begin(), f.end(), [&k](const RequestField& x) { return k == x.name; });
}

// Every key must be a field, and none a simulation-only one.
void check_keys(const json& body, const RequestLimits& limits) {
  for (const auto& [k, v] : body.items()) {
    const auto& sim = simulation_only_fields();
    if (std::find(sim.begin(), sim.end(), k) != sim.end())
      bad(k, fmt::format("simulation only: the {} backend cannot honour it live yet "
                         "(follow-the-sun runs in `frugal simulate` with +sun)",
                         limits.backend));
    const auto& storage = simulation_storage_fields();
    if (std::find(storage.begin(), storage.end(), k) != storage.end())
      bad(k,
          "simulation only: a live job declares registered datasets as `datasets: "
          "[\"name@version\", ...]` (docs/API.md, \"Storage\")");
    if (!known_field(k)) bad(k, "unknown field");
  }
}

// Whether `s` is NAME@VERSION: both parts non-empty, printable, no '/' or whitespace.
bool dataset_ref_ok(const std::string& s) {
  const size_t at = s.find('@');
  if (at == 0 || at == std::string::npos || at + 1 == s.size() || s.size() > 256) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c > 0x20 && c < 0x7f && c != '/' && c != '\\'; });
}

// datasets: a list of distinct NAME@VERSION strings (whether each is registered is the
// storage manager's to say).
void parse_datasets(const json& body, JobRequest& r) {
  const auto it = body.find(kDatasetsField);
  if (it == body.end() || it->is_null()) return;
  if (!it->is_array()) bad(kDatasetsField, "must be a list of \"name@version\" strings");
  if (it->size() > kMaxJobDatasets)
    bad(kDatasetsField, fmt::format("more than {} datasets", kMaxJobDatasets));
  for (const json& d : *it) {
    if (!d.is_string()) bad(kDatasetsField, "must be a list of \"name@version\" strings");
    const std::string s = d.get<std::string>();
    if (std::string why = list_item_error(kDatasetsField, s, r.datasets); !why.empty())
      bad(kDatasetsField, why);
    r.datasets.push_back(s);
  }
}

// name, command and workdir.
void parse_command(const json& body, const RequestLimits& limits, JobRequest& r) {
  r.name = get_string(body, "name", 256);
  if (!body.contains("command")) bad("command", "required");
  r.command = get_string(body, "command", limits.max_command_bytes);
  if (r.command.empty()) bad("command", "must not be empty");
  r.workdir = get_string(body, "workdir", 4096);
  if (!r.workdir.empty() && r.workdir[0] != '/') bad("workdir", "must be an absolute path");
}

// One variable of env (its name and value) into r.env.
void add_env_var(const std::string& k, const json& v, JobRequest& r) {
  if (!env_name_ok(k)) bad("env", fmt::format("invalid variable name '{}'", k));
  if (!v.is_string()) bad("env", fmt::format("value of {} must be a string", k));
  const std::string s = v.get<std::string>();
  if (s.find('\0') != std::string::npos) bad("env", fmt::format("{} contains NUL", k));
  // The kernel refuses a longer environment string at exec (E2BIG): the job would be
  // accepted and then fail to start.
  if (k.size() + 1 + s.size() >= kMaxArgStrlen)
    bad("env", fmt::format("{}=… is longer than {} bytes (the kernel's limit for one "
                           "environment string)",
                           k, kMaxArgStrlen - 1));
  r.env.emplace_back(k, s);
}

void parse_env(const json& body, const RequestLimits& limits, JobRequest& r) {
  const auto it = body.find("env");
  if (it == body.end() || it->is_null()) return;
  if (!it->is_object()) bad("env", "must be an object of strings");
  if (it->size() > limits.max_env_vars)
    bad("env", fmt::format("more than {} variables", limits.max_env_vars));
  for (const auto& [k, v] : it->items()) add_env_var(k, v, r);
  std::sort(r.env.begin(), r.env.end());
}

// gpus, gpu_milli and gpu_model (canonical: the catalog's name).
void parse_gpus(const json& body, const GpuCatalog& catalog, const RequestLimits& limits,
                JobRequest& r) {
  r.gpus = get_int(body, "gpus", 0, limits.max_gpus, 1);
  r.gpu_milli = get_int(body, "gpu_milli", 1, 1000, 1000);
  if (r.gpu_milli < 1000 && r.gpus != 1) bad("gpu_milli", "a GPU fraction needs gpus = 1");
  r.gpu_model = get_string(body, "gpu_model", 128);
  if (r.gpu_model.empty()) return;
  const auto m = catalog.find(r.gpu_model);
  if (!m) bad("gpu_model", fmt::format("unknown GPU model '{}'", r.gpu_model));
  r.gpu_model = catalog.at(*m).name;
  if (r.gpus == 0) bad("gpu_model", "a CPU-only job (gpus 0) cannot ask for a GPU model");
}

// class, tier, deadline and deferrable.
void parse_priority(const json& body, JobRequest& r) {
  // Given as "", class and tier are out of range like any unknown name (not the default).
  if (const std::string c = get_string(body, "class", 32); !c.empty() || has_value(body, "class")) {
    const auto jc = parse_job_class(c);
    if (!jc) bad("class", fmt::format("unknown class '{}'", c));
    r.job_class = *jc;
  }
  if (const std::string t = get_string(body, "tier", 32); !t.empty() || has_value(body, "tier")) {
    const auto tier = parse_tier(t);
    if (!tier) bad("tier", fmt::format("unknown tier '{}' (core, important, general)", t));
    r.tier = *tier;
  }
  r.deadline = get_number(body, "deadline", 0, 1e11, 0);
  r.deferrable = get_bool(body, "deferrable");
}

// lend_idle and opportunistic, after gpus, gpu_milli and tier.
void parse_sharing(const json& body, JobRequest& r) {
  r.lend_idle = get_bool(body, "lend_idle");
  r.opportunistic = get_bool(body, "opportunistic");
  if (!r.opportunistic) return;
  if (r.gpus != 1)
    bad("opportunistic", "only a one-GPU job can run as a guest on another job's idle card");
  if (r.gpu_milli == 1000 && r.tier != Tier::kGeneral)
    bad("opportunistic", "a guest is a fractional (gpu_milli < 1000) or general-tier job");
}

// min_gpus and max_gpus, after gpus and gpu_milli.
void parse_elastic(const json& body, const RequestLimits& limits, JobRequest& r) {
  r.min_gpus = get_int(body, "min_gpus", 0, limits.max_gpus, 0);
  r.max_gpus = get_int(body, "max_gpus", 0, limits.max_gpus, 0);
  if (r.min_gpus > 0 && r.min_gpus > r.gpus) bad("min_gpus", "must not exceed gpus");
  if (r.max_gpus > 0 && r.max_gpus < r.gpus) bad("max_gpus", "must be at least gpus");
  // Elastic (the engine's JobRuntime::elastic): whole GPUs with max_gpus above gpus; it may
  // then start at min_gpus (default gpus), grow to max_gpus and shrink back.
  if (r.max_gpus > r.gpus && (r.gpus == 0 || r.gpu_milli < 1000))
    bad("max_gpus", "an elastic job needs whole GPUs (gpus >= 1, gpu_milli 1000)");
  if (r.min_gpus > 0 && r.min_gpus < r.gpus && r.max_gpus <= r.gpus)
    bad("min_gpus", "below gpus only for an elastic job (max_gpus above gpus)");
}

// checkpoint_signal: a number or a name.
void parse_checkpoint_signal(const json& body, JobRequest& r) {
  const auto it = body.find("checkpoint_signal");
  if (it == body.end() || it->is_null()) return;
  if (it->is_number_integer()) {
    // Read at full width: get<int>() of 2^32 + 10 wrapped to 10 (SIGUSR1).
    const bool in_range = it->is_number_unsigned()
                              ? it->get<uint64_t>() <= 64
                              : it->get<int64_t>() >= 0 && it->get<int64_t>() <= 64;
    if (!in_range) bad("checkpoint_signal", "must be a signal number 0..64");
    r.checkpoint_signal = static_cast<int>(it->get<int64_t>());
  } else if (it->is_string()) {
    r.checkpoint_signal = parse_signal(it->get<std::string>());
    if (r.checkpoint_signal == 0) bad("checkpoint_signal", "unknown signal name");
  } else {
    bad("checkpoint_signal", "must be a signal name or number");
  }
  if (r.checkpoint_signal == SIGKILL || r.checkpoint_signal == SIGSTOP)
    bad("checkpoint_signal", "SIGKILL and SIGSTOP cannot be caught");
}

// The request; throws Bad naming the first field at fault, in the order of the fields.
JobRequest parse(const json& body, const GpuCatalog& catalog, const RequestLimits& limits) {
  if (!body.is_object()) bad("body", "must be a JSON object");
  check_keys(body, limits);
  JobRequest r;
  parse_command(body, limits, r);
  parse_env(body, limits, r);
  parse_gpus(body, catalog, limits, r);
  parse_priority(body, r);
  parse_elastic(body, limits, r);
  parse_sharing(body, r);
  if (r.opportunistic && r.max_gpus > r.gpus)
    bad("opportunistic", "an elastic job cannot be a guest");
  parse_checkpoint_signal(body, r);
  r.grace_s = get_number(body, "grace_s", 0, limits.max_grace_s, -1);
  r.estimate_s = get_number(body, "estimate_s", 1, 365.0 * 86400, 0);  // 0: predicted
  parse_datasets(body, r);
  return r;
}

}  // namespace

const std::vector<RequestField>& job_request_fields() {
  using K = RequestField::Kind;
  static const std::vector<RequestField> f = {
      {"name", "name", K::kString, "Job name"},
      {"command", "", K::kString, "The command (the words after --)"},
      {"workdir", "workdir", K::kString, "Absolute working directory"},
      {"env", "env", K::kEnv, "NAME=VALUE (repeatable)"},
      {"gpus", "gpus", K::kInt, "Whole GPUs (0: CPU-only; default 1)"},
      {"gpu_milli", "gpu-milli", K::kInt, "Share of one GPU in milli-GPU (with --gpus 1)"},
      {"gpu_model", "gpu-model", K::kString, "GPU model constraint, e.g. H100"},
      {"class", "class", K::kString, "pretrain, finetune, eval or preprocess"},
      {"tier", "tier", K::kString, "core, important or general"},
      {"deadline", "deadline", K::kTime, "Wanted completion: Unix seconds, or +DURATION from now"},
      {"deferrable", "deferrable", K::kBool, "May wait for cheaper hours"},
      {"min_gpus", "min-gpus", K::kInt, "Elastic: fewest GPUs it may run on"},
      {"max_gpus", "max-gpus", K::kInt, "Elastic: most GPUs it may grow to (above --gpus)"},
      {"checkpoint_signal", "checkpoint-signal", K::kSignal,
       "Signal asking it to checkpoint before a stop (name or number; default USR1)"},
      {"grace_s", "grace", K::kDuration,
       "Time it gets to checkpoint after the signal, e.g. 30s (default: the service's)"},
      {"estimate_s", "estimate", K::kDuration,
       "Runtime estimate the scheduler plans with, e.g. 90m or 2h (default: predicted from "
       "completed jobs like it)"},
      {"lend_idle", "lend-idle", K::kBool,
       "Lets a guest use this job's measured idle GPU time (with the service's sharing: config)"},
      {"opportunistic", "opportunistic", K::kBool,
       "May run as a guest on another job's idle card, stopped first when it needs it back"},
      {kDatasetsField, "dataset", K::kList,
       "Registered dataset NAME@VERSION staged on the hot tier before each run (repeatable; "
       "needs the service's storage:)"},
  };
  return f;
}

const std::vector<std::string>& simulation_only_fields() {
  static const std::vector<std::string> f = {"movable", "data_region"};
  return f;
}

const std::vector<std::string>& simulation_storage_fields() {
  static const std::vector<std::string> f = {"dataset", "storage_tier"};
  return f;
}

std::string list_item_error(const std::string& field, const std::string& item,
                            const std::vector<std::string>& before) {
  if (field != kDatasetsField) return {};
  if (!dataset_ref_ok(item)) return fmt::format("'{}' is not name@version", item);
  if (std::find(before.begin(), before.end(), item) != before.end())
    return fmt::format("'{}' is listed twice", item);
  return {};
}

int parse_signal(const std::string& s) {
  static const std::pair<const char*, int> kNames[] = {
      {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"INT", SIGINT},
      {"HUP", SIGHUP},   {"QUIT", SIGQUIT}, {"CONT", SIGCONT}, {"WINCH", SIGWINCH},
      {"ALRM", SIGALRM}, {"URG", SIGURG}};
  if (!s.empty() && std::all_of(s.begin(), s.end(), ::isdigit) && s.size() <= 2) {
    const int n = std::stoi(s);
    return n >= 1 && n <= 64 ? n : 0;
  }
  std::string name = s.rfind("SIG", 0) == 0 ? s.substr(3) : s;
  for (const auto& [n, v] : kNames)
    if (name == n) return v;
  return 0;
}

std::variant<JobRequest, FieldError> parse_job_request(const nlohmann::json& body,
                                                       const GpuCatalog& catalog,
                                                       const RequestLimits& limits) {
  try {
    return parse(body, catalog, limits);
  } catch (const Bad& b) {
    return b.e;
  } catch (const nlohmann::json::exception& e) {
    return FieldError{"body", e.what()};
  }
}

nlohmann::json to_json(const JobRequest& r) {
  json env = json::object();
  for (const auto& [k, v] : r.env) env[k] = v;
  json j = {{"name", r.name},
            {"command", r.command},
            {"workdir", r.workdir},
            {"env", env},
            {"gpus", r.gpus},
            {"gpu_milli", r.gpu_milli},
            {"gpu_model", r.gpu_model},
            {"class", std::string(to_string(r.job_class))},
            {"tier", std::string(to_string(r.tier))},
            {"deadline", r.deadline},
            {"deferrable", r.deferrable},
            {"min_gpus", r.min_gpus},
            {"max_gpus", r.max_gpus},
            {"checkpoint_signal", r.checkpoint_signal},
            {"grace_s", r.grace_s},
            {"estimate_s", r.estimate_s},
            {"lend_idle", r.lend_idle},
            {"opportunistic", r.opportunistic},
            {kDatasetsField, r.datasets}};
  return j;
}

Result<JobRequest> job_request_from_stored(const nlohmann::json& j) {
  try {
    JobRequest r;
    r.name = j.value("name", "");
    r.command = j.at("command").get<std::string>();
    r.workdir = j.value("workdir", "");
    if (j.contains("env"))
      for (const auto& [k, v] : j.at("env").items()) r.env.emplace_back(k, v.get<std::string>());
    r.gpus = j.value("gpus", 1);
    r.gpu_milli = j.value("gpu_milli", 1000);
    r.gpu_model = j.value("gpu_model", "");
    r.job_class = parse_job_class(j.value("class", "pretrain")).value_or(JobClass::kPretrain);
    r.tier = parse_tier(j.value("tier", "general")).value_or(Tier::kGeneral);
    r.deadline = j.value("deadline", 0.0);
    r.deferrable = j.value("deferrable", false);
    r.min_gpus = j.value("min_gpus", 0);
    r.max_gpus = j.value("max_gpus", 0);
    r.checkpoint_signal = j.value("checkpoint_signal", 10);
    r.grace_s = j.value("grace_s", -1.0);
    r.estimate_s = j.value("estimate_s", 3600.0);  // records from before prediction: 1 h
    r.lend_idle = j.value("lend_idle", false);
    r.opportunistic = j.value("opportunistic", false);
    if (const auto it = j.find(kDatasetsField); it != j.end() && it->is_array())
      r.datasets = it->get<std::vector<std::string>>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("stored job request: {}", e.what())};
  }
}

}  // namespace frugal
