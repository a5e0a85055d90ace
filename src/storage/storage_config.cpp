#include "storage/storage_config.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

namespace frugal::storage {

const TierConfig* find_tier(const StorageConfig& config, const std::string& name) {
  for (const TierConfig& t : config.tiers)
    if (t.name == name) return &t;
  return nullptr;
}

const LifecyclePolicy& policy_for(const StorageConfig& config, const std::string& team) {
  const auto it = config.team_policies.find(team);
  return it == config.team_policies.end() ? config.default_policy : it->second;
}

std::string check_folder(const std::string& path) {
  if (path.empty()) return "is empty";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fmt::format("{} does not exist", path);
  if (!S_ISDIR(st.st_mode)) return fmt::format("{} is not a directory", path);
  const std::string probe = fmt::format("{}/.frugal-probe-{}", path, ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fmt::format("{} is not writable: {}", path, std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

namespace {

Status check_tier(const TierConfig& t) {
  const std::string where = "storage.tiers." + t.name;
  if (const std::string why = check_folder(t.path); !why.empty())
    return Error{fmt::format("{}.path: {}", where, why)};
  if (!t.standby_path.empty())
    if (const std::string why = check_folder(t.standby_path); !why.empty())
      return Error{fmt::format("{}.standby_path: {}", where, why)};
  if (t.usd_per_gb_month < 0) return Error{fmt::format("{}.usd_per_gb_month: must be >= 0", where)};
  if (t.transfer_usd_per_gb < 0)
    return Error{fmt::format("{}.transfer_usd_per_gb: must be >= 0", where)};
  if (t.read_mb_s < 0 || t.write_mb_s < 0)
    return Error{fmt::format("{}: read_mb_s and write_mb_s must be >= 0", where)};
  if (!t.mover_command.empty() && t.name != "cold")
    return Error{fmt::format("{}.mover_command: only the cold tier takes a mover command", where)};
  return {};
}

Status check_policy(const LifecyclePolicy& p, const std::string& where) {
  if (p.keep_hot < 0) return Error{fmt::format("{}.keep_hot: must be >= 0", where)};
  if (p.retain_count < 0) return Error{fmt::format("{}.retain_count: must be >= 0", where)};
  if (p.retain_age_s < 0) return Error{fmt::format("{}.retain_age_s: must be >= 0", where)};
  return {};
}

}  // namespace

Status validate(const StorageConfig& config) {
  std::set<std::string> seen;
  for (const TierConfig& t : config.tiers) {
    Tier parsed{};
    if (!parse_tier(t.name, parsed))
      return Error{fmt::format("storage.tiers: unknown tier '{}' (hot, warm or cold)", t.name)};
    if (!seen.insert(t.name).second)
      return Error{fmt::format("storage.tiers.{}: given twice", t.name)};
  }
  if (config.enabled)
    for (const char* need : {"hot", "warm"})
      if (!seen.count(need)) return Error{fmt::format("storage.tiers.{}: missing", need)};
  for (const TierConfig& t : config.tiers)
    if (Status s = check_tier(t); !s.ok()) return s;
  if (config.marker.empty() || config.marker.find('/') != std::string::npos)
    return Error{"storage.checkpoint_marker: must be a plain file name"};
  if (config.lifecycle_interval_s <= 0) return Error{"storage.lifecycle_interval_s: must be > 0"};
  if (config.hot_unused_after_s < 0) return Error{"storage.hot_unused_after_s: must be >= 0"};
  if (Status s = check_policy(config.default_policy, "storage.lifecycle"); !s.ok()) return s;
  for (const auto& [team, p] : config.team_policies)
    if (Status s = check_policy(p, "storage.team_policies." + team); !s.ok()) return s;
  return {};
}

}  // namespace frugal::storage
