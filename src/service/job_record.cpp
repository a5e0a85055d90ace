#include "service/job_record.h"

#include <array>

namespace frugal {
namespace {
constexpr std::array<std::string_view, 8> kNames = {
    "queued", "deferred", "running", "preempted", "completed", "failed", "cancelled", "unknown"};
}

std::string_view to_string(JobStatus s) {
  return kNames[static_cast<size_t>(s)];
}

std::optional<JobStatus> parse_job_status(std::string_view s) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<JobStatus>(i);
  return std::nullopt;
}

}  // namespace frugal
