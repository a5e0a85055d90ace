// Time-of-use elastic sizing (+tou with +elastic, src/policy/tou_sizing.cpp), through the
// simulator with the ledger: an elastic job on on-demand nodes grows onto new nodes in the
// region's discounted off-peak hours when that costs less than doing the work later at the
// full rate, gives them back when peak hours start, and a long job starts at the size it
// would keep at peak.

#include <gtest/gtest.h>

#include <cmath>

#include "../cost/cost_test_util.h"

namespace frugal {
namespace {

using testing::gpu_node;
using testing::kA100;
using testing::kEpoch;
using testing::profile;
using testing::run_priced;

constexpr double kTouDelay = 300, kTouTimeout = 900;
constexpr double kNightEnd = 36000;   // off-peak 00:00-10:00 UTC, every day
constexpr double kNextNight = 86400;  // the next off-peak start
constexpr double kDay = 86400;
const double kA = std::pow(0.5, 0.8), kB = std::pow(2.0, 0.8);

// One region, off-peak 00:00-10:00 UTC at 40 % off, flat electricity; one on-demand pool of
// `n` 8-GPU A100 nodes ($4 per GPU-hour list).
ClusterSpec night_discount(int n) {
  Region r;
  r.name = "tou";
  std::vector<double> hours(24, 0.0);
  for (int h = 0; h < 10; ++h) hours[h] = 1;
  r.offpeak = HourlySeries(kEpoch, hours);
  r.time_of_use.discount = 0.4;
  return testing::on_demand_a100(r, n, kTouDelay, kTouTimeout);
}

// `c` with a second pool (index 1) of `capacity` holding `nodes`, listed before the others
// when `first` (so their model comes first in the cluster's model order).
ClusterSpec with_pool(ClusterSpec c, Capacity capacity, std::vector<NodeSpec> nodes, bool first) {
  Pool p;
  p.name = "second";
  p.capacity = capacity;
  c.pools.push_back(p);
  c.nodes.insert(first ? c.nodes.begin() : c.nodes.end(), nodes.begin(), nodes.end());
  return c;
}

JobSpec elastic(std::string id, Seconds submit, int gpus, int min, int max, Seconds duration) {
  JobSpec j = testing::job(std::move(id), submit, gpus, duration);
  j.min_gpus = min;
  j.max_gpus = max;
  return j;
}

// Rental of `gpus` A100 GPUs over [t0, t1) inside one day, with [0, kNightEnd) off-peak.
double rental(double gpus, double t0, double t1) {
  const double night = std::max(0.0, std::min(t1, kNightEnd) - t0);
  return gpus * 4 / 3600 * (0.6 * night + (t1 - t0 - night));
}

// E (8 GPUs, 4..16, 72,000 s) arrives at midnight and starts on od0 at 300. Growing onto a
// second node for the night pays (the work done there would otherwise run at the day
// rate): od1 is asked for at 300, E grows to 16 when it is up at 600 (30 s restart) and
// gives it back at 10:00, when it would end before the next night (so back to its request).
// It finishes 26,000 s sooner and costs 6.5 % less than without +tou.
TEST(TouElastic, GrowsOntoANewNodeAtNightAndGivesItBackAtPeak) {
  const std::vector<JobSpec> jobs = {elastic("E", 0, 8, 4, 16, 72000)};
  const SimResult tou = run_priced(jobs, night_discount(3), "fifo+elastic+tou");
  const SimResult flat = run_priced(jobs, night_discount(3), "fifo+elastic");
  const double grown = (kNightEnd - 630) * kB;  // progress at 16 GPUs until 10:00
  const double end = kNightEnd + 30 + (72000 - 300 - grown);
  EXPECT_NEAR(tou.jobs[0].finish, end, 1e-6);
  EXPECT_EQ(tou.jobs[0].resizes, 2);
  EXPECT_EQ(tou.nodes_provisioned, 2);
  EXPECT_DOUBLE_EQ(flat.jobs[0].finish, 72300);
  EXPECT_EQ(flat.jobs[0].resizes, 0);
  // od0 from 0 until E's end + the idle timeout; od1 from 300 until 10:00 + the timeout.
  EXPECT_NEAR(tou.ledger.total.compute.rental_usd,
              rental(8, 0, end + kTouTimeout) + rental(8, 300, kNightEnd + kTouTimeout), 1e-6);
  EXPECT_NEAR(flat.ledger.total.compute.rental_usd, rental(8, 0, 72300 + kTouTimeout), 1e-6);
  EXPECT_LT(tou.ledger.total.compute.rental_usd, 0.94 * flat.ledger.total.compute.rental_usd);
}

// A job that ends within the off-peak hours anyway only costs more on more GPUs (n^0.8):
// no node is asked for and it never grows.
TEST(TouElastic, NoGrowthForAJobThatEndsWithinTheOffPeakHours) {
  const std::vector<JobSpec> jobs = {elastic("E", 0, 8, 4, 16, 20000)};
  const SimResult r = run_priced(jobs, night_discount(3), "fifo+elastic+tou");
  EXPECT_EQ(r.jobs[0].resizes, 0);
  EXPECT_EQ(r.nodes_provisioned, 1);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 20300);
}

// Work displaced from a reserved node saves nothing (it is paid whatever happens): E on the
// reserved node r0 never asks for an on-demand node to grow onto, at night or by day.
TEST(TouElastic, NoGrowthForAJobOnReservedNodes) {
  const ClusterSpec c =
      with_pool(night_discount(3), Capacity::kReserved, {gpu_node("r0", kA100, 8, 0, 1)}, false);
  const std::vector<JobSpec> jobs = {elastic("E", 0, 8, 4, 16, 72000)};
  const SimResult r = run_priced(jobs, c, "fifo+elastic+tou");
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start, 0);
  EXPECT_EQ(r.jobs[0].resizes, 0);
  EXPECT_EQ(r.nodes_provisioned, 0);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 72000);
}

