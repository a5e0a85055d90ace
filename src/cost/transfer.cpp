#include "cost/transfer.h"

namespace frugal {

double transfer_gb(const JobSpec& job, bool with_checkpoint) {
  return job.dataset_gb + (with_checkpoint ? job.checkpoint_gb : 0.0);
}

double transfer_usd(const ClusterSpec& spec, const JobSpec& job, uint32_t from, uint32_t to,
                    bool with_checkpoint) {
  if (from == to) return 0;
  return transfer_gb(job, with_checkpoint) * spec.regions[from].egress_usd_per_gb;
}

int64_t data_home(const ClusterSpec& spec, const JobSpec& job) {
  return job.data_region.empty() ? -1 : spec.region_index(job.data_region);
}

}  // namespace frugal
