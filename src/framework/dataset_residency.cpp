#include "framework/dataset_residency.h"

#include <algorithm>

namespace frugal {

void DatasetResidency::resident(NodeId n, const std::string& name, double gb) {
  if (gb > 0) size_[name] = gb;
  where_[name][n] = gb;
}

bool DatasetResidency::evicted(NodeId n, const std::string& name) {
  const auto it = where_.find(name);
  if (it == where_.end() || it->second.erase(n) == 0) return false;
  if (it->second.empty()) where_.erase(it);
  return true;
}

void DatasetResidency::clear_node(NodeId n) {
  for (auto it = where_.begin(); it != where_.end();) {
    it->second.erase(n);
    it = it->second.empty() ? where_.erase(it) : std::next(it);
  }
}

void DatasetResidency::set_size(const std::string& name, double gb) {
  if (gb > 0) size_[name] = gb;
}

void DatasetResidency::set_bandwidth(NodeId n, double gb_per_s) {
  if (gb_per_s > 0)
    bandwidth_[n] = gb_per_s;
  else
    bandwidth_.erase(n);
}

bool DatasetResidency::holds(NodeId n, const std::string& name) const {
  const auto it = where_.find(name);
  return it != where_.end() && it->second.count(n) != 0;
}

double DatasetResidency::size(const std::string& name) const {
  const auto it = size_.find(name);
  return it == size_.end() ? -1 : it->second;
}

double DatasetResidency::bandwidth(NodeId n, double fallback) const {
  const auto it = bandwidth_.find(n);
  return it == bandwidth_.end() ? fallback : it->second;
}

double DatasetResidency::min_bandwidth(double fallback) const {
  double m = fallback;
  for (const auto& [n, bw] : bandwidth_) m = std::min(m, bw);
  return m;
}

std::vector<std::string> DatasetResidency::job_datasets(const JobSpec& job) {
  std::vector<std::string> out;
  for (const std::string& d : job.datasets)
    if (!d.empty() && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  if (!job.dataset.empty() && std::find(out.begin(), out.end(), job.dataset) == out.end())
    out.push_back(job.dataset);
  return out;
}

double DatasetResidency::size_for(const JobSpec& job, const std::string& name) const {
  const double s = size(name);
  if (s > 0) return s;
  return name == job.dataset && job.dataset_gb > 0 ? job.dataset_gb : -1;
}

double DatasetResidency::job_gb(const JobSpec& job) const {
  double gb = 0;
  for (const std::string& d : job_datasets(job)) gb += std::max(0.0, size_for(job, d));
  return gb;
}

double DatasetResidency::held_gb(NodeId n, const JobSpec& job) const {
  double gb = 0;
  for (const std::string& d : job_datasets(job))
    if (holds(n, d)) gb += std::max(0.0, size_for(job, d));
  return gb;
}

std::vector<NodeId> DatasetResidency::nodes_holding(const JobSpec& job) const {
  std::vector<NodeId> out;
  for (const std::string& d : job_datasets(job)) {
    const auto it = where_.find(d);
    if (it == where_.end()) continue;
    for (const auto& [n, gb] : it->second) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace frugal
