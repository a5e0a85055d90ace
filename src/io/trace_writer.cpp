#include "io/trace_writer.h"

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace frugal {

Status write_native_csv(const std::vector<JobSpec>& jobs, const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!f) return Error{fmt::format("{}: cannot write: {}", path, std::strerror(errno))};
  fmt::print(f.get(), "id,team,class,tier,submit,gpus,gpu_milli,duration\n");
  for (const JobSpec& j : jobs)
    fmt::print(f.get(), "{},{},{},{},{},{},{},{}\n", j.id, j.team, to_string(j.job_class),
               to_string(j.tier), j.submit, j.gpus, j.gpu_milli, j.duration);
  if (std::fflush(f.get()) != 0)
    return Error{fmt::format("{}: write failed: {}", path, std::strerror(errno))};
  return Status::Ok();
}

namespace {

// A CSV cell for free text: one line, quoted where it holds a comma or a quote.
std::string cell(std::string t) {
  for (char& c : t)
    if (c == '\n' || c == '\r') c = ' ';
  if (t.find_first_of(",\"") == std::string::npos) return t;
  std::string q = "\"";
  for (const char c : t) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string seconds_or_empty(Seconds s, bool known) {
  return known ? fmt::format("{}", s) : "";
}

}  // namespace

Status write_history_csv(const std::vector<JobSpec>& jobs, const GpuCatalog& catalog,
                         const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!f) return Error{fmt::format("{}: cannot write: {}", path, std::strerror(errno))};
  fmt::print(f.get(),
             "id,team,name,class,tier,submit,gpus,gpu_milli,min_gpus,max_gpus,allowed_models,"
             "duration,estimate,deadline,deferrable,utilization,first_start,end,restarts\n");
  for (const JobSpec& j : jobs) {
    std::string models;
    for (const GpuModelId m : j.allowed_models)
      models += (models.empty() ? "" : "|") + catalog.at(m).name;
    fmt::print(f.get(), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", cell(j.id),
               cell(j.team), cell(j.name), to_string(j.job_class), to_string(j.tier), j.submit,
               j.gpus, j.gpu_milli, j.min_gpus, j.max_gpus, models, j.duration,
               seconds_or_empty(j.estimate, j.estimate >= 0),
               seconds_or_empty(j.deadline, j.deadline != kNever), j.deferrable ? "true" : "false",
               j.utilization, seconds_or_empty(j.recorded_start, j.recorded_start >= 0),
               seconds_or_empty(j.recorded_end, j.recorded_end >= 0), j.recorded_restarts);
  }
  if (std::fflush(f.get()) != 0)
    return Error{fmt::format("{}: write failed: {}", path, std::strerror(errno))};
  return Status::Ok();
}

}  // namespace frugal
