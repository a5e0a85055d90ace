// Spot capacity in simulation (Capacity::kSpot): seeded reclaim draws, reclaims that stop
// jobs (rework as spot_reclaim waste, none when the checkpoint fits the notice), frugal's
// spot placement (never core-tier work; eligible work on spot) and the spot report.

#include <gtest/gtest.h>

#include <string>

#include "../cost/cost_test_util.h"
#include "cluster/cluster_state.h"
#include "io/report.h"
#include "policy/spot_cost.h"
#include "sim/spot_reclaims.h"
#include "sim/summary.h"

namespace frugal::testing {
namespace {

// One region (flat default prices), a spot pool "sp" of `spot_nodes` 8-GPU A100 nodes
// (listed first, so baselines, provisioning in node order, take spot first) and an
// on-demand pool "od" of two; both autoscaled with a 60 s delay and 60 s idle timeout.
ClusterSpec spot_cluster(double rate, int spot_nodes = 2, double notice = 120) {
  ClusterSpec c;
  c.regions.push_back(Region{"r", "UTC"});
  Pool sp;
  sp.name = "sp";
  sp.capacity = Capacity::kSpot;
  sp.provisioning_delay_s = 60;
  sp.idle_timeout_s = 60;
  sp.spot.reclaim_rate_per_node_hour = rate;
  sp.spot.reclaim_notice_s = notice;
  Pool od = sp;
  od.name = "od";
  od.capacity = Capacity::kOnDemand;
  c.pools = {sp, od};
  for (int i = 0; i < spot_nodes; ++i)
    c.nodes.push_back(gpu_node("sp" + std::to_string(i), kA100, 8, 0, 0));
  for (int i = 0; i < 2; ++i) c.nodes.push_back(gpu_node("od" + std::to_string(i), kA100, 8, 0, 1));
  return c;
}

// An 8-GPU job of `hours` that checkpoints every hour and needs `write_s` to write one.
JobSpec checkpointing(std::string id, double hours, Seconds write_s) {
  JobSpec j = job(std::move(id), 0, 8, hours * kHour);
  j.checkpoint_interval = kHour;
  j.checkpoint_grace = write_s;
  return j;
}

TEST(SpotReclaims, InvertsTheCumulativeRate) {
  SpotTerms flat;
  flat.reclaim_rate_per_node_hour = 0.5;
  EXPECT_DOUBLE_EQ(reclaim_after(flat, 100, 1.0), 100 + 2 * kHour);
  flat.reclaim_rate_per_node_hour = 0;
  EXPECT_EQ(reclaim_after(flat, 100, 1.0), kNever);
  SpotTerms series;
  series.reclaim_rate_series = HourlySeries(0, {0, 1});  // hour 0: none, hour 1: 1 per hour
  EXPECT_DOUBLE_EQ(reclaim_after(series, 0, 0.5), 1.5 * kHour);
  // 2.5 expected reclaims from t = 0: two whole periods (4 h), then half of hour 5.
  EXPECT_DOUBLE_EQ(reclaim_after(series, 0, 2.5), 5.5 * kHour);
  series.reclaim_rate_series = HourlySeries(0, {0, 0});
  EXPECT_EQ(reclaim_after(series, 0, 0.5), kNever);
}

TEST(SpotReclaims, SameSeedSameDrawsAndRateZeroNone) {
  const ClusterSpec c = spot_cluster(0.05);
  SpotReclaims a(c, 7), b(c, 7), other(c, 8);
  for (int i = 0; i < 5; ++i) {
    const Seconds x = a.next(0, i * kHour);
    EXPECT_DOUBLE_EQ(x, b.next(0, i * kHour));
    EXPECT_GT(x, i * kHour);
    EXPECT_NE(x, other.next(0, i * kHour));
  }
  EXPECT_EQ(a.next(2, 0), kNever);  // an on-demand node is never reclaimed
  const ClusterSpec none = spot_cluster(0);
  SpotReclaims z(none, 7);
  EXPECT_EQ(z.next(0, 0), kNever);
}

TEST(SpotSim, ReclaimsAreSeededAndLoseWorkSinceTheLastCheckpoint) {
  // 0.5 reclaims per node-hour on a 40 h job: many reclaims. Its checkpoint (600 s) does
  // not fit the 120 s notice: each reclaim loses the work since its last hourly checkpoint.
  const ClusterSpec c = spot_cluster(0.5);
  const std::vector<JobSpec> jobs = {checkpointing("a", 40, 600)};
  SimOptions o;
  o.seed = 3;
  const SimResult r = run_priced(jobs, c, "fifo", o);
  const SimResult again = run_priced(jobs, c, "fifo", o);
  EXPECT_TRUE(r.spot);
  EXPECT_GT(r.spot_reclaims, 3);
  EXPECT_EQ(r.spot_reclaims, again.spot_reclaims);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, again.jobs[0].finish);
  EXPECT_DOUBLE_EQ(r.ledger.total.waste.spot_reclaim_usd,
                   again.ledger.total.waste.spot_reclaim_usd);
  o.seed = 4;
  const SimResult seed4 = run_priced(jobs, c, "fifo", o);
  EXPECT_NE(r.jobs[0].finish, seed4.jobs[0].finish);
  // The job finished, later than its 40 h, and every GPU-second it lost is a reclaim's.
  ASSERT_GT(r.jobs[0].finish, 0);
  EXPECT_GT(r.jobs[0].finish, 40 * kHour);
  EXPECT_GT(r.jobs[0].spot_rework_gpu_seconds, 0);
  EXPECT_DOUBLE_EQ(r.jobs[0].spot_rework_gpu_seconds, r.jobs[0].rework_gpu_seconds);
  // One job on one node: each reclaim stops it (but one after its end, before the node's
  // release, may stop nothing).
  EXPECT_LE(r.spot_jobs_stopped, r.spot_reclaims);
  EXPECT_GE(r.spot_jobs_stopped, r.spot_reclaims - 1);
  // At most an hour (one checkpoint interval) plus the notice lost per reclaim, 8 GPUs.
  EXPECT_LE(r.jobs[0].rework_gpu_seconds, r.spot_reclaims * 8.0 * (kHour + 120) + 1e-6);
  // The ledger charges it as spot_reclaim waste, not rework: spot rate $1.40/GPU-h (0.35 of
  // $4) plus energy, for the GPU-hours lost.
  const Waste& w = r.ledger.total.waste;
  EXPECT_EQ(w.rework_usd, 0);
  const double lost_h = r.jobs[0].spot_rework_gpu_seconds / 3600;
  EXPECT_GT(w.spot_reclaim_usd, lost_h * 1.4);
  EXPECT_LT(w.spot_reclaim_usd, lost_h * 1.4 * 1.5);
  // Mostly on spot (on demand only while both spot nodes were under notice or booting).
  EXPECT_GT(r.spot_gpu_seconds, 0.5 * 40 * kHour * 8);
}

TEST(SpotSim, RateZeroMeansNoReclaims) {
  const SimResult r = run_priced({checkpointing("a", 40, 600)}, spot_cluster(0), "fifo");
  EXPECT_EQ(r.spot_reclaims, 0);
  EXPECT_EQ(r.spot_notices, 0);
  EXPECT_EQ(r.jobs[0].rework_gpu_seconds, 0);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 60 + 40 * kHour);  // provisioning delay, then the run
  EXPECT_DOUBLE_EQ(r.spot_gpu_seconds, 40 * kHour * 8);
  EXPECT_EQ(r.ledger.total.waste.spot_reclaim_usd, 0);
}

