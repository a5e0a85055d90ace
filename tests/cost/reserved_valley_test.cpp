// Reserved valleys in the time-shift admit (`valley`): a deferrable job that does not fit
// now waits for a reserved node, already paid for, to free up instead of booting an
// on-demand node — when that beats the wait price — and later jobs do not count on GPUs an
// earlier one claimed.
#include <gtest/gtest.h>

#include "cost_test_util.h"
#include "policy/time_shift.h"

namespace frugal::testing {
namespace {

// One reserved 1-GPU A100 node and one on-demand 1-GPU A100 node (600 s to boot), flat
// energy ($50/MWh) and no time-of-use window: only the valley can make waiting pay.
ClusterSpec reserved_plus_on_demand() {
  ClusterSpec c = hand_cluster(Capacity::kReserved, {gpu_node("r", kA100, 1)});
  c.regions[0].electricity_usd_per_mwh = HourlySeries(kEpoch, {50});
  c.regions[0].offpeak = HourlySeries();
  Pool od;
  od.name = "od";
  od.capacity = Capacity::kOnDemand;
  od.provisioning_delay_s = 600;
  od.idle_timeout_s = 600;
  c.pools.push_back(od);
  c.nodes.push_back(gpu_node("o", kA100, 1, 0, 1));
  return c;
}

JobSpec deferrable(std::string id, Seconds submit) {
  JobSpec j = job(std::move(id), submit, 1, kHour);
  j.deferrable = true;
  j.deadline = submit + 24 * kHour;
  return j;
}

TEST(ReservedValley, WaitsForThePaidNodeInsteadOfBooting) {
  // "busy" holds the reserved GPU for the first hour; "d" arrives at 10 s.
  const std::vector<JobSpec> jobs = {job("busy", 0, 1, kHour), deferrable("d", 10)};
  const SimResult off = run_priced(jobs, reserved_plus_on_demand(), "timeshift:overflow=1");
  const SimResult on = run_priced(jobs, reserved_plus_on_demand(), "timeshift:overflow=1:valley=1");
  // Without valleys it runs on the on-demand node once booted; with them it waits for the
  // reserved GPU ($4/h on demand against energy alone there) and no node is booted.
  EXPECT_LT(off.jobs[1].first_start, kHour);
  EXPECT_DOUBLE_EQ(on.jobs[1].first_start, kHour);
  EXPECT_EQ(on.nodes_provisioned, 0);
  EXPECT_EQ(on.deadline_misses, 0);
  EXPECT_LT(on.ledger.total.total_usd(), off.ledger.total.total_usd());
}

TEST(ReservedValley, ClaimsAndTheWaitPrice) {
  const std::vector<JobSpec> jobs = {job("busy", 0, 1, kHour), deferrable("d1", 10),
                                     deferrable("d2", 20)};
  // d1 claims the reserved GPU from 1 h to 2 h, so d2's valley is 2 h, not 1 h.
  const SimResult r = run_priced(jobs, reserved_plus_on_demand(), "timeshift:overflow=1:valley=1");
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, kHour);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start, 2 * kHour);
  // At $3 per GPU-hour of waiting, d1's hour costs $3 < $4 of rental, d2's two hours $6 > $4:
  // d2 boots the on-demand node instead.
  const SimResult w =
      run_priced(jobs, reserved_plus_on_demand(), "timeshift:overflow=1:valley=1:wait_usd_gpu_h=3");
  EXPECT_DOUBLE_EQ(w.jobs[1].first_start, kHour);
  EXPECT_LT(w.jobs[2].first_start, kHour);
  EXPECT_EQ(w.nodes_provisioned, 1);
}

TEST(ReservedValley, ParsesOption) {
  EXPECT_FALSE(parse_time_shift_options("").value().valley);
  EXPECT_TRUE(parse_time_shift_options("valley=1").value().valley);
  EXPECT_FALSE(parse_time_shift_options("valley=x").ok());
}

}  // namespace
}  // namespace frugal::testing
