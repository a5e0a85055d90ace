#include "sim/class_assignment.h"

#include <random>

namespace frugal {

void assign_classes(std::vector<JobSpec>& jobs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (JobSpec& j : jobs) {
    const double u = uniform(rng);
    if (j.gpus >= 8 || j.duration > 24 * 3600.0) {
      j.job_class = JobClass::kPretrain;
    } else if (j.gpus <= 1 && j.duration <= 3600.0) {
      j.job_class = u < 0.55   ? JobClass::kEval
                    : u < 0.85 ? JobClass::kPreprocess
                               : JobClass::kFinetune;
    } else {
      j.job_class = u < 0.70   ? JobClass::kFinetune
                    : u < 0.85 ? JobClass::kEval
                               : JobClass::kPretrain;
    }
  }
}

void assign_deferrable(std::vector<JobSpec>& jobs, double share, double slack_s, uint64_t seed,
                       double max_duration_s) {
  std::mt19937_64 rng(seed ^ 0x7469'6d65'7368'6966ULL);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (JobSpec& j : jobs) {
    const double u = uniform(rng);
    if (j.gpus == 0 || !(u < share) || (max_duration_s > 0 && j.duration > max_duration_s))
      continue;
    j.deferrable = true;
    if (slack_s > 0) j.deadline = j.submit + j.duration + slack_s;
  }
}

void assign_movable(std::vector<JobSpec>& jobs, double share, uint64_t seed, double dataset_gb,
                    double checkpoint_gb) {
  std::mt19937_64 rng(seed ^ 0x7375'6e6d'6f76'65ULL);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (JobSpec& j : jobs) {
    const double u = uniform(rng);
    if (j.gpus == 0 || !(u < share)) continue;
    j.movable = true;
    if (j.dataset_gb <= 0) j.dataset_gb = dataset_gb;
    if (j.checkpoint_gb <= 0) j.checkpoint_gb = checkpoint_gb;
  }
}

void assign_elastic(std::vector<JobSpec>& jobs, double share, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x656c'6173'7469'63ULL);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (JobSpec& j : jobs) {
    const double u = uniform(rng);
    const bool training = j.job_class == JobClass::kPretrain || j.job_class == JobClass::kFinetune;
    if (!training || j.gpus <= 0 || j.fractional() || j.max_gpus > 0 || !(u < share)) continue;
    j.min_gpus = (j.gpus + 1) / 2;
    j.max_gpus = 2 * j.gpus;
  }
}

void assign_checkpoints(std::vector<JobSpec>& jobs, Seconds interval_s, Seconds write_s) {
  for (JobSpec& j : jobs) {
    if (interval_s > 0 && j.checkpoint_interval <= 0) j.checkpoint_interval = interval_s;
    if (write_s >= 0 && j.checkpoint_grace < 0) j.checkpoint_grace = write_s;
  }
}

void assign_tiers(std::vector<JobSpec>& jobs, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x7469'6572'7331ULL);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (JobSpec& j : jobs) {
    const double u = uniform(rng);
    if (j.gpus == 0) {
      j.tier = Tier::kGeneral;
    } else if (j.job_class == JobClass::kPretrain) {
      j.tier = u < 0.2 ? Tier::kCore : u < 0.5 ? Tier::kImportant : Tier::kGeneral;
    } else if (j.job_class == JobClass::kFinetune) {
      j.tier = u < 0.3 ? Tier::kImportant : Tier::kGeneral;
    } else {
      j.tier = Tier::kGeneral;
    }
  }
}

std::array<size_t, kJobClassCount> class_counts(const std::vector<JobSpec>& jobs) {
  std::array<size_t, kJobClassCount> n{};
  for (const JobSpec& j : jobs) ++n[static_cast<size_t>(j.job_class)];
  return n;
}

}  // namespace frugal
