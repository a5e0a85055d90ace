#include "agent/process_jobs.h"

#include <fstream>
#include <iterator>
#include <sstream>

namespace frugal {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 20) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

bool ProcessJobs::stat(int64_t pid, Stat& s) const {
  std::ifstream in(proc_ + "/" + std::to_string(pid) + "/stat");
  if (!in) return false;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // "pid (comm) state ppid pgrp ... starttime(22nd field)": comm may hold spaces and ')'.
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(text.substr(close + 1));
  std::string state;
  rest >> state >> s.ppid;
  std::string skip;
  for (int field = 5; field < 22 && rest >> skip; ++field) {
  }
  rest >> s.start;
  return static_cast<bool>(rest);
}

ProcessJobs::Owner ProcessJobs::from_environ(int64_t pid, bool* read) const {
  Owner o;
  std::ifstream in(proc_ + "/" + std::to_string(pid) + "/environ", std::ios::binary);
  if (!in) return o;
  for (std::string var; std::getline(in, var, '\0');) {
    if (read) *read = true;
    if (var.rfind("FRUGAL_JOB_ID=", 0) == 0 && all_digits(var.substr(14))) o.job = var.substr(14);
    if (var.rfind("SLURM_JOB_ID=", 0) == 0 && all_digits(var.substr(13)))
      o.slurm_job = var.substr(13);
  }
  return o;
}

std::string ProcessJobs::slurm_cgroup(int64_t pid) const {
  std::ifstream in(proc_ + "/" + std::to_string(pid) + "/cgroup");
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("/job_");
    if (at == std::string::npos) continue;
    const size_t from = at + 5, to = line.find('/', from);
    const std::string id =
        line.substr(from, to == std::string::npos ? std::string::npos : to - from);
    if (all_digits(id)) return id;
  }
  return "";
}

ProcessJobs::Owner ProcessJobs::owner(int64_t pid) {
  Stat s;
  if (!stat(pid, s)) return {};
  const auto key = std::make_pair(pid, s.start);
  if (const auto it = cache_.find(key); it != cache_.end()) {
    used_[key] = it->second;
    return it->second;
  }
  Owner o;
  int64_t p = pid;
  Stat ps = s;
  bool own_read = false;  // its own environment had something in it
  for (int depth = 0; depth < 32 && p > 1; ++depth) {
    const Owner e = from_environ(p, depth == 0 ? &own_read : nullptr);
    if (o.job.empty()) o.job = e.job;
    if (o.slurm_job.empty()) o.slurm_job = e.slurm_job;
    if (!o.job.empty()) break;
    p = ps.ppid;
    if (p <= 1 || !stat(p, ps)) break;
  }
  if (o.slurm_job.empty()) o.slurm_job = slurm_cgroup(pid);
  // An empty environment is read again next time: unreadable (another user's), or a
  // process caught inside execve, before the kernel has set its new environment up.
  if (own_read || !o.job.empty()) {
    cache_[key] = o;
    used_[key] = o;
  }
  return o;
}

void ProcessJobs::map(std::vector<GpuTelemetry>& gpus) {
  for (GpuTelemetry& g : gpus)
    for (GpuProcess& p : g.processes) {
      const Owner o = owner(p.pid);
      p.job = o.job;
      p.slurm_job = o.slurm_job;
    }
}

void ProcessJobs::prune() {
  cache_.swap(used_);
  used_.clear();
}

}  // namespace frugal