// E (16 GPUs, 8..32, 150,000 s) arrives at 11:06, in peak hours. Held at 8 until midnight
// and at 32 through the night it would end sooner than at 16 all along, so it starts on one
// node at 8 GPUs (not two, one of which it would give back at once) and the autoscaler asks
// for one node. At midnight growth to 32 pays: three nodes are asked for and E grows when
// they are up (86,700). At 10:00 it would still run at the next night, but holding 8 through
// the day would now end it later than 16 would, so it gives back two nodes and keeps its
// request. It ends sooner than with +elastic alone (16 GPUs all the way) and costs less.
TEST(TouElastic, StartsSmallAtPeakAndGrowsAtNight) {
  const std::vector<JobSpec> jobs = {elastic("E", 40000, 16, 8, 32, 150000)};
  const SimResult tou = run_priced(jobs, night_discount(4), "fifo+elastic+tou");
  const SimResult flat = run_priced(jobs, night_discount(4), "fifo+elastic");
  const double grow = kNextNight + kTouDelay, shrink = kDay + kNightEnd;
  // Progress in reference seconds: 8 GPUs run at 0.5^0.8 of the request's speed, 32 at 2^0.8.
  const double done = (grow - 40300) * kA + (shrink - grow - 30) * kB;
  EXPECT_DOUBLE_EQ(tou.jobs[0].first_start, 40300);
  EXPECT_NEAR(tou.jobs[0].finish, shrink + 30 + (150000 - done), 1e-6);
  EXPECT_EQ(tou.jobs[0].resizes, 2);
  EXPECT_EQ(tou.nodes_provisioned, 4);
  EXPECT_DOUBLE_EQ(flat.jobs[0].finish, 190300);
  EXPECT_EQ(flat.jobs[0].resizes, 0);
  EXPECT_EQ(flat.nodes_provisioned, 2);
  EXPECT_LT(tou.ledger.total.compute.rental_usd, flat.ledger.total.compute.rental_usd);
}

// E (16 GPUs, 8..32, 50,000 s) arrives at 11:06 and at its request would run until 01:05, into
// the night. Held at 8 until midnight it would do 26,648 s of work and, back at 16 for the
// night (growth to 32 would not pay: it ends within the night either way), end at 06:35:
// later than at its request all along. So it keeps its request: two nodes, no resize.
TEST(TouElastic, KeepsItsRequestWhenItsMinimumWouldDelayIt) {
  const SimResult r =
      run_priced({elastic("E", 40000, 16, 8, 32, 50000)}, night_discount(4), "fifo+elastic+tou");
  EXPECT_DOUBLE_EQ(r.jobs[0].finish, 90300);
  EXPECT_EQ(r.jobs[0].resizes, 0);
  EXPECT_EQ(r.nodes_provisioned, 2);
}