TEST(SpotSim, ACheckpointThatFitsTheNoticeLosesNothing) {
  // 60 s to write a checkpoint, 120 s notice: the job stops saved at each notice.
  const SimResult r = run_priced({checkpointing("a", 40, 60)}, spot_cluster(0.5), "fifo");
  EXPECT_GT(r.spot_reclaims, 3);
  EXPECT_EQ(r.spot_notices, r.spot_reclaims);
  EXPECT_GE(r.spot_jobs_stopped, r.spot_reclaims - 1);
  EXPECT_EQ(r.jobs[0].rework_gpu_seconds, 0);
  EXPECT_EQ(r.ledger.total.waste.spot_reclaim_usd, 0);
  ASSERT_GT(r.jobs[0].finish, 0);
  EXPECT_GT(r.jobs[0].finish, 40 * kHour);  // requeued, waiting for a node each time
}

TEST(SpotCost, CandidatesAndTheSavingAgainstTheRework) {
  SpotTerms t;  // 0.35 × on-demand, 120 s notice, 1 % per node-hour
  JobSpec general = checkpointing("g", 10, 600);
  SpotCost c = spot_cost(general, t, 4, 8);
  EXPECT_TRUE(c.candidate);
  EXPECT_DOUBLE_EQ(c.saving_usd_gpu_h, 4 - 1.4);
  // λ k (L + h) r_spot = 0.01 × 1 × (0.5 h + 120 s) × 1.4.
  EXPECT_DOUBLE_EQ(c.rework_usd_gpu_h, 0.01 * (0.5 + 120.0 / 3600) * 1.4);
  EXPECT_TRUE(c.pays());
  JobSpec core = general;
  core.tier = Tier::kCore;
  EXPECT_FALSE(spot_cost(core, t, 4, 8).candidate);
  t.allow_core = true;
  EXPECT_TRUE(spot_cost(core, t, 4, 8).pays());
  t.allow_core = false;
  // Important tier: a candidate only when checkpointable or deferrable.
  JobSpec important = job("i", 0, 8, 10 * kHour);
  important.tier = Tier::kImportant;
  EXPECT_FALSE(spot_cost(important, t, 4, 8).candidate);
  important.deferrable = true;
  EXPECT_TRUE(spot_cost(important, t, 4, 8).candidate);
  // A 64-GPU gang (8 nodes) without periodic checkpoints whose checkpoint does not fit the
  // notice loses half its 100 h run per reclaim: at 5 % per node-hour that is more than the
  // saving.
  JobSpec gang = job("x", 0, 64, 100 * kHour);
  gang.checkpoint_grace = 600;
  t.reclaim_rate_per_node_hour = 0.05;
  const SpotCost g = spot_cost(gang, t, 4, 8);
  EXPECT_DOUBLE_EQ(g.rework_usd_gpu_h, 0.05 * 8 * (50 + 120.0 / 3600) * 1.4);
  EXPECT_FALSE(g.pays());
}

