#pragma once
// Gives job classes to a trace that has none (e.g. Microsoft Philly/ITP), by a documented,
// seeded rule (docs/EXPERIMENTS.md gives the proportions it produces on ITP cluster04):
//
//   gpus >= 8 or duration > 24 h           → pretrain
//   1 GPU and duration <= 1 h              → eval 55 %, preprocess 30 %, finetune 15 %
//   everything else (2-4 GPUs, or 1 GPU
//   for 1-24 h)                            → finetune 70 %, eval 15 %, pretrain 15 %
//
// One uniform draw per job from std::mt19937_64(seed), in trace order (drawn for every job,
// so a job's draw depends only on its position); the same seed and trace give the same
// classes. Tiers are left as they are.

#include <array>
#include <cstdint>
#include <vector>

#include "model/job.h"

namespace frugal {

void assign_classes(std::vector<JobSpec>& jobs, uint64_t seed);

// Makes a seeded share of GPU jobs deferrable with a deadline (for time-shifting
// experiments on traces without either, docs/EXPERIMENTS.md): one uniform draw per job from
// std::mt19937_64(seed ^ 0x7469'6d65'7368'6966) in trace order (drawn for every job); a job
// with GPUs, duration <= max_duration_s (0 = any) and draw < share becomes deferrable with deadline
// = submit + duration + slack_s (its run time on the reference model plus the slack; slack_s <= 0
// leaves the deadline unset, so the time-shift slack applies). Other jobs are left as they are.
void assign_deferrable(std::vector<JobSpec>& jobs, double share, double slack_s, uint64_t seed,
                       double max_duration_s = 0);

// Makes a seeded share of GPU jobs movable between regions (follow-the-sun experiments on
// traces without the flag, docs/EXPERIMENTS.md): one uniform draw per job from
// std::mt19937_64(seed ^ 0x7375'6e6d'6f76'65) in trace order (drawn for every job); a job with
// GPUs and draw < share becomes movable, and takes `dataset_gb` and `checkpoint_gb` (its data
// that moves with it, src/cost/transfer.h) where it declares none. Other jobs are left as
// they are.
void assign_movable(std::vector<JobSpec>& jobs, double share, uint64_t seed, double dataset_gb = 0,
                    double checkpoint_gb = 0);

// Makes a seeded share of whole-GPU training jobs (pretrain, finetune; call after
// assign_classes) elastic, for experiments on traces that declare no bounds
// (docs/EXPERIMENTS.md): one uniform draw per job from std::mt19937_64(seed ^ 0x656c'6173'7469'63)
// in trace order (drawn for every job); a chosen job of g GPUs gets min_gpus = ceil(g / 2) and
// max_gpus = 2 g (data-parallel training that tolerates half or twice its replicas). Jobs that
// already declare bounds, fractional and CPU-only jobs are left as they are.
void assign_elastic(std::vector<JobSpec>& jobs, double share, uint64_t seed);

// Gives jobs that declare no checkpointing a checkpoint model (spot experiments on traces
// without one, docs/EXPERIMENTS.md): interval_s > 0 becomes the checkpoint_interval of jobs
// whose interval is 0, and write_s >= 0 the checkpoint_grace (time to write one) of jobs
// whose grace is unset (< 0). No draw: every such job gets them.
void assign_checkpoints(std::vector<JobSpec>& jobs, Seconds interval_s, Seconds write_s);

// Gives priority tiers by job class (for traces without tiers, e.g. ITP; call after
// assign_classes): one uniform draw per job from std::mt19937_64(seed ^ 0x7469'6572'7331)
// in trace order (drawn for every job):
//   pretrain                   → core 20 %, important 30 %, general 50 %
//   finetune                   → important 30 %, general 70 %
//   eval, preprocess, CPU-only → general
void assign_tiers(std::vector<JobSpec>& jobs, uint64_t seed);

// Jobs per class (indexed by JobClass).
std::array<size_t, kJobClassCount> class_counts(const std::vector<JobSpec>& jobs);

}  // namespace frugal