// The smaller start is on the model its full request was placed on. W (32 GPUs) leaves the
// four on-demand A100 nodes idle at 39,300; E (32 GPUs, 16..64) arrives at 40,000 and is
// placed on them, then starts there at 16. Two owned V100 nodes, first in the cluster's model
// order, could hold those 16 too (a best fit), but E does not move to another model for it.
TEST(TouElastic, StartsSmallOnTheModelItWasPlacedOn) {
  const ClusterSpec c = with_pool(
      night_discount(4), Capacity::kOwned,
      {gpu_node("v0", testing::kV100, 8, 0, 1), gpu_node("v1", testing::kV100, 8, 0, 1)}, true);
  const std::vector<JobSpec> jobs = {testing::job("W", 0, 32, 39000),
                                     elastic("E", 40000, 32, 16, 64, 200000)};
  const SimResult r = run_priced(jobs, c, "fifo+elastic+tou");
  const SimResult alone = run_priced(jobs, night_discount(4), "fifo+elastic+tou");
  EXPECT_EQ(r.jobs[0].last_model, kA100);  // W ran on A100 (not on 16 V100 GPUs)
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start, 40000);
  EXPECT_EQ(r.jobs[1].last_model, kA100);
  // The V100 nodes change nothing: the same run as on the A100 pool alone.
  EXPECT_DOUBLE_EQ(r.jobs[1].finish, alone.jobs[1].finish);
  EXPECT_EQ(r.jobs[1].resizes, alone.jobs[1].resizes);
}

// Without a time-of-use discount +tou changes nothing.
TEST(TouElastic, NothingChangesWithoutADiscount) {
  ClusterSpec c = night_discount(3);
  c.regions[0].time_of_use.discount = 0;
  const std::vector<JobSpec> jobs = {elastic("E", 0, 8, 4, 16, 72000),
                                     elastic("F", 40000, 16, 8, 32, 150000)};
  const SimResult tou = run_priced(jobs, c, "fifo+elastic+tou");
  const SimResult flat = run_priced(jobs, c, "fifo+elastic");
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_DOUBLE_EQ(tou.jobs[i].finish, flat.jobs[i].finish);
    EXPECT_EQ(tou.jobs[i].resizes, flat.jobs[i].resizes);
  }
  EXPECT_DOUBLE_EQ(tou.ledger.total.compute.rental_usd, flat.ledger.total.compute.rental_usd);
}

// With static capacity (and so live) on-demand nodes are paid whether used or not: the peak
// rules give nothing back and start nothing small, so +tou changes nothing. (They used to:
// at 10:00 tou_shrink gave nodes back that elastic_grow took again at once, forever — ITP
// cluster03 with --static-capacity never ended; the churn guard now stops such a run.)
TEST(TouElastic, StaticCapacityChangesNothingAndEnds) {
  const std::vector<JobSpec> jobs = {elastic("E", 0, 8, 4, 16, 72000),
                                     elastic("F", 0, 8, 4, 16, 90000),
                                     elastic("G", 40000, 8, 4, 16, 150000)};
  SimOptions o;
  o.static_capacity = true;
  const SimResult tou = run_priced(jobs, night_discount(4), "fifo+elastic+tou", o);
  const SimResult flat = run_priced(jobs, night_discount(4), "fifo+elastic", o);
  EXPECT_EQ(tou.stopped, "");
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_GT(tou.jobs[i].finish, 0) << jobs[i].id;
    EXPECT_DOUBLE_EQ(tou.jobs[i].finish, flat.jobs[i].finish) << jobs[i].id;
    EXPECT_EQ(tou.jobs[i].resizes, flat.jobs[i].resizes) << jobs[i].id;
  }
}

TEST(TouElastic, OnInTheFrugalProfileAndAnOption) {
  EXPECT_NE(profile("frugal").describe().find(" tou"), std::string::npos);
  EXPECT_EQ(profile("frugal:tou=0").describe().find(" tou"), std::string::npos);
  EXPECT_NE(profile("fifo+elastic+tou").describe().find(" tou"), std::string::npos);
}

}  // namespace
}  // namespace frugal