TEST(SpotGuard, KeepsWorkThatDoesNotPayOffSpotNodes) {
  const ClusterSpec c = spot_cluster(0.01);
  ClusterState st(c, priced_gpus());
  st.set_guard(make_spot_guard(c, priced_gpus()));
  JobSpec core = job("c", 0, 8, kHour);
  core.tier = Tier::kCore;
  const JobSpec general = job("g", 0, 8, kHour);
  EXPECT_FALSE(st.host_fits(0, core));  // spot
  EXPECT_TRUE(st.host_fits(2, core));   // on demand
  EXPECT_TRUE(st.host_fits(0, general));
  // A copy shares the guard; the allocation itself is refused too.
  ClusterState copy = st;
  EXPECT_FALSE(copy.host_fits(1, core));
  Placement p;
  p.model = kA100;
  for (int g = 0; g < 8; ++g) p.slots.push_back(Slot{0, static_cast<int16_t>(g), kMilliPerGpu});
  EXPECT_FALSE(copy.allocate(p, core).ok());
  EXPECT_EQ(make_spot_guard(on_demand_a100(Region{"r", "UTC"}, 1, 60, 60), priced_gpus()), nullptr);
}

TEST(SpotSim, FrugalNeverPutsCoreTierWorkOnSpot) {
  // Core work: frugal provisions on-demand nodes for it; fifo (no spot placement) takes the
  // spot nodes first (node order).
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 3; ++i) {
    JobSpec j = job("c" + std::to_string(i), i * 600.0, 8, 5 * kHour);
    j.tier = Tier::kCore;
    jobs.push_back(j);
  }
  const ClusterSpec c = spot_cluster(0.01);
  const SimResult frugal = run_priced(jobs, c, "frugal");
  EXPECT_EQ(frugal.spot_gpu_seconds, 0);
  EXPECT_EQ(frugal.spot_nodes_provisioned, 0);
  for (const JobOutcome& o : frugal.jobs) EXPECT_GT(o.finish, 0);
  const SimResult fifo = run_priced(jobs, c, "fifo");
  EXPECT_GT(fifo.spot_gpu_seconds, 0);
  // General-tier work pays on spot: frugal runs it there.
  for (JobSpec& j : jobs) j.tier = Tier::kGeneral;
  const SimResult general = run_priced(jobs, c, "frugal");
  EXPECT_GT(general.spot_gpu_seconds, 0);
  for (const JobOutcome& o : general.jobs) EXPECT_GT(o.finish, 0);
}

TEST(SpotReport, ShowsSpotOnlyOnSpotClusters) {
  const SimResult r = run_priced({checkpointing("a", 40, 600)}, spot_cluster(0.5), "fifo");
  const nlohmann::json j = to_json(summarize(r));
  ASSERT_TRUE(j.contains("spot"));
  EXPECT_EQ(j["spot"]["reclaims"], r.spot_reclaims);
  EXPECT_DOUBLE_EQ(j["spot"]["gpu_hours"].get<double>(), r.spot_gpu_seconds / 3600);
  EXPECT_GT(j["spot"]["rework_gpu_hours"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(j["waste"]["spot_reclaim_usd"].get<double>(),
                   r.ledger.total.waste.spot_reclaim_usd);
  EXPECT_TRUE(j["by_team"]["default"]["waste"].contains("spot_reclaim_usd"));
  const std::string text = to_table({summarize(r)});
  EXPECT_NE(text.find("reclaims"), std::string::npos) << text;
  EXPECT_NE(text.find("spot_reclaim"), std::string::npos) << text;
  // Without a spot pool: no spot block, no spot_reclaim key (reports keep their shape).
  const SimResult od = run_priced({checkpointing("a", 2, 600)},
                                  on_demand_a100(Region{"r", "UTC"}, 1, 60, 60), "fifo");
  const nlohmann::json k = to_json(summarize(od));
  EXPECT_FALSE(k.contains("spot"));
  EXPECT_FALSE(k["waste"].contains("spot_reclaim_usd"));
}

}  // namespace
}  // namespace frugal::testing
