// The ledger's opt-in checkpoint lifecycle pricing (Ledger::set_checkpoint_lifecycle,
// SimOptions::storage_lifecycle), end to end through simulate(). Default tiers: hot $0.10,
// warm $0.02, cold $0.004 per GB and 30-day month (720 h).

#include <gtest/gtest.h>

#include "cost/ledger.h"
#include "cost_test_util.h"
#include "storage/plan/checkpoint_storage.h"

namespace frugal {
namespace {

using testing::gpu_node;
using testing::hand_cluster;
using testing::kA100;
using testing::kHour;
using testing::run_priced;

constexpr double kLifecycleEps = 1e-9;

// 10 h on 2 GPUs from 0, 100 GB dataset, a 20 GB checkpoint every hour.
JobSpec checkpointing_job(std::string id = "j", Seconds interval = kHour) {
  JobSpec j = testing::job(std::move(id), 0, 2, 10 * kHour);
  j.team = "t";
  j.dataset_gb = 100;
  j.checkpoint_gb = 20;
  j.checkpoint_interval = interval;
  return j;
}

storage::LifecyclePolicies keep_one_hot_rest_warm() {
  storage::LifecyclePolicies p;
  p.default_policy.keep_hot = 1;
  p.default_policy.warm_after_s = 0;
  p.default_policy.cold_after_s = -1;
  p.sweep_s = 600;
  return p;
}

double storage_usd(const std::vector<JobSpec>& jobs, const ClusterSpec& c,
                   std::optional<storage::LifecyclePolicies> lifecycle) {
  SimOptions o;
  o.storage_lifecycle = std::move(lifecycle);
  const SimResult r = run_priced(jobs, c, "fifo", o);
  return r.ledger.total.storage_usd;
}

TEST(StorageLedgerLifecycle, OffByDefaultOneCopyOnTheDeclaredTier) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2)});
  EXPECT_NEAR(storage_usd({checkpointing_job()}, c, std::nullopt), 120 * 0.10 * 10 / 720.0,
              kLifecycleEps);
}

TEST(StorageLedgerLifecycle, PricesTheCheckpointSeriesPerTier) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2)});
  // Checkpoints complete at 1 h .. 10 h; the newest stays hot, the others go warm at once:
  // hot 20 GB x 9 h, warm 20 GB x (8 + 7 + ... + 0) h = 720 GB-h. Dataset: 100 GB hot 10 h.
  const double want = 100 * 0.10 * 10 / 720.0 + 20 * 9 * 0.10 / 720.0 + 720 * 0.02 / 720.0;
  EXPECT_NEAR(storage_usd({checkpointing_job()}, c, keep_one_hot_rest_warm()), want, kLifecycleEps);
  // Keeping every checkpoint hot: 20 GB x 45 h.
  storage::LifecyclePolicies all;
  all.default_policy = storage::keep_everything_policy();
  EXPECT_NEAR(storage_usd({checkpointing_job()}, c, all),
              100 * 0.10 * 10 / 720.0 + 20 * 45 * 0.10 / 720.0, kLifecycleEps);
}

TEST(StorageLedgerLifecycle, PerTeamPolicies) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 4)});
  JobSpec a = checkpointing_job("a");
  JobSpec b = checkpointing_job("b");
  b.team = "lean";
  storage::LifecyclePolicies p = keep_one_hot_rest_warm();
  p.team_policies["lean"] = p.default_policy;
  p.team_policies["lean"].retain_count = 1;  // only the newest kept
  SimOptions o;
  o.storage_lifecycle = p;
  const SimResult r = run_priced({a, b}, c, "fifo", o);
  const double dataset = 100 * 0.10 * 10 / 720.0;
  EXPECT_NEAR(r.ledger.by_team.at("t").storage_usd,
              dataset + 20 * 9 * 0.10 / 720.0 + 720 * 0.02 / 720.0, kLifecycleEps);
  EXPECT_NEAR(r.ledger.by_team.at("lean").storage_usd, dataset + 20 * 9 * 0.10 / 720.0,
              kLifecycleEps);
}

TEST(StorageLedgerLifecycle, JobsWithoutPeriodicCheckpointsAndClustersWithoutTiersUnchanged) {
  const ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("n", kA100, 2)});
  const double one_copy = 120 * 0.10 * 10 / 720.0;
  EXPECT_NEAR(storage_usd({checkpointing_job("j", 0)}, c, keep_one_hot_rest_warm()), one_copy,
              kLifecycleEps);
  ClusterSpec no_cold = c;
  no_cold.storage_tiers = {{"hot", 0.10}, {"warm", 0.02}};
  EXPECT_NEAR(storage_usd({checkpointing_job()}, no_cold, keep_one_hot_rest_warm()), one_copy,
              kLifecycleEps);
}

}  // namespace
}  // namespace frugal
