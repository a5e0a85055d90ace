#include "drivers/sacct_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "drivers/slurm_parse.h"

namespace frugal {
namespace {

using nlohmann::json;

// Slurm's "no value" and "infinite" for 32-bit fields (NO_VAL, INFINITE).
constexpr int64_t kNoVal32 = 0xfffffffe;

// A field's error: "<where>: <field>: <what>".
Error field_error(const std::string& where, std::string_view field, const std::string& what) {
  return Error{fmt::format("{}: {}: {}", where, field, what)};
}

std::string shown(const json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// The child at `path` ("time.start") of `job`, or nullptr when a step of it is absent or null.
const json* find(const json& job, std::string_view path) {
  const json* at = &job;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    const std::string key(path.substr(0, dot));
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return at;
}

// Reads one job's fields, naming `where` and the field in errors.
class JobReader {
 public:
  JobReader(const json& job, std::string where) : job_(job), where_(std::move(where)) {}
  const std::string& where() const { return where_; }
  void set_where(std::string w) { where_ = std::move(w); }

  // An integer (or 23.02's {"number": N, "set": true}); nullopt when absent or not set.
  Result<std::optional<int64_t>> integer(std::string_view path) const {
    const json* v = find(job_, path);
    if (v && v->is_object()) {
      const json* set = find(*v, "set");
      if (set && set->is_boolean() && !set->get<bool>()) return std::optional<int64_t>();
      const json* inf = find(*v, "infinite");
      if (inf && inf->is_boolean() && inf->get<bool>()) return std::optional<int64_t>();
      v = find(*v, "number");
    }
    if (!v) return std::optional<int64_t>();
    if (!v->is_number_integer())
      return field_error(where_, path, "expected an integer, got " + shown(*v));
    return std::optional<int64_t>(v->get<int64_t>());
  }
  Result<int64_t> required_integer(std::string_view path) const {
    auto v = integer(path);
    if (!v.ok()) return v.error();
    if (!v.value()) return field_error(where_, path, "missing");
    return *v.value();
  }
  // A string; "" when absent.
  Result<std::string> text(std::string_view path) const {
    const json* v = find(job_, path);
    if (!v) return std::string();
    if (!v->is_string()) return field_error(where_, path, "expected a string, got " + shown(*v));
    return v->get<std::string>();
  }
  const json* at(std::string_view path) const { return find(job_, path); }

 private:
  const json& job_;
  std::string where_;
};

// state.current: "COMPLETED" (22.05), or ["COMPLETED"] (later versions).
Result<std::string> read_state(const JobReader& r) {
  const json* v = r.at("state.current");
  if (!v) return field_error(r.where(), "state.current", "missing");
  if (v->is_array() && !v->empty() && (*v)[0].is_string()) return (*v)[0].get<std::string>();
  if (!v->is_string() || v->get<std::string>().empty())
    return field_error(r.where(), "state.current", "expected a job state, got " + shown(*v));
  return v->get<std::string>();
}

// The GPUs in a TRES list: gres entries named gpu[:type] or shard[:type]. Whole GPUs win
// over shards when a job has both.
Result<GresItem> read_gpu_tres(const JobReader& r, std::string_view path) {
  GresItem gpu{"gpu", "", 0, {}}, shard{"shard", "", 0, {}};
  const json* list = r.at(path);
  if (!list) return GresItem{};
  if (!list->is_array())
    return field_error(r.where(), path, "expected a list, got " + shown(*list));
  for (size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    const std::string at = fmt::format("{}[{}]", path, i);
    JobReader er(e, r.where());
    auto type = er.text("type");
    auto name = er.text("name");
    if (!type.ok() || !name.ok())
      return field_error(r.where(), at, (type.ok() ? name : type).error().message);
    if (type.value() != "gres") continue;
    const std::string& n = name.value();
    const size_t colon = n.find(':');
    const std::string base = n.substr(0, colon);
    if (base != "gpu" && base != "shard") continue;
    auto count = er.integer("count");
    if (!count.ok() || !count.value() || *count.value() < 0)
      return field_error(r.where(), at + ".count",
                         count.ok() ? "missing or negative" : count.error().message);
    // "gpu" and "gpu:h100" both count the same GPUs; the typed entry names their type.
    GresItem& g = base == "gpu" ? gpu : shard;
    if (colon != std::string::npos && g.type.empty()) g.type = n.substr(colon + 1);
    g.count = std::max(g.count, *count.value());
  }
  if (gpu.count > 0) return gpu;
  if (shard.count > 0) return shard;
  return GresItem{};
}

Status read_strings(const JobReader& r, SlurmRecord& rec) {
  struct Field {
    std::string_view path;
    std::string SlurmRecord::*member;
  };
  static constexpr Field kFields[] = {{"name", &SlurmRecord::name},
                                      {"user", &SlurmRecord::user},
                                      {"account", &SlurmRecord::account},
                                      {"partition", &SlurmRecord::partition},
                                      {"qos", &SlurmRecord::qos}};
  for (const Field& f : kFields) {
    auto v = r.text(f.path);
    if (!v.ok()) return v.error();
    rec.*f.member = std::move(v).value();
  }
  auto state = read_state(r);
  if (!state.ok()) return state.error();
  rec.state = std::move(state).value();
  auto nodes = r.text("nodes");
  if (!nodes.ok()) return nodes.error();
  if (nodes.value() != "None assigned") {
    auto list = expand_hostlist(nodes.value());
    if (!list.ok()) return field_error(r.where(), "nodes", list.error().message);
    rec.nodes = std::move(list).value();
  }
  return Status::Ok();
}

Status read_times(const JobReader& r, SlurmRecord& rec) {
  struct Field {
    std::string_view path;
    int64_t SlurmRecord::*member;
  };
  static constexpr Field kTimes[] = {{"time.submission", &SlurmRecord::submit_unix},
                                     {"time.start", &SlurmRecord::start_unix},
                                     {"time.end", &SlurmRecord::end_unix}};
  for (const Field& f : kTimes) {
    auto v = r.required_integer(f.path);
    if (!v.ok()) return v.error();
    if (v.value() < 0) return field_error(r.where(), f.path, "negative time");
    rec.*f.member = v.value();
  }
  auto limit = r.integer("time.limit");  // minutes
  if (!limit.ok()) return limit.error();
  if (limit.value() && *limit.value() > 0 && *limit.value() < kNoVal32)
    rec.time_limit_s = *limit.value() * 60;
  // Slurm gives a job cancelled while pending start = end (and no nodes), or start 0.
  rec.ran = rec.start_unix > 0 && rec.end_unix >= rec.start_unix &&
            (!rec.nodes.empty() || rec.end_unix > rec.start_unix);
  return Status::Ok();
}

Status read_array(const JobReader& r, SlurmRecord& rec) {
  auto array_job = r.integer("array.job_id");
  if (!array_job.ok()) return array_job.error();
  auto task = r.integer("array.task_id");
  if (!task.ok()) return task.error();
  if (array_job.value() && *array_job.value() > 0 && task.value() && *task.value() >= 0 &&
      *task.value() < kNoVal32)
    rec.array_id = fmt::format("{}_{}", *array_job.value(), *task.value());
  return Status::Ok();
}

Result<SlurmRecord> read_job(const json& job, const std::string& origin, size_t index) {
  JobReader r(job, fmt::format("{}: jobs[{}]", origin, index));
  if (!job.is_object()) return Error{r.where() + ": expected an object, got " + shown(job)};
  SlurmRecord rec;
  auto id = r.required_integer("job_id");
  if (!id.ok()) return id.error();
  if (id.value() <= 0) return field_error(r.where(), "job_id", "not a job id");
  rec.job_id = id.value();
  rec.where = r.where();  // the importer adds the job id
  r.set_where(fmt::format("{}: jobs[{}] (job {})", origin, index, rec.job_id));
  if (Status st = read_strings(r, rec); !st.ok()) return st.error();
  if (Status st = read_times(r, rec); !st.ok()) return st.error();
  if (Status st = read_array(r, rec); !st.ok()) return st.error();
  for (const std::string_view path : {"tres.allocated", "tres.requested"}) {
    auto g = read_gpu_tres(r, path);
    if (!g.ok()) return g.error();
    if (g.value().count > 0) {
      rec.gres = std::move(g).value();
      rec.gres_field = std::string(path);
      break;
    }
  }
  return rec;
}

// Line and column (1-based) of the 1-based byte offset `byte` (as nlohmann counts) in `text`.
std::pair<size_t, size_t> text_position(std::string_view text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace

Result<std::vector<SlurmRecord>> parse_sacct_json(std::string_view text,
                                                  const std::string& origin) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto [line, column] = text_position(text, e.byte);
    return Error{fmt::format("{}:{}: not valid JSON (line {}, column {}, byte {}): {}", origin,
                             line, line, column, e.byte, e.what())};
  }
  if (!doc.is_object()) return Error{origin + ": expected a JSON object (sacct --json output)"};
  if (const json* errors = find(doc, "errors"); errors && errors->is_array() && !errors->empty()) {
    const json& first = (*errors)[0];
    const json* msg = find(first, "error");
    return Error{fmt::format("{}: errors[0]: sacct reported an error: {}", origin,
                             msg && msg->is_string() ? msg->get<std::string>() : shown(first))};
  }
  const json* jobs = find(doc, "jobs");
  if (!jobs || !jobs->is_array())
    return Error{origin + ": jobs: missing or not a list (not sacct --json output?)"};
  std::vector<SlurmRecord> out;
  out.reserve(jobs->size());
  for (size_t i = 0; i < jobs->size(); ++i) {
    auto rec = read_job((*jobs)[i], origin, i);
    if (!rec.ok()) return rec.error();
    out.push_back(std::move(rec).value());
  }
  return out;
}

}  // namespace frugal
