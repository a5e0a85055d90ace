#pragma once
// Inter-region data transfer: what it costs to move a job's data between regions.
//
// A job's data (JobSpec::dataset_gb, and once it has made progress its checkpoint,
// JobSpec::checkpoint_gb) lives in one region: JobSpec::data_region, or where it first
// runs when that is empty. Each run segment that begins in another region — a start, a
// restart after a preemption, a follow-the-sun relay (kMigrate) — first copies the data
// there, priced at the source region's Region::egress_usd_per_gb; the data then lives in
// the new region. Ingress is free (as on the public clouds). Pure functions.

#include <cstdint>

#include "model/cluster_spec.h"
#include "model/job.h"

namespace frugal {

// GB that move with `job` to another region: its dataset, plus its checkpoint when
// `with_checkpoint` (it has progress to resume from).
double transfer_gb(const JobSpec& job, bool with_checkpoint);

// USD to move them from region `from` to region `to`: transfer_gb × egress price of `from`;
// 0 when from == to. Both must be valid region indices.
double transfer_usd(const ClusterSpec& spec, const JobSpec& job, uint32_t from, uint32_t to,
                    bool with_checkpoint);

// The region the job's data lives in before it first runs: the index of data_region, or
// -1 (none declared, or an unknown name: the data is wherever the job first runs).
int64_t data_home(const ClusterSpec& spec, const JobSpec& job);

}  // namespace frugal
