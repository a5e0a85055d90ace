#pragma once
// A job as submitted to the API (POST /v1/jobs) and its validation. Only `command` is
// required; every other field has a default. Validation names the first field at fault, so
// the API can answer 400 with {"error", "field"}.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/gpu_catalog.h"
#include "model/job_class.h"
#include "model/result.h"

namespace frugal {

struct JobRequest {
  std::string name;
  std::string command;
  std::string workdir;                                   // "" = the service's log directory
  std::vector<std::pair<std::string, std::string>> env;  // sorted by name
  int gpus = 1;
  int gpu_milli = 1000;
  std::string gpu_model;  // "" = any; else a catalog name or alias (canonical after parse)
  JobClass job_class = JobClass::kPretrain;
  Tier tier = Tier::kGeneral;
  double deadline = 0;  // Unix seconds; 0 = none
  bool deferrable = false;
  int min_gpus = 0;
  int max_gpus = 0;
  int checkpoint_signal = 10;  // SIGUSR1
  double grace_s = -1;         // < 0: the service's checkpoint grace
  // Runtime estimate the engine plans with; 0 = none given: the service predicts it from its
  // own completed jobs like this one (Scheduler, RuntimePredictor), 1 h with no history.
  double estimate_s = 0;
  // Sharing measured idle (the `sharing:` config; policy/lend_idle.h): lend_idle lets a
  // guest use the measured idle of this job's cards; opportunistic lets this job (one card,
  // fractional or general tier) run as such a guest, preempted first when the host's load
  // returns.
  bool lend_idle = false;
  bool opportunistic = false;
  // Registered datasets ("name@version", docs/API.md "Storage") staged onto the hot tier of
  // the job's node before each run (FRUGAL_DATASET_DIR); needs the service's `storage:`.
  // Unique, in the order given.
  std::vector<std::string> datasets;
};

// Every field of POST /v1/jobs, in one table: the parser's known fields, to_json's keys and
// `frugal submit`'s flags (one per field but `command`, the words after --) come from it, so
// a new field cannot be left out of the CLI.
struct RequestField {
  // How `frugal submit` reads the flag's text: kDuration "90", "90s", "15m", "2h", "1d" →
  // seconds; kTime Unix seconds or "+DURATION" from now; kSignal a name or a number; kEnv
  // NAME=VALUE, repeatable; kBool a flag without a value; kList one item per use of the
  // flag (repeatable), the items a JSON array of strings in the order given, each checked
  // with list_item_error().
  enum class Kind { kString, kInt, kBool, kEnv, kSignal, kDuration, kTime, kList };
  const char* name;  // the JSON key
  const char* flag;  // frugal submit's long flag, without "--" ("" for command)
  Kind kind;
  const char* help;
};
const std::vector<RequestField>& job_request_fields();

// Fields of the simulator's job model that no live backend can honour yet (follow-the-sun):
// POST /v1/jobs refuses them with a 400 naming the backend.
const std::vector<std::string>& simulation_only_fields();

// The simulator's storage fields (`dataset`, `storage_tier`): POST /v1/jobs refuses them with
// a 400 pointing to `datasets`, the live form.
const std::vector<std::string>& simulation_storage_fields();

// `datasets` (in job_request_fields(), kind kList; `frugal submit --dataset`, repeatable): a
// list of at most kMaxJobDatasets distinct "name@version" strings.
inline constexpr const char* kDatasetsField = "datasets";
inline constexpr size_t kMaxJobDatasets = 64;

// Why `item` cannot be the next item of list field `field` (kList) after `before`, the items
// given so far, in the words the parser's 400 uses; "" when it can (the service still checks
// what only it knows, e.g. whether a dataset is registered). Thread-safe.
std::string list_item_error(const std::string& field, const std::string& item,
                            const std::vector<std::string>& before);

// Limits the service imposes (from its config).
struct RequestLimits {
  int max_gpus = 64;        // per job (serve: 64 × the cluster's nodes)
  double max_grace_s = 60;  // the engine's checkpoint grace: no job may ask more
  size_t max_command_bytes = 16384;
  size_t max_env_vars = 256;
  std::string backend = "live";  // named when a simulation-only field is refused
};

struct FieldError {
  std::string field;
  std::string message;
};

// Parses and validates a request body. Error: the field at fault and why. `catalog`
// resolves gpu_model. Thread-safe (reads only its arguments).
std::variant<JobRequest, FieldError> parse_job_request(const nlohmann::json& body,
                                                       const GpuCatalog& catalog,
                                                       const RequestLimits& limits);

// The request as stored and returned by the API (all fields of the table, canonical; `datasets`
// when not empty).
nlohmann::json to_json(const JobRequest& r);
// Inverse of to_json for stored requests (trusted input: unknown fields are ignored).
Result<JobRequest> job_request_from_stored(const nlohmann::json& j);

// Signal name ("SIGUSR1", "USR1", or a number 1..64) → number; 0 when invalid.
int parse_signal(const std::string& s);

}  // namespace frugal
