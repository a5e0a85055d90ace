// DeferralClaims: the GPUs promised to deferred jobs, per centre, over time.
#include "policy/deferral_claims.h"

#include <gtest/gtest.h>

namespace frugal::testing {
namespace {

TEST(DeferralClaims, PeakIsTheMostClaimedAtOneInstant) {
  DeferralClaims c;
  c.claim("a", 0, 0, 100, 4);
  c.claim("b", 0, 50, 150, 2);
  c.claim("c", 0, 100, 200, 3);                   // starts when a ends: back to back, not on top
  c.claim("d", 1, 0, 200, 8);                     // another centre
  EXPECT_DOUBLE_EQ(c.peak(0, 0, 200, "x"), 6);    // a + b over [50, 100)
  EXPECT_DOUBLE_EQ(c.peak(0, 100, 200, "x"), 5);  // b + c over [100, 150)
  EXPECT_DOUBLE_EQ(c.peak(0, 150, 160, "x"), 3);
  EXPECT_DOUBLE_EQ(c.peak(0, 200, 300, "x"), 0);  // all ended
  EXPECT_DOUBLE_EQ(c.peak(1, 0, 1, "x"), 8);
}

TEST(DeferralClaims, OwnClaimsNeverBlockAndClaimingAgainReplaces) {
  DeferralClaims c;
  c.claim("a", 0, 0, 100, 4);
  EXPECT_DOUBLE_EQ(c.peak(0, 0, 100, "a"), 0);
  EXPECT_DOUBLE_EQ(c.peak(0, 0, 100, "b"), 4);
  c.release("a");
  c.claim("a", 0, 200, 300, 4);
  EXPECT_DOUBLE_EQ(c.peak(0, 0, 100, "b"), 0);
  EXPECT_DOUBLE_EQ(c.peak(0, 250, 260, "b"), 4);
  EXPECT_EQ(c.size(), 1u);
}

TEST(DeferralClaims, ExpireDropsClaimsThatEnded) {
  DeferralClaims c;
  c.claim("a", 0, 0, 100, 1);
  c.claim("b", 0, 0, 101, 1);
  c.claim("z", 0, 5, 5, 1);  // empty: not recorded
  c.claim("y", 0, 5, 9, 0);  // no GPUs: not recorded
  EXPECT_EQ(c.size(), 2u);
  c.expire(100);
  EXPECT_EQ(c.size(), 1u);
  EXPECT_DOUBLE_EQ(c.peak(0, 0, 200, "x"), 1);
}

}  // namespace
}  // namespace frugal::testing
