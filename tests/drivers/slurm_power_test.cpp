// Slurm power saving as frugal's provider: node power from slurmrestd v0.0.38's state and
// flags (as the local cluster shows them, deploy/slurm-local) and what the backend reports.

#include "drivers/slurm_power.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

SlurmNode node(const std::string& state, std::vector<std::string> flags) {
  SlurmNode n;
  n.name = "gpu5";
  n.state = state;
  n.flags = std::move(flags);
  return n;
}

// The sequences seen on Slurm 22.05.8: power-up, power-down, a ResumeProgram that fails
// (down~ after ResumeTimeout), then State=RESUME.
TEST(SlurmPower, StatesAsSlurmShowsThem) {
  EXPECT_EQ(power_of(node("idle", {})), PowerState::kOn);
  EXPECT_EQ(power_of(node("idle", {"CLOUD"})), PowerState::kOn);
  EXPECT_EQ(power_of(node("mixed", {"CLOUD"})), PowerState::kOn);
  EXPECT_EQ(power_of(node("idle", {"CLOUD", "POWERED_DOWN"})), PowerState::kOff);
  EXPECT_EQ(power_of(node("idle", {"CLOUD", "POWER_UP", "POWERED_DOWN"})), PowerState::kBooting);
  EXPECT_EQ(power_of(node("idle", {"CLOUD", "NOT_RESPONDING", "POWERING_UP"})),
            PowerState::kBooting);
  EXPECT_EQ(power_of(node("idle", {"CLOUD", "POWER_DOWN"})), PowerState::kOff);
  EXPECT_EQ(power_of(node("idle", {"CLOUD", "POWERING_DOWN"})), PowerState::kOff);
  EXPECT_EQ(power_of(node("down", {"CLOUD", "POWERED_DOWN", "NOT_RESPONDING"})),
            PowerState::kFailed);
  EXPECT_EQ(power_of(node("idle", {"CLOUD", "POWERED_DOWN", "NOT_RESPONDING"})), PowerState::kOff);
  // A down node that is not powered down is a node failure, not a power state.
  EXPECT_EQ(power_of(node("down", {"NOT_RESPONDING"})), PowerState::kOn);
}

// A spot reclaim notice: drained with the reclaim reason (scripts/slurm-local.sh reclaim);
// POWER_DOWN_FORCE then clears the drain. Other drains are not notices.
TEST(SlurmPower, ReclaimNoticeIsADrainWithTheReason) {
  SlurmNode n = node("mixed", {"CLOUD", "DRAIN"});
  n.reason = "spot reclaim";
  EXPECT_EQ(power_of(n), PowerState::kReclaiming);
  EXPECT_EQ(power_of(n, "preempt"), PowerState::kOn);
  n.reason = "spot reclaim at 12:00 (aws)";
  EXPECT_EQ(power_of(n), PowerState::kReclaiming);
  n.reason = "bad GPU";
  EXPECT_EQ(power_of(n), PowerState::kOn);
  n.reason = "spot reclaim";
  n.flags = {"CLOUD", "DRAIN", "POWER_DOWN"};
  EXPECT_EQ(power_of(n), PowerState::kOff);
  n.flags = {"CLOUD", "POWERING_DOWN"};
  EXPECT_EQ(power_of(n), PowerState::kOff);
}

TEST(SlurmPower, ReportsEachChangeOnce) {
  PowerTracker t(10, 60);
  t.track("gpu5", PowerState::kOff);
  EXPECT_EQ(t.observe("gpu5", PowerState::kOff, 0), std::nullopt);
  t.requested("gpu5", true, 1);
  EXPECT_EQ(t.observe("gpu5", PowerState::kOff, 1.5), std::nullopt);  // not visible yet
  EXPECT_EQ(t.observe("gpu5", PowerState::kBooting, 2), PowerState::kBooting);
  EXPECT_EQ(t.observe("gpu5", PowerState::kBooting, 3), std::nullopt);
  EXPECT_EQ(t.observe("gpu5", PowerState::kOn, 5), PowerState::kOn);
  EXPECT_EQ(t.reported("gpu5"), PowerState::kOn);
  t.requested("gpu5", false, 100);
  EXPECT_EQ(t.observe("gpu5", PowerState::kOn, 100.5), std::nullopt);  // not visible yet
  EXPECT_EQ(t.observe("gpu5", PowerState::kOff, 101), PowerState::kOff);
  EXPECT_EQ(t.observe("nope", PowerState::kOn, 101), std::nullopt);  // not tracked
}

// A request Slurm never shows is given up after settle_s: what Slurm shows is reported (the
// engine then asks again or moves on).
TEST(SlurmPower, RequestNeverShownIsGivenUp) {
  PowerTracker t(10, 60);
  t.track("gpu5", PowerState::kOn);
  t.requested("gpu5", true, 0);
  EXPECT_EQ(t.observe("gpu5", PowerState::kOff, 9), std::nullopt);
  EXPECT_EQ(t.observe("gpu5", PowerState::kOff, 11), PowerState::kOff);
}

// A refused request: reported failed, and held so for hold_s before Slurm's view is
// reported again (the autoscaler does not retry the node at once).
TEST(SlurmPower, RefusedRequestIsHeldAsFailed) {
  PowerTracker t(10, 60);
  t.track("gpu6", PowerState::kOff);
  t.requested("gpu6", true, 0);
  t.request_failed("gpu6", 0.5);
  EXPECT_EQ(t.reported("gpu6"), PowerState::kFailed);
  EXPECT_EQ(t.observe("gpu6", PowerState::kOff, 30), std::nullopt);
  EXPECT_EQ(t.observe("gpu6", PowerState::kOff, 61), PowerState::kOff);
  // A ResumeTimeout failure: reported as Slurm shows it, until repaired.
  t.requested("gpu6", true, 100);
  EXPECT_EQ(t.observe("gpu6", PowerState::kBooting, 101), PowerState::kBooting);
  EXPECT_EQ(t.observe("gpu6", PowerState::kFailed, 131), PowerState::kFailed);
  EXPECT_EQ(t.observe("gpu6", PowerState::kFailed, 140), std::nullopt);
  EXPECT_EQ(t.observe("gpu6", PowerState::kOff, 200), PowerState::kOff);
}

}  // namespace
}  // namespace frugal
