#include "io/trace_writer.h"

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

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

}  // namespace frugal
